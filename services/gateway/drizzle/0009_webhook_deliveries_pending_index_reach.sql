DROP INDEX "gateway"."webhook_deliveries_endpoint_due_idx";--> statement-breakpoint
DROP INDEX "gateway"."webhook_deliveries_order_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "gateway"."webhook_deliveries" USING btree ("endpoint_id","next_attempt_at","position") WHERE status = 'pending' and next_attempt_at is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "gateway"."webhook_deliveries" USING btree ("endpoint_id","ordering_key","event_seq") WHERE status = 'pending' and ordering_key is not null;