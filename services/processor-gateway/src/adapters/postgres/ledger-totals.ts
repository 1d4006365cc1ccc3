import { type Executor, rowsOf, textArrayLiteral } from '@payrail/db';
import { formatAmount, parseAmount } from '@payrail/money';
import { addDays, localDate, startOfLocalDay } from '@payrail/time';
import { sql } from 'drizzle-orm';
import type { LedgerStore, SummaryRow } from '../../ports/ledger-store';

/**
 * The report's figures (`GET /api/reports/summary`): summed from the ledger's rows, or read from the daily
 * totals kept for the local days that are over (migration 0007). What keeps the totals exact is in the
 * migration: a trigger on the ledger forgets, in the writing transaction and under the merchant's advisory
 * lock taken shared, the totals of every day a write changes; totalling takes that lock exclusively.
 */

export type SummaryRange = Parameters<LedgerStore['summary']>[1];

interface RawSummaryRow {
  currency: string;
  period: string;
  collected: string;
  refunded: string;
  declined_attempts: number;
  recovered_installments: number;
}

const summaryRowOf = (row: RawSummaryRow): SummaryRow => ({
  currency: row.currency,
  period: row.period,
  collected: row.collected,
  refunded: row.refunded,
  declinedAttempts: Number(row.declined_attempts),
  recoveredInstallments: Number(row.recovered_installments),
});

/** By currency, then period. */
export const sortRows = (rows: SummaryRow[]): SummaryRow[] =>
  rows.sort((a, b) =>
    a.currency === b.currency ? a.period.localeCompare(b.period) : a.currency.localeCompare(b.currency),
  );

/** How rows are grouped: the local day or month of the range's zone, or the 15-minute UTC bucket. */
type Grouping = SummaryRange['groupBy'] | 'bucket';

/** A bucket's length: every zone's offset is a multiple of it, so a local day is whole buckets. */
export const BUCKET_MS = 15 * 60 * 1000;

/** The start of the 15-minute UTC bucket of an instant (the migration's `date_bin` of the same). */
export const bucketOf = (instant: Date) => new Date(Math.floor(instant.getTime() / BUCKET_MS) * BUCKET_MS);

/**
 * The figures summed from the rows: movements decided (settled, else created) in the range, per currency
 * and local day or month, or per 15-minute UTC bucket (its period the bucket's start, ISO 8601 in UTC).
 * Settled is never before created: a row created at or after `before` was decided after it, so the
 * (merchant, created) index bounds the read.
 */
export async function sumRows(
  on: Executor,
  merchantId: string,
  { from, before, timezone, groupBy }: Omit<SummaryRange, 'groupBy'> & { groupBy: Grouping },
): Promise<SummaryRow[]> {
  const decided = sql`coalesce(m.settled_at, m.created_at)`;
  // Grouped by the local date (or its month's first day), written as text once per group; or by bucket.
  const local = sql`${decided} at time zone ${timezone}::text`;
  const bucket =
    groupBy === 'day'
      ? sql`(${local})::date`
      : groupBy === 'month'
        ? sql`date_trunc('month', ${local})::date`
        : sql`date_bin('15 minutes', ${decided}, timestamptz '2000-01-01 00:00:00+00') at time zone 'UTC'`;
  const format =
    groupBy === 'day' ? 'YYYY-MM-DD' : groupBy === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD"T"HH24:MI:SS"Z"';
  const result = await on.execute(sql`
    with decided as (
      select m.currency, m.kind, m.status, m.amount, m.installment_id, m.created_at, ${bucket} as bucket
      from processor_gateway.ledger m
      where m.merchant_id = ${merchantId}::uuid
        and m.created_at < ${before.toISOString()}::timestamptz
        and ${decided} >= ${from.toISOString()}::timestamptz
        and ${decided} < ${before.toISOString()}::timestamptz
    )
    select d.currency, to_char(d.bucket, ${format}::text) as period,
      coalesce(sum(d.amount) filter (
        where d.status = 'succeeded' and d.kind in ('LINK_PAYMENT', 'INSTALLMENT_CHARGE', 'BANK_TRANSFER')
      ), 0)::numeric(20, 2)::text as collected,
      coalesce(sum(d.amount) filter (where d.status = 'succeeded' and d.kind = 'REFUND'), 0)::numeric(20, 2)::text
        as refunded,
      count(*) filter (where d.status = 'declined')::int as declined_attempts,
      count(*) filter (
        where d.status = 'succeeded' and d.kind = 'INSTALLMENT_CHARGE' and d.installment_id is not null
          and exists (
            select 1 from processor_gateway.ledger earlier
            where earlier.merchant_id = ${merchantId}::uuid and earlier.installment_id = d.installment_id
              and earlier.status = 'declined' and earlier.created_at < d.created_at)
      )::int as recovered_installments
    from decided d
    group by d.currency, d.bucket
    order by d.currency, d.bucket`);
  return rowsOf<RawSummaryRow>(result).map(summaryRowOf);
}

