import type { Database } from '@payrail/db';
import type { ChargeCount } from '@payrail/observability';
import { sql } from 'drizzle-orm';
import { charges } from './schema';

/** Charges by processor and status, for `payrail_charges` on `/metrics`. */
export async function countChargesByOutcome(db: Database): Promise<ChargeCount[]> {
  const rows = await db
    .select({ processor: charges.processor, status: charges.status, count: sql<number>`count(*)::int` })
    .from(charges)
    .groupBy(charges.processor, charges.status);
  return rows.map((row) => ({ processor: row.processor, status: row.status, count: Number(row.count) }));
}
