-- Each transfer is a money movement with an id of the same shape as a charge's: transfers registered
-- before it get a random one (new ones a time-ordered one, chosen by the service when it claims them).
ALTER TABLE "processor_gateway"."bank_transfers" ADD COLUMN "tx_id" uuid;--> statement-breakpoint
UPDATE "processor_gateway"."bank_transfers" SET "tx_id" = gen_random_uuid() WHERE "tx_id" IS NULL;--> statement-breakpoint
ALTER TABLE "processor_gateway"."bank_transfers" ALTER COLUMN "tx_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "processor_gateway"."bank_transfers" ADD CONSTRAINT "bank_transfers_tx_id_unique" UNIQUE("tx_id");
