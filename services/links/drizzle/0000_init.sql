CREATE SCHEMA "links";
--> statement-breakpoint
CREATE TABLE "links"."inbox" (
	"consumer" text NOT NULL,
	"message_id" text NOT NULL,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inbox_consumer_message_id_pk" PRIMARY KEY("consumer","message_id")
);
--> statement-breakpoint
CREATE TABLE "links"."outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"body" text NOT NULL,
	"headers" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "links"."payment_links" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "links"."payment_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"merchant_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"label" text NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"currency" text NOT NULL,
	"handle_value" text NOT NULL,
	"handle_label" text NOT NULL,
	"custom_identifier" text,
	"custom_identifier2" text,
	"single_payment" boolean NOT NULL,
	"credit_and_debit_card" boolean NOT NULL,
	"recurrence" jsonb,
	"pay_wait_hours" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"redirect_url" text,
	"no_login_required" boolean DEFAULT false NOT NULL,
	"document_number" text,
	"payment_methods" jsonb NOT NULL,
	"status_id" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	CONSTRAINT "payment_links_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "links"."outbox" USING btree ("next_attempt_at") WHERE published_at is null;--> statement-breakpoint
CREATE INDEX "payment_links_merchant_idx" ON "links"."payment_links" USING btree ("merchant_id","id");