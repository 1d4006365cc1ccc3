CREATE TABLE "processor_gateway"."ledger_bucket_totals" (
	"merchant_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"currency" text NOT NULL,
	"collected" numeric(20, 2) NOT NULL,
	"refunded" numeric(20, 2) NOT NULL,
	"declined_attempts" integer NOT NULL,
	"recovered_installments" integer NOT NULL,
	CONSTRAINT "ledger_bucket_totals_merchant_id_bucket_currency_pk" PRIMARY KEY("merchant_id","bucket","currency")
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."ledger_totalled_buckets" (
	"merchant_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"totalled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_totalled_buckets_merchant_id_bucket_pk" PRIMARY KEY("merchant_id","bucket")
);
--> statement-breakpoint
ALTER TABLE "processor_gateway"."ledger_bucket_totals" ADD CONSTRAINT "ledger_bucket_totals_bucket_fk" FOREIGN KEY ("merchant_id","bucket") REFERENCES "processor_gateway"."ledger_totalled_buckets"("merchant_id","bucket") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Written by hand: the trigger of 0007 now forgets the 15-minute UTC buckets a write changes too (the
-- bucket of the movement's decided instant before and after the write, and those of an installment's
-- succeeded charges when a declined attempt of it is written), in the same statement's transaction and
-- under the same shared lock. Origin 2000-01-01 UTC: the buckets' starts are multiples of 15 minutes since
-- the epoch, as the store computes them.
CREATE OR REPLACE FUNCTION "processor_gateway"."ledger_totals_forget"(
  merchants uuid[], decided timestamptz[], statuses text[], installments bigint[]
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  declined_installments bigint[];
BEGIN
  IF merchants IS NULL OR cardinality(merchants) = 0 THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('processor_gateway.ledger_totals:' || m.merchant_id::text, 0))
  FROM (SELECT DISTINCT merchant_id FROM unnest(merchants) AS merchant_id ORDER BY 1) m;
  -- Under the lock (a fresh snapshot): nothing to forget when none of these merchants has a day or a
  -- bucket totalled.
  IF NOT EXISTS (
    SELECT 1 FROM "processor_gateway"."ledger_totalled_days" t WHERE t.merchant_id = ANY(merchants)
  ) AND NOT EXISTS (
    SELECT 1 FROM "processor_gateway"."ledger_totalled_buckets" b WHERE b.merchant_id = ANY(merchants)
  ) THEN
    RETURN;
  END IF;
  SELECT array_agg(DISTINCT d.installment_id) INTO declined_installments
  FROM unnest(statuses, installments) AS d(status, installment_id)
  WHERE d.status = 'declined' AND d.installment_id IS NOT NULL;
  WITH touched AS (
    SELECT x.merchant_id, x.decided FROM unnest(merchants, decided) AS x(merchant_id, decided)
    UNION
    -- The charges of an installment with a declined attempt that succeeded: a recovery when after it.
    SELECT later.merchant_id, coalesce(later.settled_at, later.created_at)
    FROM "processor_gateway"."ledger" later
    WHERE declined_installments IS NOT NULL AND later.installment_id = ANY(declined_installments)
      AND later.kind = 'INSTALLMENT_CHARGE' AND later.status = 'succeeded'
  ), forgotten_days AS (
    DELETE FROM "processor_gateway"."ledger_totalled_days" t
    USING touched
    WHERE t.merchant_id = touched.merchant_id
      -- A local day is within a day of the UTC one: the primary key's range, then the exact day in t's zone.
      AND t.day BETWEEN (touched.decided AT TIME ZONE 'UTC')::date - 1 AND (touched.decided AT TIME ZONE 'UTC')::date + 1
      AND t.day = (touched.decided AT TIME ZONE t.timezone)::date
    RETURNING 1
  )
  DELETE FROM "processor_gateway"."ledger_totalled_buckets" b
  USING touched
  WHERE b.merchant_id = touched.merchant_id
    AND b.bucket = date_bin('15 minutes', touched.decided, timestamptz '2000-01-01 00:00:00+00');
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "processor_gateway"."ledger_totals_on_truncate"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "processor_gateway"."ledger_totalled_days";
  DELETE FROM "processor_gateway"."ledger_totalled_buckets";
  RETURN NULL;
END $$;
