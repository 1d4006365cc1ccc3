CREATE TABLE "links"."document_check_failures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "links"."document_check_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"link_id" bigint NOT NULL,
	"requester_hash" text NOT NULL,
	"failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "links"."document_check_failures" ADD CONSTRAINT "document_check_failures_link_id_payment_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "links"."payment_links"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "document_check_failures_link_idx" ON "links"."document_check_failures" USING btree ("link_id","failed_at");