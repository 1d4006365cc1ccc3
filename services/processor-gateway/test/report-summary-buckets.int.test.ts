import type { MerchantContext, ReportSummaryQuery } from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import { aMerchant, type ServiceUnderTest, startService } from '@payrail/testing';
import { addDays, startOfLocalDay } from '@payrail/time';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET_MS, bucketOf } from '../src/adapters/postgres/ledger-totals';
import { postgresLedgerStore } from '../src/adapters/postgres/ledger-store';
import { ledger } from '../src/adapters/postgres/schema';
import { reportSummary } from '../src/application/report-summary';
import type { Movement } from '../src/domain/ledger';
import type { LedgerStore } from '../src/ports/ledger-store';
import { FakeCardProcessor } from './fake-card-processor';
import { aMovement } from './ledger-movements';
import { serviceWithFakes, TEST_ENV } from './support';

/**
 * The report's totals of today's 15-minute UTC buckets (migration 0008) on the real PostgreSQL: a summary
 * whose last day is today (the clock in the middle of it) reads the buckets that are over from their kept
 * totals and sums only the open one's rows; it agrees with the same summary summed from the rows ("from
 * rows": the same function on a clock before the range, where nothing is over), across the edges of the
 * local day in zones whose midnight is not UTC's (Asunción, Kathmandu at +05:45, and New York on the day
 * of 25 hours), and after writes into buckets already totalled, which forget them.
 */
let svc: ServiceUnderTest;
let store: LedgerStore;
const LAST_SECOND = 24 * 3600 - 1;
/** Before every range: nothing is over, every figure is summed from rows. */
const BEFORE = { now: () => new Date('2026-01-01T12:00:00Z') };
const noStates = { at: async () => undefined };

/** Each zone's "today" for these tests and how far into it the clock is (seconds). */
const ZONES = [
  { zone: 'America/Asuncion', today: '2026-10-05', at: 20 * 3600 + 7 * 60 + 13 },
  { zone: 'Asia/Kathmandu', today: '2026-10-05', at: 15 * 3600 + 59 * 60 },
  // Summer time ends at 02:00: a day of 25 hours.
  { zone: 'America/New_York', today: '2026-11-01', at: 23 * 3600 + 50 * 60 },
] as const;
type Zone = (typeof ZONES)[number];

const local = (zone: string, day: string, seconds: number) =>
  new Date(startOfLocalDay(day, zone).getTime() + seconds * 1000);

const clockOf = (z: Zone) => ({ now: () => local(z.zone, z.today, z.at) });

/** The two days before today and today, by day. */
const queryOf = (z: Zone): ReportSummaryQuery => ({
  from: addDays(z.today, -2),
  to: z.today,
  groupBy: 'day',
});

async function summaries(merchant: MerchantContext, z: Zone) {
  const deps = { ledger: store, subscriptionStates: noStates };
  const cached = await reportSummary({ ...deps, clock: clockOf(z) }, merchant, queryOf(z));
  const fromRows = await reportSummary({ ...deps, clock: BEFORE }, merchant, queryOf(z));
  return { cached, fromRows };
}

async function expectAgreement(merchant: MerchantContext, z: Zone) {
  const { cached, fromRows } = await summaries(merchant, z);
  expect(cached).toEqual(fromRows);
  return cached;
}

/** The merchant's totalled buckets, as ISO instants. */
async function totalledBuckets(merchant: MerchantContext): Promise<string[]> {
  const result = await svc.database.db.execute(sql`
    select to_char(bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as bucket
    from processor_gateway.ledger_totalled_buckets
    where merchant_id = ${merchant.merchantId}::uuid order by bucket`);
  return rowsOf<{ bucket: string }>(result).map((row) => row.bucket);
}

/** Every bucket of today that is over by the zone's clock. */
function bucketsOver(z: Zone): string[] {
  const buckets: string[] = [];
  const end = bucketOf(clockOf(z).now()).getTime();
  for (let at = startOfLocalDay(z.today, z.zone).getTime(); at < end; at += BUCKET_MS)
    buckets.push(new Date(at).toISOString().replace('.000Z', 'Z'));
  return buckets;
}

