import { type Executor, rowsOf, textArrayLiteral } from '@payrail/db';
import { addDays, startOfLocalDay } from '@payrail/time';
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

/**
 * The figures summed from the rows: movements decided (settled, else created) in the range, per currency
 * and local day or month. Settled is never before created: a row created at or after `before` was decided
 * after it, so the (merchant, created) index bounds the read.
 */
export async function sumRows(
  on: Executor,
  merchantId: string,
  { from, before, timezone, groupBy }: SummaryRange,
): Promise<SummaryRow[]> {
  const format = groupBy === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM';
  // Grouped by the local date (or its month's first day), written as text once per group.
  const local = sql`coalesce(m.settled_at, m.created_at) at time zone ${timezone}::text`;
  const bucket = groupBy === 'day' ? sql`(${local})::date` : sql`date_trunc('month', ${local})::date`;
  const result = await on.execute(sql`
    with decided as (
      select m.currency, m.kind, m.status, m.amount, m.installment_id, m.created_at, ${bucket} as bucket
      from processor_gateway.ledger m
      where m.merchant_id = ${merchantId}::uuid
        and m.created_at < ${before.toISOString()}::timestamptz
        and coalesce(m.settled_at, m.created_at) >= ${from.toISOString()}::timestamptz
        and coalesce(m.settled_at, m.created_at) < ${before.toISOString()}::timestamptz
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
    await tx.execute(sql.raw(`set local lock_timeout = '${TOTALS_LOCK_TIMEOUT}'`));
    await tx.execute(sql`select pg_advisory_xact_lock(${totalsLock(merchantId)})`);
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
 * totals, the days without them totalled and kept now. Should the merchant's writers hold its lock longer
 * than `TOTALS_LOCK_TIMEOUT`, those days are summed from the rows and kept another time.
 */
export async function dailyTotals(db: Executor, merchantId: string, range: Days): Promise<SummaryRow[]> {
  const kept = await keptTotals(db, merchantId, range);
  const missing = daysBetween(range.firstDay, range.lastDay).filter((day) => !kept.days.has(day));
  if (missing.length === 0) return sortRows(kept.rows);
  try {
    return sortRows([...kept.rows, ...(await totalDays(db, merchantId, missing, range.timezone))]);
  } catch (error) {
    if (!isLockTimeout(error)) throw error;
    const sums = await Promise.all(
      runsOf(missing).map((run) => sumRows(db, merchantId, runRange(run, range.timezone))),
    );
    return sortRows([...kept.rows, ...sums.flat()]);
  }
}
