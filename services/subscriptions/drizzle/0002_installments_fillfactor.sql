-- Installments are updated often (amounts, dates, status) and never grow: leave a fifth of each page
-- free so an update that touches no indexed column stays on its page (a HOT update, no index writes).
-- Drizzle's table builder cannot express storage parameters, hence this custom migration.
ALTER TABLE "subscriptions"."installments" SET (fillfactor = 80);