/**
 * `sumRows` of a few days (today's rows, a day's thousands) without PostgreSQL's JIT compilation and
 * parallel workers, which cost more than such a sum (100 ms of JIT for 30,000 rows, measured): in a
 * transaction of its own, settings local to it.
 */
export async function sumRowsQuickly(db: Executor, merchantId: string, range: SummaryRange) {
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw('set local jit = off'));
    await tx.execute(sql.raw('set local max_parallel_workers_per_gather = 0'));
    return sumRows(tx, merchantId, range);
  });
}

/** Every day from `first` to `last`, both included. */
function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day);
  return days;
}

/** Ascending days cut into runs of consecutive days (each summed with one range). */
function runsOf(days: string[]): Array<{ first: string; last: string }> {
  const runs: Array<{ first: string; last: string }> = [];
  for (const day of days) {
    const run = runs.at(-1);
    if (run && addDays(run.last, 1) === day) run.last = day;
    else runs.push({ first: day, last: day });
  }
  return runs;
}

const runRange = (run: { first: string; last: string }, timezone: string): SummaryRange => ({
  from: startOfLocalDay(run.first, timezone),
  before: startOfLocalDay(addDays(run.last, 1), timezone),
  timezone,
  groupBy: 'day',
});

/** The merchant's advisory lock of the daily totals (the migration's trigger computes the same key). */
const totalsLock = (merchantId: string) =>
  sql`hashtextextended('processor_gateway.ledger_totals:' || ${merchantId}::uuid::text, 0)`;

/** How long totalling waits for the merchant's writes in flight before it sums without keeping. */
const TOTALS_LOCK_TIMEOUT = '2s';

/**
 * In a totalling transaction: the merchant's lock taken exclusively (waiting at most
 * `TOTALS_LOCK_TIMEOUT`), and no JIT compilation or parallel workers for its sums of a day or a few
 * hours, which cost more than such a sum.
 */
async function lockExclusively(tx: Executor, merchantId: string): Promise<void> {
  await tx.execute(sql.raw(`set local lock_timeout = '${TOTALS_LOCK_TIMEOUT}'`));
  await tx.execute(sql.raw('set local jit = off'));
  await tx.execute(sql.raw('set local max_parallel_workers_per_gather = 0'));
  await tx.execute(sql`select pg_advisory_xact_lock(${totalsLock(merchantId)})`);
}

function isLockTimeout(error: unknown): boolean {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { code?: string }).code === '55P03') return true;
  }
  return false;
}

type Days = { firstDay: string; lastDay: string; timezone: string };

/** The totalled days of the range and their totals, read in one statement (one snapshot). */
async function keptTotals(
  on: Executor,
  merchantId: string,
  { firstDay, lastDay, timezone }: Days,
): Promise<{ days: Set<string>; rows: SummaryRow[] }> {
  const found = rowsOf<{ day: string } & Partial<RawSummaryRow>>(
    await on.execute(sql`
      select d.day::text as day, t.currency, t.collected::text as collected, t.refunded::text as refunded,
        t.declined_attempts, t.recovered_installments
      from processor_gateway.ledger_totalled_days d
      left join processor_gateway.ledger_daily_totals t
        on t.merchant_id = d.merchant_id and t.day = d.day and t.timezone = d.timezone
      where d.merchant_id = ${merchantId}::uuid and d.timezone = ${timezone}
        and d.day between ${firstDay}::date and ${lastDay}::date`),
  );
  return {
    days: new Set(found.map((row) => row.day)),
    rows: found
      .filter((row) => row.currency)
      .map((row) => summaryRowOf({ ...(row as RawSummaryRow), period: row.day })),
  };
}

