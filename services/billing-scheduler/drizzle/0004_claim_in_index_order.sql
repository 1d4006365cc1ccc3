-- The claim reads scheduled rows in (due day, id) order and stops at its batch's size (claimBatch).
DROP INDEX "billing_scheduler"."installments_scheduled_due_idx";--> statement-breakpoint
CREATE INDEX "installments_scheduled_due_idx" ON "billing_scheduler"."installments" USING btree ("due_on","installment_id") WHERE state = 'scheduled';
