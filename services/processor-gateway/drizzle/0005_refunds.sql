CREATE TABLE "processor_gateway"."refunds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"payment_id" uuid NOT NULL,
	"idempotency_key" varchar(255) NOT NULL,
	"fingerprint" text NOT NULL,
	"mode" text NOT NULL,
	"method" text NOT NULL,
	"processor" text,
	"amount" numeric(18, 2) NOT NULL,
	"currency" text NOT NULL,
	"reference" varchar(100),
	"reason" varchar(500),
	"status" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"processor_calls" integer DEFAULT 0 NOT NULL,
	"status_checks" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"link_id" bigint,
	"installment_id" bigint,
	"subscription_id" bigint,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"next_check_at" timestamp with time zone NOT NULL,
	"scheduled_at" timestamp with time zone,
	"settled_at" timestamp with time zone,
	CONSTRAINT "refunds_merchant_key_unique" UNIQUE("merchant_id","idempotency_key"),
	CONSTRAINT "refunds_status_check" CHECK ("processor_gateway"."refunds"."status" in ('pending', 'unknown', 'scheduled', 'succeeded', 'failed')),
	CONSTRAINT "refunds_amount_positive" CHECK ("processor_gateway"."refunds"."amount" > 0)
);
--> statement-breakpoint
CREATE INDEX "refunds_payment_idx" ON "processor_gateway"."refunds" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "refunds_unsettled_idx" ON "processor_gateway"."refunds" USING btree ("next_check_at") WHERE status in ('pending', 'unknown', 'scheduled');