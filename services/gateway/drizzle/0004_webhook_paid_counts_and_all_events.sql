CREATE TABLE "gateway"."webhook_paid_counts" (
	"subscription_id" integer PRIMARY KEY NOT NULL,
	"paid_count" integer NOT NULL
);
--> statement-breakpoint
-- Endpoints registered before the default became the payment events took every kind (a null filter):
-- they keep every kind, written as `["*"]`.
UPDATE "gateway"."webhook_endpoints" SET "events" = '["*"]'::jsonb WHERE "events" IS NULL OR "events" = 'null'::jsonb;
