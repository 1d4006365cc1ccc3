CREATE TABLE "subscriptions"."charge_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "subscriptions"."charge_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"installment_id" integer NOT NULL,
	"subscription_id" bigint NOT NULL,
	"merchant_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"run_id" uuid,
	"payment_method_id" uuid NOT NULL,
	"processor" text,
	"amount" numeric(18, 2) NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"charge_id" uuid,
	"decline_code" text,
	"category" text,
	"next_attempt_on" date,
	CONSTRAINT "charge_attempts_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "charge_attempts_installment_attempt_unique" UNIQUE("installment_id","attempt"),
	CONSTRAINT "charge_attempts_status_check" CHECK ("subscriptions"."charge_attempts"."status" in ('requested', 'succeeded', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" DROP CONSTRAINT "subscriptions_status_check";--> statement-breakpoint
ALTER TABLE "subscriptions"."early_link_payments" ADD COLUMN "payment_method_id" uuid;--> statement-breakpoint
ALTER TABLE "subscriptions"."early_link_payments" ADD COLUMN "processor" text;--> statement-breakpoint
ALTER TABLE "subscriptions"."early_link_payments" ADD COLUMN "customer_id" bigint;--> statement-breakpoint
ALTER TABLE "subscriptions"."installments" ADD COLUMN "next_attempt_on" date;--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "payment_method_id" uuid;--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "processor" text;--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD COLUMN "customer_id" bigint;--> statement-breakpoint
ALTER TABLE "subscriptions"."charge_attempts" ADD CONSTRAINT "charge_attempts_installment_id_installments_id_fk" FOREIGN KEY ("installment_id") REFERENCES "subscriptions"."installments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions"."charge_attempts" ADD CONSTRAINT "charge_attempts_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "charge_attempts_card_idx" ON "subscriptions"."charge_attempts" USING btree ("payment_method_id","requested_at");--> statement-breakpoint
CREATE INDEX "subscriptions_payment_method_idx" ON "subscriptions"."subscriptions" USING btree ("payment_method_id") WHERE payment_method_id is not null;--> statement-breakpoint
ALTER TABLE "subscriptions"."subscriptions" ADD CONSTRAINT "subscriptions_status_check" CHECK ("subscriptions"."subscriptions"."status" in ('pending', 'active', 'past_due', 'completed', 'cancelled'));