CREATE TABLE "subscriptions"."bank_transfer_settlements" (
	"merchant_id" uuid NOT NULL,
	"reference" varchar(100) NOT NULL,
	"installment_id" integer NOT NULL,
	"subscription_id" bigint NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"settled_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_transfer_settlements_merchant_id_reference_pk" PRIMARY KEY("merchant_id","reference"),
	CONSTRAINT "bank_transfer_settlements_installment_id_unique" UNIQUE("installment_id")
);
--> statement-breakpoint
ALTER TABLE "subscriptions"."early_link_payments" ADD COLUMN "method" text DEFAULT 'CARD' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions"."early_link_payments" ADD COLUMN "tx_id" text;--> statement-breakpoint
ALTER TABLE "subscriptions"."bank_transfer_settlements" ADD CONSTRAINT "bank_transfer_settlements_installment_id_installments_id_fk" FOREIGN KEY ("installment_id") REFERENCES "subscriptions"."installments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions"."bank_transfer_settlements" ADD CONSTRAINT "bank_transfer_settlements_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"."subscriptions"("id") ON DELETE no action ON UPDATE no action;