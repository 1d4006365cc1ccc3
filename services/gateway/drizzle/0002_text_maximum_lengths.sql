ALTER TABLE "gateway"."merchants" ALTER COLUMN "name" SET DATA TYPE varchar(200);--> statement-breakpoint
ALTER TABLE "gateway"."merchants" ALTER COLUMN "callback_url" SET DATA TYPE varchar(2048);