CREATE TABLE "links"."customers" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "links"."customers_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"merchant_id" uuid NOT NULL,
	"email" text NOT NULL,
	"email_key" text NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"activated_at" timestamp with time zone,
	CONSTRAINT "customers_merchant_email_key" UNIQUE("merchant_id","email_key")
);
--> statement-breakpoint
CREATE TABLE "links"."login_codes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "links"."login_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"code_hash" text NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"link_id" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "login_codes_code_hash_unique" UNIQUE("code_hash")
);
--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD COLUMN "customer_id" bigint;--> statement-breakpoint
ALTER TABLE "links"."login_codes" ADD CONSTRAINT "login_codes_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "links"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links"."login_codes" ADD CONSTRAINT "login_codes_link_id_payment_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "links"."payment_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "login_codes_link_idx" ON "links"."login_codes" USING btree ("link_id");--> statement-breakpoint
ALTER TABLE "links"."payment_links" ADD CONSTRAINT "payment_links_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "links"."customers"("id") ON DELETE no action ON UPDATE no action;