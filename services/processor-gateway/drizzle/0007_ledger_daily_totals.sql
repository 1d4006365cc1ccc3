CREATE TABLE "processor_gateway"."ledger_daily_totals" (
	"merchant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"timezone" text NOT NULL,
	"currency" text NOT NULL,
	"collected" numeric(20, 2) NOT NULL,
	"refunded" numeric(20, 2) NOT NULL,
	"declined_attempts" integer NOT NULL,
	"recovered_installments" integer NOT NULL,
	CONSTRAINT "ledger_daily_totals_merchant_id_day_timezone_currency_pk" PRIMARY KEY("merchant_id","day","timezone","currency")
);
--> statement-breakpoint
CREATE TABLE "processor_gateway"."ledger_totalled_days" (
	"merchant_id" uuid NOT NULL,
	"day" date NOT NULL,
	"timezone" text NOT NULL,
	"totalled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_totalled_days_merchant_id_day_timezone_pk" PRIMARY KEY("merchant_id","day","timezone")
);
--> statement-breakpoint
ALTER TABLE "processor_gateway"."ledger_daily_totals" ADD CONSTRAINT "ledger_daily_totals_day_fk" FOREIGN KEY ("merchant_id","day","timezone") REFERENCES "processor_gateway"."ledger_totalled_days"("merchant_id","day","timezone") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_merchant_decided_idx" ON "processor_gateway"."ledger" USING btree ("merchant_id",coalesce("settled_at", "created_at"));--> statement-breakpoint
-- Written by hand (drizzle-kit does not know triggers): what keeps the daily totals exact. Any write to the
-- ledger forgets, in its own transaction, the totals of every local day (in each zone a day was totalled
-- in) whose sums it may change: the day its movement was decided (settled, else created) before and after
-- the write, and, for a declined attempt of an installment, the days of that installment's charges that
-- succeeded (a decline arriving late makes those after it recoveries). First it takes the merchant's advisory
-- lock shared (writers do not wait for each other), which the totalling takes exclusively: a day is never
-- totalled from a snapshot that misses a write still in flight. A day not totalled costs an index probe
-- that finds nothing: no row is locked, so writers never queue on one row per merchant and day.
CREATE FUNCTION "processor_gateway"."ledger_totals_forget"(
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
  -- Under the lock (a fresh snapshot): nothing to forget when none of these merchants has a day totalled.
  IF NOT EXISTS (
    SELECT 1 FROM "processor_gateway"."ledger_totalled_days" t WHERE t.merchant_id = ANY(merchants)
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
  )
  DELETE FROM "processor_gateway"."ledger_totalled_days" t
  USING touched
  WHERE t.merchant_id = touched.merchant_id
    -- A local day is within a day of the UTC one: the primary key's range, then the exact day in t's zone.
    AND t.day BETWEEN (touched.decided AT TIME ZONE 'UTC')::date - 1 AND (touched.decided AT TIME ZONE 'UTC')::date + 1
    AND t.day = (touched.decided AT TIME ZONE t.timezone)::date;
END $$;
--> statement-breakpoint
CREATE FUNCTION "processor_gateway"."ledger_totals_on_write"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  merchants uuid[];
  decided timestamptz[];
  statuses text[];
  installments bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.merchant_id), array_agg(coalesce(n.settled_at, n.created_at)), array_agg(n.status),
      array_agg(n.installment_id)
    INTO merchants, decided, statuses, installments
    FROM new_rows n;
  ELSIF TG_OP = 'UPDATE' THEN
    -- The rows as they were and as they are, of the rows whose summed columns changed (a link's label
    -- given to its rows changes no total).
    SELECT array_agg(x.merchant_id), array_agg(coalesce(x.settled_at, x.created_at)), array_agg(x.status),
      array_agg(x.installment_id)
    INTO merchants, decided, statuses, installments
    FROM old_rows o JOIN new_rows n ON n.id = o.id,
      LATERAL (VALUES
        (o.merchant_id, o.settled_at, o.created_at, o.status, o.installment_id),
        (n.merchant_id, n.settled_at, n.created_at, n.status, n.installment_id)
      ) AS x(merchant_id, settled_at, created_at, status, installment_id)
    WHERE (o.merchant_id, o.kind, o.status, o.amount, o.currency, o.refunded_amount, o.installment_id,
           o.created_at, o.settled_at)
      IS DISTINCT FROM (n.merchant_id, n.kind, n.status, n.amount, n.currency, n.refunded_amount,
           n.installment_id, n.created_at, n.settled_at);
  ELSE
    SELECT array_agg(o.merchant_id), array_agg(coalesce(o.settled_at, o.created_at)), array_agg(o.status),
      array_agg(o.installment_id)
    INTO merchants, decided, statuses, installments
    FROM old_rows o;
  END IF;
  PERFORM "processor_gateway"."ledger_totals_forget"(merchants, decided, statuses, installments);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "ledger_totals_on_insert" AFTER INSERT ON "processor_gateway"."ledger"
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "processor_gateway"."ledger_totals_on_write"();
--> statement-breakpoint
CREATE TRIGGER "ledger_totals_on_update" AFTER UPDATE ON "processor_gateway"."ledger"
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "processor_gateway"."ledger_totals_on_write"();
--> statement-breakpoint
CREATE TRIGGER "ledger_totals_on_delete" AFTER DELETE ON "processor_gateway"."ledger"
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "processor_gateway"."ledger_totals_on_write"();
--> statement-breakpoint
CREATE FUNCTION "processor_gateway"."ledger_totals_on_truncate"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "processor_gateway"."ledger_totalled_days";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "ledger_totals_on_truncate" AFTER TRUNCATE ON "processor_gateway"."ledger"
FOR EACH STATEMENT EXECUTE FUNCTION "processor_gateway"."ledger_totals_on_truncate"();
