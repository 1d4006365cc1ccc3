CREATE TABLE "processor_gateway"."ledger" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"method" text NOT NULL,
	"processor" text,
	"amount" numeric(18, 2) NOT NULL,
	"currency" text NOT NULL,
	"refunded_amount" numeric(18, 2) DEFAULT '0' NOT NULL,
	"card_brand" text,
	"card_last4" text,
	"processor_reference" text,
	"reference" text,
	"payment_id" uuid,
	"link_id" bigint,
	"label" text,
	"subscription_id" bigint,
	"installment_id" bigint,
	"installment_number" integer,
	"handle_value" text,
	"handle_label" text,
	"custom_identifier" text,
	"custom_identifier2" text,
	"decline_code" text,
	"decline_category" text,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."ledger_installments" (
	"installment_id" bigint PRIMARY KEY NOT NULL,
	"subscription_id" bigint NOT NULL,
	"link_id" bigint,
	"number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."ledger_links" (
	"link_id" bigint PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"label" text,
	"handle_value" text,
	"handle_label" text,
	"custom_identifier" text,
	"custom_identifier2" text,
	"subscription_id" bigint
);
--> statement-breakpoint
CREATE INDEX "ledger_merchant_created_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id","created_at","id");--> statement-breakpoint
CREATE INDEX "ledger_merchant_status_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "ledger_merchant_kind_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id","kind","created_at","id");--> statement-breakpoint
CREATE INDEX "ledger_link_idx" ON "processor_gateway"."ledger" USING btree ("link_id");--> statement-breakpoint
CREATE INDEX "ledger_subscription_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id","subscription_id");--> statement-breakpoint
CREATE INDEX "ledger_installment_idx" ON "processor_gateway"."ledger" USING btree ("installment_id");--> statement-breakpoint
CREATE INDEX "ledger_payment_idx" ON "processor_gateway"."ledger" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "ledger_custom_identifier_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id","custom_identifier");--> statement-breakpoint
CREATE INDEX "ledger_handle_value_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id",lower("handle_value") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "ledger_handle_label_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id",lower("handle_label") text_pattern_ops);