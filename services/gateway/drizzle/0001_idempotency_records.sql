CREATE TABLE "gateway"."idempotency_records" (
	"merchant_id" uuid NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_content_type" text,
	"response_body" text,
	"locked_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_records_merchant_id_key_pk" PRIMARY KEY("merchant_id","key")
);
--> statement-breakpoint
CREATE INDEX "idempotency_records_expires_idx" ON "gateway"."idempotency_records" USING btree ("expires_at");