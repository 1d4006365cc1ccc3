ALTER TABLE "billing_scheduler"."installments" ADD COLUMN "claimed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "installments_claimed_at_idx" ON "billing_scheduler"."installments" USING btree ("claimed_at") WHERE state = 'claimed';--> statement-breakpoint
-- Claims made before this column existed: their last change is the best guess of when they were made.
UPDATE "billing_scheduler"."installments" SET "claimed_at" = "updated_at" WHERE "state" = 'claimed';
