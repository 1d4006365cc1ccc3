CREATE TABLE "processor_gateway"."bank_transfers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "processor_gateway"."bank_transfers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"merchant_id" uuid NOT NULL,
	"reference" varchar(100) NOT NULL,
	"fingerprint" text NOT NULL,
	"status" text NOT NULL,
	"target_type" text NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"currency" text,
	"bank_name" varchar(100) NOT NULL,
	"transfer_date" date NOT NULL,
	"note" varchar(500),
	"request" jsonb NOT NULL,
	"response" json,
	"merchant" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "bank_transfers_merchant_reference_unique" UNIQUE("merchant_id","reference"),
	CONSTRAINT "bank_transfers_status_check" CHECK ("processor_gateway"."bank_transfers"."status" in ('pending', 'settled'))
);
--> statement-breakpoint
CREATE INDEX "bank_transfers_pending_idx" ON "processor_gateway"."bank_transfers" USING btree ("created_at") WHERE status = 'pending';