/**
 * Totals `days` (over in `timezone`) from the rows and keeps them, holding the merchant's lock
 * exclusively: every writer that took it before has committed (its rows are in the sums), and every writer
 * after waits, then forgets the days it changes. Days another summary totalled meanwhile are read.
 */
async function totalDays(
  db: Executor,
  merchantId: string,
  days: string[],
  timezone: string,
): Promise<SummaryRow[]> {
  return db.transaction(async (tx) => {
    await lockExclusively(tx, merchantId);
    // From here each statement's snapshot holds every write whose transaction took the lock before.
    const kept = await keptTotals(tx, merchantId, {
      firstDay: days[0] as string,
      lastDay: days.at(-1) as string,
      timezone,
    });
    const wanted = new Set(days);
    const missing = days.filter((day) => !kept.days.has(day));
    const summed: SummaryRow[] = [];
    for (const run of runsOf(missing))
      summed.push(...(await sumRows(tx, merchantId, runRange(run, timezone))));
    if (missing.length > 0) {
      await tx.execute(sql`
        insert into processor_gateway.ledger_totalled_days (merchant_id, day, timezone)
        select ${merchantId}::uuid, day::date, ${timezone}::text
        from unnest(${textArrayLiteral(missing)}::text[]) as day
        on conflict do nothing`);
    }
    if (summed.length > 0) {
      const column = (pick: (row: SummaryRow) => string | number) =>
        textArrayLiteral(summed.map((row) => String(pick(row))));
      await tx.execute(sql`
        insert into processor_gateway.ledger_daily_totals
          (merchant_id, day, timezone, currency, collected, refunded, declined_attempts, recovered_installments)
        select ${merchantId}::uuid, t.day::date, ${timezone}::text, t.currency, t.collected::numeric,
          t.refunded::numeric, t.declined::int, t.recovered::int
        from unnest(${column((row) => row.period)}::text[], ${column((row) => row.currency)}::text[],
          ${column((row) => row.collected)}::text[], ${column((row) => row.refunded)}::text[],
          ${column((row) => row.declinedAttempts)}::text[], ${column((row) => row.recoveredInstallments)}::text[])
          as t(day, currency, collected, refunded, declined, recovered)
        on conflict do nothing`);
    }
    return [...kept.rows.filter((row) => wanted.has(row.period)), ...summed];
  });
}

/**
 * The figures per currency and day of the days `firstDay` to `lastDay` (over in `timezone`): the kept
 * totals, the days without them totalled and kept now, one day per transaction (writers wait for the
 * merchant's lock at most one day's sum: 29 days at once held it 2.6 s at a million rows). Should the
 * merchant's writers hold its lock longer than `TOTALS_LOCK_TIMEOUT`, the days left are summed from the
 * rows and kept another time.
 */
export async function dailyTotals(db: Executor, merchantId: string, range: Days): Promise<SummaryRow[]> {
  const kept = await keptTotals(db, merchantId, range);
  const missing = daysBetween(range.firstDay, range.lastDay).filter((day) => !kept.days.has(day));
  const rows = [...kept.rows];
  for (const [index, day] of missing.entries()) {
    try {
      rows.push(...(await totalDays(db, merchantId, [day], range.timezone)));
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      const sums = await Promise.all(
        runsOf(missing.slice(index)).map((run) => sumRows(db, merchantId, runRange(run, range.timezone))),
      );
      rows.push(...sums.flat());
      break;
    }
  }
  return sortRows(rows);
}

/** Figures of the same currency and period added together (money in minor units, never a float). */
function mergeRows(rows: SummaryRow[]): SummaryRow[] {
  const merged = new Map<string, SummaryRow>();
  for (const row of rows) {
    const key = `${row.currency} ${row.period}`;
    const found = merged.get(key);
    merged.set(
      key,
      found
        ? {
            currency: row.currency,
            period: row.period,
            collected: formatAmount(parseAmount(found.collected) + parseAmount(row.collected)),
            refunded: formatAmount(parseAmount(found.refunded) + parseAmount(row.refunded)),
            declinedAttempts: found.declinedAttempts + row.declinedAttempts,
            recoveredInstallments: found.recoveredInstallments + row.recoveredInstallments,
          }
        : row,
    );
  }
  return sortRows([...merged.values()]);
}

