CREATE TABLE "links"."care_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"subscription_id" bigint NOT NULL,
	"email_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "links"."customer_emails" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"dedupe_key" text NOT NULL,
	"recipient" varchar(254) NOT NULL,
	"language" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text NOT NULL,
	"from_name" text NOT NULL,
	"reply_to" text,
	"subscription_id" bigint,
	"link_id" bigint,
	"action_subscription_id" bigint,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	CONSTRAINT "customer_emails_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE TABLE "links"."email_cards" (
	"payment_method_id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"brand" text NOT NULL,
	"last4" varchar(4) NOT NULL,
	"expiry_month" integer NOT NULL,
	"expiry_year" integer NOT NULL,
	"removed" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "links"."email_installments" (
	"installment_id" bigint PRIMARY KEY NOT NULL,
	"subscription_id" bigint NOT NULL,
	"number" integer NOT NULL,
	"payment_date" text NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"status" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "links"."email_subscriptions" (
	"subscription_id" bigint PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"link_id" bigint NOT NULL,
	"status" text NOT NULL,
	"timezone" text NOT NULL,
	"currency" text NOT NULL,
	"payment_method_id" uuid
);
--> statement-breakpoint
CREATE TABLE "links"."simulated_days" (
	"scope" text PRIMARY KEY NOT NULL,
	"as_of" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "links"."customers" ADD COLUMN "language" text;--> statement-breakpoint
CREATE INDEX "customer_emails_due_idx" ON "links"."customer_emails" USING btree ("next_attempt_at") WHERE "links"."customer_emails"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "customer_emails_customer_idx" ON "links"."customer_emails" USING btree ("merchant_id","customer_id","created_at");--> statement-breakpoint
CREATE INDEX "customer_emails_merchant_idx" ON "links"."customer_emails" USING btree ("merchant_id","id");--> statement-breakpoint
CREATE INDEX "email_installments_subscription_idx" ON "links"."email_installments" USING btree ("subscription_id","payment_date");--> statement-breakpoint
CREATE INDEX "email_subscriptions_merchant_idx" ON "links"."email_subscriptions" USING btree ("merchant_id","status");