CREATE TABLE "links"."customer_sessions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "links"."customer_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_hash" text NOT NULL,
	"merchant_id" uuid NOT NULL,
	"customer_id" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "customer_sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "links"."email_login_codes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "links"."email_login_codes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"merchant_id" uuid NOT NULL,
	"email_key" varchar(254) NOT NULL,
	"code_hash" text NOT NULL,
	"requester_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "links"."customers" ALTER COLUMN "email" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "links"."customers" ALTER COLUMN "email_key" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "links"."customers" ADD COLUMN "document_number" varchar(64);--> statement-breakpoint
ALTER TABLE "links"."customer_sessions" ADD CONSTRAINT "customer_sessions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "links"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_login_codes_email_idx" ON "links"."email_login_codes" USING btree ("merchant_id","email_key","created_at");--> statement-breakpoint
CREATE INDEX "email_login_codes_requester_idx" ON "links"."email_login_codes" USING btree ("requester_hash","created_at");--> statement-breakpoint
ALTER TABLE "links"."customers" ADD CONSTRAINT "customers_merchant_document_number" UNIQUE("merchant_id","document_number");--> statement-breakpoint
ALTER TABLE "links"."customers" ADD CONSTRAINT "customers_one_identity" CHECK (("links"."customers"."email_key" is null) <> ("links"."customers"."document_number" is null));