CREATE TABLE "links"."bank_transfer_settlements" (
	"merchant_id" uuid NOT NULL,
	"reference" varchar(100) NOT NULL,
	"link_id" bigint NOT NULL,
	"amount" numeric(18, 2) NOT NULL,
	"settled_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_transfer_settlements_merchant_id_reference_pk" PRIMARY KEY("merchant_id","reference"),
	CONSTRAINT "bank_transfer_settlements_link_id_unique" UNIQUE("link_id")
);
--> statement-breakpoint
ALTER TABLE "links"."bank_transfer_settlements" ADD CONSTRAINT "bank_transfer_settlements_link_id_payment_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "links"."payment_links"("id") ON DELETE no action ON UPDATE no action;