/** At most this many buckets (four hours) totalled in one transaction, holding the merchant's lock. */
const BUCKETS_PER_TRANSACTION = 16;
/** Buckets kept this long after their start; older ones are deleted when new ones are kept. */
const BUCKETS_KEPT_MS = 2 * 86_400_000;

type BucketRow = SummaryRow & { bucket: number };

/**
 * The totalled buckets from `first` to before `end` and their totals (each row's period the bucket's
 * local day in `timezone`), read in one statement (one snapshot).
 */
async function keptBuckets(
  on: Executor,
  merchantId: string,
  { first, end, timezone }: { first: Date; end: Date; timezone: string },
): Promise<{ buckets: Set<number>; rows: BucketRow[] }> {
  const found = rowsOf<{ ms: string; day: string } & Partial<RawSummaryRow>>(
    await on.execute(sql`
      select (extract(epoch from b.bucket) * 1000)::bigint::text as ms,
        to_char((b.bucket at time zone ${timezone}::text)::date, 'YYYY-MM-DD') as day,
        t.currency, t.collected::text as collected, t.refunded::text as refunded,
        t.declined_attempts, t.recovered_installments
      from processor_gateway.ledger_totalled_buckets b
      left join processor_gateway.ledger_bucket_totals t
        on t.merchant_id = b.merchant_id and t.bucket = b.bucket
      where b.merchant_id = ${merchantId}::uuid
        and b.bucket >= ${first.toISOString()}::timestamptz and b.bucket < ${end.toISOString()}::timestamptz`),
  );
  return {
    buckets: new Set(found.map((row) => Number(row.ms))),
    rows: found
      .filter((row) => row.currency)
      .map((row) => ({
        ...summaryRowOf({ ...(row as RawSummaryRow), period: row.day }),
        bucket: Number(row.ms),
      })),
  };
}

/**
 * Totals `buckets` (ascending starts, each over) from the rows and keeps them, holding the merchant's lock
 * exclusively, as `totalDays` does; deletes the merchant's buckets older than `BUCKETS_KEPT_MS` before
 * `now`. Returns the figures of every bucket asked for (those another summary kept meanwhile read), each
 * row's period the bucket's local day in `timezone`.
 */
async function totalBuckets(
  db: Executor,
  merchantId: string,
  buckets: number[],
  timezone: string,
  now: Date,
): Promise<SummaryRow[]> {
  return db.transaction(async (tx) => {
    await lockExclusively(tx, merchantId);
    const first = buckets[0] as number;
    const last = buckets.at(-1) as number;
    const kept = await keptBuckets(tx, merchantId, {
      first: new Date(first),
      end: new Date(last + BUCKET_MS),
      timezone,
    });
    const wanted = new Set(buckets);
    const missing = buckets.filter((bucket) => !kept.buckets.has(bucket));
    const summed: SummaryRow[] = [];
    for (const run of runsOfBuckets(missing))
      summed.push(
        ...(await sumRows(tx, merchantId, {
          from: new Date(run.first),
          before: new Date(run.last + BUCKET_MS),
          timezone,
          groupBy: 'bucket',
        })),
      );
    if (missing.length > 0) {
      await tx.execute(sql`
        delete from processor_gateway.ledger_totalled_buckets
        where merchant_id = ${merchantId}::uuid
          and bucket < ${new Date(now.getTime() - BUCKETS_KEPT_MS).toISOString()}::timestamptz`);
      await tx.execute(sql`
        insert into processor_gateway.ledger_totalled_buckets (merchant_id, bucket)
        select ${merchantId}::uuid, bucket::timestamptz
        from unnest(${textArrayLiteral(missing.map((bucket) => new Date(bucket).toISOString()))}::text[]) as bucket
        on conflict do nothing`);
    }
    if (summed.length > 0) {
      const column = (pick: (row: SummaryRow) => string | number) =>
        textArrayLiteral(summed.map((row) => String(pick(row))));
      await tx.execute(sql`
        insert into processor_gateway.ledger_bucket_totals
          (merchant_id, bucket, currency, collected, refunded, declined_attempts, recovered_installments)
        select ${merchantId}::uuid, t.bucket::timestamptz, t.currency, t.collected::numeric,
          t.refunded::numeric, t.declined::int, t.recovered::int
        from unnest(${column((row) => row.period)}::text[], ${column((row) => row.currency)}::text[],
          ${column((row) => row.collected)}::text[], ${column((row) => row.refunded)}::text[],
          ${column((row) => row.declinedAttempts)}::text[], ${column((row) => row.recoveredInstallments)}::text[])
          as t(bucket, currency, collected, refunded, declined, recovered)
        on conflict do nothing`);
    }
    return [
      ...kept.rows.filter((row) => wanted.has(row.bucket)),
      ...summed.map((row) => ({ ...row, period: localDate(new Date(row.period), timezone) })),
    ];
  });
}

