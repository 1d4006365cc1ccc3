-- Open-ended subscriptions (STATIC with total_periods null: every month until cancelled) count the months of
-- their plan that have an installment; the rolling horizon adds the next month's installment from it. Every
-- subscription that exists is a fixed plan or DYNAMIC: null.
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "periods_scheduled" integer;
