CREATE TABLE "billing_scheduler"."dunning_policies" (
	"merchant_id" uuid PRIMARY KEY NOT NULL,
	"retry_offset_days" jsonb NOT NULL,
	"cancel_after_failed_installments" integer,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_scheduler"."installments" (
	"installment_id" bigint PRIMARY KEY NOT NULL,
	"subscription_id" bigint NOT NULL,
	"merchant_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"payment_date" date NOT NULL,
	"due_on" date NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"state" text NOT NULL,
	"first_attempt_on" date,
	"last_run_id" uuid,
	"last_attempt_on" date,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "installments_attempt_positive" CHECK ("billing_scheduler"."installments"."attempt" >= 1)
);
--> statement-breakpoint
CREATE TABLE "billing_scheduler"."run_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "billing_scheduler"."run_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" uuid NOT NULL,
	"installment_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"requested_at" timestamp with time zone,
	"outcome" text,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "billing_scheduler"."runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"trigger" text NOT NULL,
	"as_of" date,
	"merchant_id" uuid,
	"started_at" timestamp with time zone NOT NULL,
	"claimed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "billing_scheduler"."subscriptions" (
	"subscription_id" bigint PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"status" text NOT NULL,
	"timezone" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "installments_scheduled_due_idx" ON "billing_scheduler"."installments" USING btree ("due_on") WHERE state = 'scheduled';--> statement-breakpoint
CREATE INDEX "installments_subscription_idx" ON "billing_scheduler"."installments" USING btree ("subscription_id");--> statement-breakpoint
CREATE UNIQUE INDEX "run_items_run_installment_uq" ON "billing_scheduler"."run_items" USING btree ("run_id","installment_id");--> statement-breakpoint
CREATE INDEX "run_items_attempt_idx" ON "billing_scheduler"."run_items" USING btree ("installment_id","attempt");--> statement-breakpoint
CREATE INDEX "runs_started_idx" ON "billing_scheduler"."runs" USING btree ("started_at");