import { type Executor, rowsOf } from '@payrail/db';
import { sql } from 'drizzle-orm';
import { installments, subscriptions } from '../src/adapters/postgres/schema';

export interface SeedOptions {
  merchantId: string;
  /** Subscriptions to create: `<prefix>1`, `<prefix>2`, ... as their customIdentifier. */
  count: number;
  /** Pending installments per subscription after the paid installment 1. */
  pendingEach: number;
  identifierPrefix?: string;
  /** First link id; link ids are unique in the table. */
  linkIdBase: number;
}

/**
 * Active STATIC subscriptions created 2026-01-15 (Asunción), installment 1 paid and `pendingEach`
 * pending installments on the 10th of each month from February 2026, 150000.00 each. Set-based, for
 * volume: the bulk test and the benchmark.
 */
export async function seedActiveSubscriptions(db: Executor, options: SeedOptions): Promise<number[]> {
  const prefix = options.identifierPrefix ?? 'BULK-';
  const created = rowsOf<{ id: string }>(
    await db.execute(sql`
      insert into ${subscriptions}
        (merchant_id, link_id, type, status, custom_identifier, custom_identifier2, currency, first_amount,
         installment_amount, total_periods, day_of_month, month_for_second_installment, timezone, created_on,
         created_at, activated_at)
      select ${options.merchantId}::uuid, ${options.linkIdBase}::bigint + g, 'STATIC', 'active', ${prefix} || g, null, 'PYG',
             200000.00, 150000.00, ${options.pendingEach + 1}::int, 10, 1, 'America/Asuncion', date '2026-01-15',
             now(), now()
      from generate_series(1, ${options.count}::int) as g
      returning id::text as id`),
  );
  const ids = created.map((row) => Number(row.id));
  await db.execute(sql`
    insert into ${installments} (subscription_id, number, payment_date, amount, status, paid_at, created_at, updated_at)
    select s.id, k,
           case when k = 1 then s.created_on
                else (date '2026-02-10' + make_interval(months => k - 2))::date end,
           case when k = 1 then s.first_amount else s.installment_amount end,
           case when k = 1 then 'paid' else 'pending' end,
           case when k = 1 then now() end,
           now(), now()
    from ${subscriptions} s cross join generate_series(1, ${options.pendingEach + 1}::int) as k
    where s.merchant_id = ${options.merchantId}::uuid`);
  return ids;
}

/** The payment date of installment `number` ≥ 2 of a seeded subscription. */
export function seededPaymentDate(number: number): string {
  const months = number - 2;
  const year = 2026 + Math.floor((1 + months) / 12);
  const month = ((1 + months) % 12) + 1;
  return `${year}-${String(month).padStart(2, '0')}-10`;
}
