CREATE SCHEMA "subscriptions";
--> statement-breakpoint
CREATE TABLE "subscriptions"."inbox" (
	"consumer" text NOT NULL,
	"message_id" text NOT NULL,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inbox_consumer_message_id_pk" PRIMARY KEY("consumer","message_id")
);
--> statement-breakpoint
CREATE TABLE "subscriptions"."outbox" (
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
CREATE TABLE "subscriptions"."subscriptions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "subscriptions"."subscriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"merchant_id" uuid NOT NULL,
	"link_id" bigint NOT NULL,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"custom_identifier" text,
	"custom_identifier2" text,
	"currency" text NOT NULL,
	"first_amount" numeric(18, 2) NOT NULL,
	"installment_amount" numeric(18, 2),
	"total_periods" integer,
	"day_of_month" integer,
	"month_for_second_installment" integer,
	"timezone" text NOT NULL,
	"created_on" date NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "subscriptions_link_id_unique" UNIQUE("link_id")
);
--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "subscriptions"."outbox" USING btree ("next_attempt_at") WHERE published_at is null;--> statement-breakpoint
CREATE INDEX "subscriptions_lookup_idx" ON "subscriptions"."subscriptions" USING btree ("merchant_id","custom_identifier","custom_identifier2");