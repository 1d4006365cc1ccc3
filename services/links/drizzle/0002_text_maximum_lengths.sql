ALTER TABLE "links"."customers" ALTER COLUMN "email" SET DATA TYPE varchar(254);--> statement-breakpoint
ALTER TABLE "links"."customers" ALTER COLUMN "email_key" SET DATA TYPE varchar(254);--> statement-breakpoint
ALTER TABLE "links"."customers" ALTER COLUMN "first_name" SET DATA TYPE varchar(100);--> statement-breakpoint
ALTER TABLE "links"."customers" ALTER COLUMN "last_name" SET DATA TYPE varchar(100);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "label" SET DATA TYPE varchar(255);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "handle_value" SET DATA TYPE varchar(255);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "handle_label" SET DATA TYPE varchar(255);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "custom_identifier" SET DATA TYPE varchar(255);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "custom_identifier2" SET DATA TYPE varchar(255);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "redirect_url" SET DATA TYPE varchar(2048);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ALTER COLUMN "document_number" SET DATA TYPE varchar(64);