const isoOf = (instant: Date) => bucketOf(instant).toISOString().replace('.000Z', 'Z');

beforeAll(async () => {
  const { definition } = serviceWithFakes({ a: new FakeCardProcessor() });
  svc = await startService(definition, { env: TEST_ENV });
  store = postgresLedgerStore(svc.database.db);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe.each(ZONES)("today's bucket totals in $zone", (z) => {
  const at = (seconds: number, day: string = z.today) => local(z.zone, day, seconds);
  const yesterday = addDays(z.today, -1);

  it('count a movement at 23:59:59 on its day and one at 00:00:00 on the next, and agree with the rows', async () => {
    const merchant = aMerchant({ timezone: z.zone });
    const now = clockOf(z).now();
    await svc.database.db.insert(ledger).values([
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '100000.00',
        createdAt: at(LAST_SECOND, yesterday),
      }),
      aMovement(merchant, { kind: 'LINK_PAYMENT', status: 'succeeded', amount: '1000.00', createdAt: at(0) }),
      // Either side of a bucket's edge, a declined attempt, another currency, a refund.
      aMovement(merchant, {
        kind: 'BANK_TRANSFER',
        status: 'succeeded',
        amount: '20.00',
        createdAt: at(3599),
      }),
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '300.00',
        createdAt: at(3600),
      }),
      aMovement(merchant, { kind: 'LINK_PAYMENT', status: 'declined', amount: '5.00', createdAt: at(7200) }),
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '12.50',
        currency: 'USD',
        createdAt: at(9000),
      }),
      aMovement(merchant, { kind: 'REFUND', status: 'succeeded', amount: '400.00', createdAt: at(10_000) }),
      // In the bucket still open.
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '4.00',
        createdAt: new Date(now.getTime() - 1000),
      }),
    ]);
    const cached = await expectAgreement(merchant, z);
    const pyg = cached.currencies.find((entry) => entry.currency === 'PYG');
    const periods = Object.fromEntries((pyg?.periods ?? []).map((p) => [p.period, p]));
    expect(periods[yesterday]?.collected).toBe('100000.00');
    expect(periods[z.today]).toMatchObject({ collected: '1324.00', refunded: '400.00', declinedAttempts: 1 });
    // Every bucket of today that is over is kept; the open one is not.
    expect(await totalledBuckets(merchant)).toEqual(bucketsOver(z));
    expect(await totalledBuckets(merchant)).not.toContain(isoOf(now));
    // Asked again: read from the kept totals, the same answer.
    expect(await expectAgreement(merchant, z)).toEqual(cached);
  });

  it('forget a totalled bucket a write changes, and only that one', async () => {
    const merchant = aMerchant({ timezone: z.zone });
    const refund = aMovement(merchant, {
      kind: 'REFUND',
      status: 'scheduled',
      amount: '150.00',
      createdAt: at(4000),
    });
    const charge = aMovement(merchant, {
      kind: 'INSTALLMENT_CHARGE',
      status: 'succeeded',
      amount: '3000.00',
      installmentId: 8001,
      createdAt: at(20_000),
    });
    await svc.database.db.insert(ledger).values([
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '1000.00',
        createdAt: at(60),
      }),
      refund,
      charge,
    ]);
    await expectAgreement(merchant, z);
    const every = bucketsOver(z);
    expect(await totalledBuckets(merchant)).toEqual(every);

    // A payment recorded late into a bucket already totalled: that bucket is forgotten, then totalled again.
    await store.record(
      aMovement(merchant, { kind: 'LINK_PAYMENT', status: 'succeeded', amount: '7.00', createdAt: at(899) }),
    );
    expect(await totalledBuckets(merchant)).toEqual(every.filter((bucket) => bucket !== isoOf(at(0))));
    const late = await expectAgreement(merchant, z);
    expect(late.currencies[0]?.collected).toBe('4007.00');
    expect(await totalledBuckets(merchant)).toEqual(every);

    // The refund scheduled at 01:06 succeeds at 03:00: both buckets forgotten.
    await store.record({ ...refund, status: 'succeeded', settledAt: at(10_800) });
    expect(await totalledBuckets(merchant)).toEqual(
      every.filter((bucket) => bucket !== isoOf(at(4000)) && bucket !== isoOf(at(10_800))),
    );
    expect((await expectAgreement(merchant, z)).currencies[0]?.refunded).toBe('150.00');

    // A decline of installment 8001 before its charge arrives late: the charge's bucket is forgotten too
    // (the charge is now a recovery).
    await store.record(
      aMovement(merchant, {
        kind: 'INSTALLMENT_CHARGE',
        status: 'declined',
        amount: '3000.00',
        installmentId: 8001,
        createdAt: at(12_000),
      }),
    );
    expect(await totalledBuckets(merchant)).toEqual(
      every.filter((bucket) => bucket !== isoOf(at(12_000)) && bucket !== isoOf(at(20_000))),
    );
    expect((await expectAgreement(merchant, z)).currencies[0]?.recoveredInstallments).toBe(1);

    // A label given to rows changes no total: nothing forgotten.
    await svc.database.db.execute(sql`
      update processor_gateway.ledger set label = 'Gym' where merchant_id = ${merchant.merchantId}::uuid`);
    expect(await totalledBuckets(merchant)).toEqual(every);
  });

  it('agree with the rows whatever the movements and the order they arrive in (property)', async () => {
    const amount = fc.integer({ min: 1, max: 5_000_000 }).map((cents) => (cents / 100).toFixed(2));
    const second = fc.oneof(
      fc.constantFrom(0, 1, 899, 900, 901, LAST_SECOND - 1, LAST_SECOND, z.at - 1, z.at),
      fc.integer({ min: 0, max: z.at }),
    );
    const arrival = fc.record({
      kind: fc.constantFrom('LINK_PAYMENT', 'INSTALLMENT_CHARGE', 'BANK_TRANSFER', 'REFUND') as fc.Arbitrary<
        Movement['kind']
      >,
      status: fc.constantFrom('succeeded', 'succeeded', 'declined', 'pending', 'scheduled') as fc.Arbitrary<
        Movement['status']
      >,
      amount,
      currency: fc.constantFrom('PYG', 'PYG', 'USD'),
      // Yesterday (over: the daily totals) or today (the buckets).
      day: fc.integer({ min: -1, max: 0 }),
      second,
      installment: fc.constantFrom(1, 2, 3),
      /** When still open: settled this many seconds later (declined or succeeded), or never. */
      settles: fc.option(fc.record({ after: fc.integer({ min: 0, max: 6 * 3600 }), ok: fc.boolean() })),
    });
    type Arrival = typeof arrival extends fc.Arbitrary<infer T> ? T : never;
    const now = clockOf(z).now().getTime();
    await fc.assert(
      fc.asyncProperty(
        fc.array(arrival, { minLength: 1, maxLength: 15 }),
        fc.array(arrival, { minLength: 1, maxLength: 10 }),
        async (early, late) => {
          const merchant = aMerchant({ timezone: z.zone });
          const toMovement = (a: Arrival) =>
            aMovement(merchant, {
              kind: a.kind,
              status: a.status,
              amount: a.amount,
              currency: a.currency,
              installmentId: a.kind === 'INSTALLMENT_CHARGE' ? a.installment : null,
              // Today's never after the clock.
              createdAt: at(a.day === 0 ? Math.min(a.second, z.at) : a.second, addDays(z.today, a.day)),
            });
          const first = early.map(toMovement);
          await svc.database.db.insert(ledger).values(first);
          await expectAgreement(merchant, z);
          for (const a of late) await store.record(toMovement(a));
          for (const [index, open] of first.entries()) {
            const settles = early[index]?.settles;
            if (!settles || !['pending', 'scheduled'].includes(open.status)) continue;
            await store.record({
              ...open,
              status: settles.ok ? 'succeeded' : open.kind === 'REFUND' ? 'failed' : 'declined',
              // Never after the clock: what is recorded has happened.
              settledAt: new Date(Math.min(now, open.createdAt.getTime() + settles.after * 1000)),
            });
          }
          await expectAgreement(merchant, z);
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});
