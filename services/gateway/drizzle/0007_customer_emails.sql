ALTER TABLE "gateway"."merchants" ADD COLUMN "customer_emails" jsonb;--> statement-breakpoint
ALTER TABLE "gateway"."merchants" ADD COLUMN "contact_email" varchar(254);