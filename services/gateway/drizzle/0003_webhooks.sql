CREATE TABLE "gateway"."webhook_deliveries" (
	"position" bigserial NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"event_seq" bigint NOT NULL,
	"event_id" text NOT NULL,
	"kind" text NOT NULL,
	"ordering_key" text NOT NULL,
	"origin" text NOT NULL,
	"status" text NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_position_unique" UNIQUE("position")
);
--> statement-breakpoint
CREATE TABLE "gateway"."webhook_delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" uuid NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"status_code" integer,
	"duration_ms" integer NOT NULL,
	"response" text,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "gateway"."webhook_endpoints" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"url" varchar(2048) NOT NULL,
	"method" text NOT NULL,
	"auth_type" text,
	"auth_label" text,
	"auth_sealed" text,
	"events" jsonb,
	"description" text,
	"secret_sealed" text NOT NULL,
	"previous_secret_sealed" text,
	"previous_secret_expires_at" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_at" timestamp with time zone,
	"disabled_reason" text,
	"last_success_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gateway"."webhook_events" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"ordering_key" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_events_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "gateway"."webhook_installments" (
	"installment_id" integer PRIMARY KEY NOT NULL,
	"subscription_id" integer NOT NULL,
	"number" integer NOT NULL,
	"tx_id" text
);
--> statement-breakpoint
CREATE TABLE "gateway"."webhook_links" (
	"link_id" integer PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"label" text NOT NULL,
	"amount" text NOT NULL,
	"currency" text NOT NULL,
	"custom_identifier" text,
	"custom_identifier2" text,
	"recurrent" boolean NOT NULL,
	"total_periods" integer,
	"status_id" integer NOT NULL,
	"subscription_id" integer,
	"tx_id" text
);
--> statement-breakpoint
CREATE TABLE "gateway"."webhook_subscriptions" (
	"subscription_id" integer PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"link_id" integer NOT NULL,
	"total_periods" integer
);
--> statement-breakpoint
ALTER TABLE "gateway"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "gateway"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_seq_webhook_events_seq_fk" FOREIGN KEY ("event_seq") REFERENCES "gateway"."webhook_events"("seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "gateway"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "gateway"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_once_idx" ON "gateway"."webhook_deliveries" USING btree ("endpoint_id","event_seq") WHERE origin = 'event';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "gateway"."webhook_deliveries" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "gateway"."webhook_deliveries" USING btree ("endpoint_id","ordering_key","event_seq") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_merchant_idx" ON "gateway"."webhook_deliveries" USING btree ("merchant_id","position");--> statement-breakpoint
CREATE INDEX "webhook_delivery_attempts_delivery_idx" ON "gateway"."webhook_delivery_attempts" USING btree ("delivery_id");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_merchant_idx" ON "gateway"."webhook_endpoints" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "webhook_events_merchant_seq_idx" ON "gateway"."webhook_events" USING btree ("merchant_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_events_merchant_created_idx" ON "gateway"."webhook_events" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_events_created_idx" ON "gateway"."webhook_events" USING btree ("created_at");