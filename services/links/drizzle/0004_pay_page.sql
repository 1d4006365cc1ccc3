CREATE TABLE "links"."link_payments" (
	"link_id" bigint NOT NULL,
	"payment_number" integer NOT NULL,
	"kind" text NOT NULL,
	"processor" text NOT NULL,
	"customer_id" bigint,
	"subscription" boolean NOT NULL,
	"registration_id" uuid,
	"payment_method_id" uuid,
	"charge_id" uuid,
	"status" text NOT NULL,
	"decline_code" text,
	"decline_category" text,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "link_payments_link_id_payment_number_pk" PRIMARY KEY("link_id","payment_number")
);
--> statement-breakpoint
CREATE TABLE "links"."merchant_profiles" (
	"merchant_id" uuid PRIMARY KEY NOT NULL,
	"context" jsonb NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_processor" text;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_payment_method_id" uuid;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_charge_id" uuid;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_customer_id" bigint;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "last_decline_code" text;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "last_decline_category" text;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "expired_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "links"."link_payments" ADD CONSTRAINT "link_payments_link_id_payment_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "links"."payment_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_payments_charge_idx" ON "links"."link_payments" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "payment_links_payable_expiry_idx" ON "links"."payment_links" USING btree ("expires_at") WHERE "links"."payment_links"."status_id" in (1, 5) and "links"."payment_links"."expires_at" is not null;