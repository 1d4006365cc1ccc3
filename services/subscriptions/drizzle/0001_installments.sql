CREATE TABLE "subscriptions"."early_link_payments" (
	"link_id" bigint PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"paid_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions"."installments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "subscriptions"."installments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"subscription_id" bigint NOT NULL,
	"number" integer NOT NULL,
	"payment_date" date NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"status" text NOT NULL,
	"invoice_number" text,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "installments_subscription_number_unique" UNIQUE("subscription_id","number"),
	CONSTRAINT "installments_status_check" CHECK ("subscriptions"."installments"."status" in ('pending', 'processing', 'paid', 'failed', 'cancelled')),
	CONSTRAINT "installments_amount_positive" CHECK ("subscriptions"."installments"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "activated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions"."installments" ADD CONSTRAINT "installments_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "installments_subscription_invoice_unique" ON "subscriptions"."installments" USING btree ("subscription_id","invoice_number") WHERE invoice_number is not null;--> statement-breakpoint
CREATE INDEX "installments_subscription_date_idx" ON "subscriptions"."installments" USING btree ("subscription_id","payment_date");--> statement-breakpoint
CREATE INDEX "subscriptions_lookup2_idx" ON "subscriptions"."subscriptions" USING btree ("merchant_id","custom_identifier2");--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD CONSTRAINT "subscriptions_status_check" CHECK ("subscriptions"."subscriptions"."status" in ('pending', 'active', 'completed', 'cancelled'));