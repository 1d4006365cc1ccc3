ALTER TABLE "links"."payment_links" ADD COLUMN "paid_payment_id" uuid;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_method" text;--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_card_brand" varchar(40);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_card_last4" varchar(4);--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "paid_by" jsonb;--> statement-breakpoint
-- Links paid before: a card payment's id is its charge; a transfer's id was not kept (null), its method is known.
UPDATE "links"."payment_links" SET "paid_payment_id" = "paid_charge_id", "paid_method" = 'CARD' WHERE "status_id" = 200 AND "paid_charge_id" IS NOT NULL;--> statement-breakpoint
UPDATE "links"."payment_links" AS l SET "paid_method" = 'BANK_TRANSFER' FROM "links"."bank_transfer_settlements" AS t WHERE t."link_id" = l."id" AND l."paid_method" IS NULL;--> statement-breakpoint
UPDATE "links"."payment_links" AS l SET "paid_by" = jsonb_build_object('userId', c."id", 'email', c."email", 'documentNumber', c."document_number", 'firstName', c."first_name", 'lastName', c."last_name") FROM "links"."customers" AS c WHERE c."id" = l."paid_customer_id" AND l."paid_by" IS NULL;
