CREATE TABLE "processor_gateway"."card_registrations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"processor" text NOT NULL,
	"customer_ref" text NOT NULL,
	"registration_ref" text NOT NULL,
	"link_id" bigint,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "card_registrations_registration_ref_unique" UNIQUE("registration_ref")
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."charges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"idempotency_key" text NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"installment_id" bigint,
	"attempt" integer,
	"link_id" bigint,
	"payment_method_id" uuid,
	"processor" text NOT NULL,
	"reference" text NOT NULL,
	"processor_reference" text,
	"amount" numeric(18, 2) NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"decline_code" text,
	"decline_category" text,
	"retryable" boolean,
	"authorization_code" text,
	"hosted_form" jsonb,
	"processor_calls" integer DEFAULT 0 NOT NULL,
	"status_checks" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"next_check_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "charges_idempotency_key_unique" UNIQUE("idempotency_key"),
	CONSTRAINT "charges_reference_unique" UNIQUE("reference")
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."payment_methods" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"processor" text NOT NULL,
	"customer_ref" text NOT NULL,
	"card_ref" text NOT NULL,
	"masked_number" text NOT NULL,
	"last4" text NOT NULL,
	"brand" text NOT NULL,
	"expiry_month" smallint NOT NULL,
	"expiry_year" smallint NOT NULL,
	"blocked_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."processor_customers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"processor" text NOT NULL,
	"customer_ref" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "processor_customers_customer_ref_unique" UNIQUE("customer_ref")
);
--> statement-breakpoint
ALTER TABLE "processor_gateway"."charges" ADD CONSTRAINT "charges_payment_method_id_payment_methods_id_fk" FOREIGN KEY ("payment_method_id") REFERENCES "processor_gateway"."payment_methods"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "charges_unsettled_idx" ON "processor_gateway"."charges" USING btree ("next_check_at") WHERE status in ('pending', 'unknown');--> statement-breakpoint
CREATE INDEX "charges_declines_idx" ON "processor_gateway"."charges" USING btree ("payment_method_id","settled_at") WHERE status = 'failed';--> statement-breakpoint
CREATE INDEX "charges_merchant_idx" ON "processor_gateway"."charges" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_methods_card_key" ON "processor_gateway"."payment_methods" USING btree ("processor","customer_ref","card_ref") WHERE removed_at is null;--> statement-breakpoint
CREATE INDEX "payment_methods_customer_idx" ON "processor_gateway"."payment_methods" USING btree ("merchant_id","customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "processor_customers_identity_key" ON "processor_gateway"."processor_customers" USING btree ("merchant_id","customer_id","processor");