/** Ascending bucket starts cut into runs of consecutive buckets (each summed with one range). */
function runsOfBuckets(buckets: number[]): Array<{ first: number; last: number }> {
  const runs: Array<{ first: number; last: number }> = [];
  for (const bucket of buckets) {
    const run = runs.at(-1);
    if (run && run.last + BUCKET_MS === bucket) run.last = bucket;
    else runs.push({ first: bucket, last: bucket });
  }
  return runs;
}

/**
 * The figures per currency and local day of `from` to before `before` in `timezone`, a range of days not
 * over there (today, and days after it): the 15-minute UTC buckets of it that are over by `now` from their
 * kept totals (the missing ones totalled and kept now, `BUCKETS_PER_TRANSACTION` at a time), the rest (the
 * bucket still open, and any part of the range not on a bucket's edge) summed from the rows. A request of
 * today thus sums at most a quarter hour's rows. Exact as the daily totals are (the migrations' trigger
 * forgets a bucket any write changes); should the lock not come in `TOTALS_LOCK_TIMEOUT`, the buckets left
 * are summed from the rows.
 */
export async function recentTotals(
  db: Executor,
  merchantId: string,
  { from, before, timezone, now }: { from: Date; before: Date; timezone: string; now: Date },
): Promise<SummaryRow[]> {
  const start = Math.ceil(from.getTime() / BUCKET_MS) * BUCKET_MS;
  const end = Math.min(before.getTime(), bucketOf(now).getTime());
  const range = (a: number, b: number): SummaryRange => ({
    from: new Date(a),
    before: new Date(b),
    timezone,
    groupBy: 'day',
  });
  // Many rows (no bucket over yet, or the lock not had): without JIT or parallel workers.
  const quickly = (a: number, b: number) => sumRowsQuickly(db, merchantId, range(a, b));
  if (end - start < BUCKET_MS) return quickly(from.getTime(), before.getTime());
  // Less than a bucket's rows each (a quarter hour): one statement, no transaction of its own.
  const few = (a: number, b: number) => sumRows(db, merchantId, range(a, b));
  const [head, tail, kept] = await Promise.all([
    from.getTime() < start ? few(from.getTime(), start) : [],
    end < before.getTime() ? few(end, before.getTime()) : [],
    keptBuckets(db, merchantId, { first: new Date(start), end: new Date(end), timezone }),
  ]);
  const rows: SummaryRow[] = [...head, ...tail, ...kept.rows];
  const missing: number[] = [];
  for (let bucket = start; bucket < end; bucket += BUCKET_MS)
    if (!kept.buckets.has(bucket)) missing.push(bucket);
  for (let index = 0; index < missing.length; index += BUCKETS_PER_TRANSACTION) {
    const chunk = missing.slice(index, index + BUCKETS_PER_TRANSACTION);
    try {
      rows.push(...(await totalBuckets(db, merchantId, chunk, timezone, now)));
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      for (const run of runsOfBuckets(missing.slice(index)))
        rows.push(...(await quickly(run.first, run.last + BUCKET_MS)));
      break;
    }
  }
  return mergeRows(rows);
}
