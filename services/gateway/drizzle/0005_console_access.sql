CREATE TABLE "gateway"."audit_log" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"merchant_id" uuid,
	"at" timestamp with time zone NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_label" text,
	"operation_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"target" text,
	"status" integer NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"client_address" text,
	CONSTRAINT "audit_log_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "gateway"."console_recovery_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "gateway"."console_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"stage" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"client_address" text
);
--> statement-breakpoint
CREATE TABLE "gateway"."console_user_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gateway"."console_users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"merchant_id" uuid,
	"email" varchar(254) NOT NULL,
	"name" varchar(100),
	"role" text,
	"language" text DEFAULT 'es' NOT NULL,
	"password_hash" text,
	"password_changed_at" timestamp with time zone,
	"totp_secret_sealed" text,
	"totp_enabled_at" timestamp with time zone,
	"totp_last_step" bigint,
	"failed_logins" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "console_users_kind_check" CHECK ((kind = 'merchant' and merchant_id is not null and role is not null) or (kind = 'operator' and merchant_id is null and role is null))
);
--> statement-breakpoint
ALTER TABLE "gateway"."api_tokens" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "gateway"."api_tokens" ADD COLUMN "scope" text DEFAULT 'full' NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway"."api_tokens" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gateway"."console_recovery_codes" ADD CONSTRAINT "console_recovery_codes_user_id_console_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "gateway"."console_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."console_sessions" ADD CONSTRAINT "console_sessions_user_id_console_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "gateway"."console_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."console_user_tokens" ADD CONSTRAINT "console_user_tokens_user_id_console_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "gateway"."console_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."console_users" ADD CONSTRAINT "console_users_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "gateway"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_merchant_seq_idx" ON "gateway"."audit_log" USING btree ("merchant_id","seq");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "gateway"."audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "console_recovery_codes_user_idx" ON "gateway"."console_recovery_codes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "console_sessions_user_idx" ON "gateway"."console_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "console_sessions_seen_idx" ON "gateway"."console_sessions" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "console_user_tokens_user_idx" ON "gateway"."console_user_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "console_users_email_idx" ON "gateway"."console_users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "console_users_merchant_idx" ON "gateway"."console_users" USING btree ("merchant_id");