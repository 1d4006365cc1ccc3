ALTER TABLE "subscriptions"."installments" ALTER COLUMN "invoice_number" SET DATA TYPE varchar(100);--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ALTER COLUMN "custom_identifier" SET DATA TYPE varchar(255);--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ALTER COLUMN "custom_identifier2" SET DATA TYPE varchar(255);