import type { MerchantContext, ReportSummaryQuery } from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import { aMerchant, type ServiceUnderTest, startService } from '@payrail/testing';
import { addDays, startOfLocalDay } from '@payrail/time';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresLedgerStore } from '../src/adapters/postgres/ledger-store';
import { ledger } from '../src/adapters/postgres/schema';
import { reportSummary } from '../src/application/report-summary';
import type { Movement } from '../src/domain/ledger';
import type { LedgerStore } from '../src/ports/ledger-store';
import { FakeCardProcessor } from './fake-card-processor';
import { aMovement } from './ledger-movements';
import { serviceWithFakes, TEST_ENV } from './support';

/**
 * The report's daily totals (migration 0007) on the real PostgreSQL: a summary read from them agrees with
 * the same summary summed from the rows, after every kind of write that changes a totalled day (a movement
 * arriving late, a scheduled refund that succeeds on another day, a decline arriving late that makes a
 * later charge of its installment a recovery), at the edges of a local day. "Without the totals" is the
 * same function on a clock before the range: no day of it is over, so every figure is summed from rows.
 */
let svc: ServiceUnderTest;
let store: LedgerStore;
const ZONE = 'America/Asuncion';
const FIRST = '2026-10-01';
const LAST = '2026-10-05';
const LAST_SECOND = 24 * 3600 - 1;
/** After the range: every day of it is over. */
const AFTER = { now: () => new Date('2026-10-20T12:00:00Z') };
/** Before the range: nothing is over, nothing is read from the totals. */
const BEFORE = { now: () => new Date('2026-01-01T12:00:00Z') };
const noStates = { at: async () => undefined };

const local = (day: string, seconds: number) =>
  new Date(startOfLocalDay(day, ZONE).getTime() + seconds * 1000);

async function summaries(merchant: MerchantContext, query: ReportSummaryQuery) {
  const deps = { ledger: store, subscriptionStates: noStates };
  const cached = await reportSummary({ ...deps, clock: AFTER }, merchant, query);
  const fromRows = await reportSummary({ ...deps, clock: BEFORE }, merchant, query);
  return { cached, fromRows };
}

async function expectAgreement(merchant: MerchantContext) {
  for (const groupBy of ['day', 'month'] as const) {
    const { cached, fromRows } = await summaries(merchant, { from: FIRST, to: LAST, groupBy });
    expect(cached).toEqual(fromRows);
  }
  // A range inside the totalled one, and one past it that is partly today (summed from rows).
  const inside = await summaries(merchant, { from: '2026-10-02', to: '2026-10-03', groupBy: 'day' });
  expect(inside.cached).toEqual(inside.fromRows);
}

async function totalledDays(merchant: MerchantContext): Promise<string[]> {
  const result = await svc.database.db.execute(sql`
    select day::text as day from processor_gateway.ledger_totalled_days
    where merchant_id = ${merchant.merchantId}::uuid and timezone = ${ZONE} order by day`);
  return rowsOf<{ day: string }>(result).map((row) => row.day);
}

const everyDay = ['2026-10-01', '2026-10-02', '2026-10-03', '2026-10-04', '2026-10-05'];

beforeAll(async () => {
  const { definition } = serviceWithFakes({ a: new FakeCardProcessor() });
  svc = await startService(definition, { env: TEST_ENV });
  store = postgresLedgerStore(svc.database.db);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

describe("the report's daily totals", () => {
  it('agree with the rows after late movements, a refund settled another day and a late decline', async () => {
    const merchant = aMerchant({ timezone: ZONE });
    const refund = aMovement(merchant, {
      kind: 'REFUND',
      status: 'scheduled',
      amount: '15000.00',
      createdAt: local('2026-10-03', 50_000),
    });
    const charge = aMovement(merchant, {
      kind: 'INSTALLMENT_CHARGE',
      status: 'succeeded',
      amount: '30000.00',
      installmentId: 7001,
      createdAt: local('2026-10-04', 36_000),
    });
    await svc.database.db.insert(ledger).values([
      // The last second of the 1st and the first of the 2nd.
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '100000.00',
        createdAt: local('2026-10-01', LAST_SECOND),
      }),
      aMovement(merchant, {
        kind: 'BANK_TRANSFER',
        status: 'succeeded',
        amount: '50000.00',
        createdAt: local('2026-10-02', 0),
      }),
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'declined',
        amount: '20000.00',
        createdAt: local('2026-10-02', 3600),
      }),
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '12.50',
        currency: 'USD',
        createdAt: local('2026-10-03', 7200),
      }),
      refund,
      charge,
    ]);
    await expectAgreement(merchant);
    expect(await totalledDays(merchant)).toEqual(everyDay);
    const before = (await summaries(merchant, { from: FIRST, to: LAST })).cached;

    // A payment of the 2nd (23:59:59 there) recorded late: the 2nd is forgotten, the others kept.
    await store.record(
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '7000.00',
        createdAt: local('2026-10-02', LAST_SECOND),
      }),
    );
    expect(await totalledDays(merchant)).toEqual(everyDay.filter((day) => day !== '2026-10-02'));
    await expectAgreement(merchant);
    const after = (await summaries(merchant, { from: FIRST, to: LAST })).cached;
    expect(after.currencies[0]?.collected).toBe('187000.00');
    expect(after).not.toEqual(before);

    // The refund scheduled on the 3rd succeeds on the 5th: it leaves the 3rd for the 5th, both forgotten.
    await store.record({ ...refund, status: 'succeeded', settledAt: local('2026-10-05', 1000) });
    expect(await totalledDays(merchant)).toEqual(['2026-10-01', '2026-10-02', '2026-10-04']);
    await expectAgreement(merchant);
    const refunded = (await summaries(merchant, { from: FIRST, to: LAST })).cached;
    expect(refunded.currencies[0]?.periods.find((p) => p.period === '2026-10-05')?.refunded).toBe('15000.00');

    // A decline of installment 7001 on the 1st arrives late: the charge of the 4th is now a recovery.
    await store.record(
      aMovement(merchant, {
        kind: 'INSTALLMENT_CHARGE',
        status: 'declined',
        amount: '30000.00',
        installmentId: 7001,
        createdAt: local('2026-10-01', 40_000),
      }),
    );
    expect(await totalledDays(merchant)).toEqual(['2026-10-02', '2026-10-03', '2026-10-05']);
    await expectAgreement(merchant);
    const recovered = (await summaries(merchant, { from: FIRST, to: LAST })).cached;
    expect(recovered.currencies[0]?.recoveredInstallments).toBe(1);
    expect(recovered.currencies[0]?.periods.find((p) => p.period === '2026-10-04')).toMatchObject({
      recoveredInstallments: 1,
    });

    // A label given to rows changes no total: nothing forgotten.
    await expectAgreement(merchant);
    const kept = await totalledDays(merchant);
    await svc.database.db.execute(sql`
      update processor_gateway.ledger set label = 'Gym' where merchant_id = ${merchant.merchantId}::uuid`);
    expect(await totalledDays(merchant)).toEqual(kept);
  });

  it("keep a merchant's days apart from another's, and per time zone", async () => {
    const merchant = aMerchant({ timezone: ZONE });
    const other = aMerchant({ timezone: ZONE });
    await svc.database.db.insert(ledger).values([
      aMovement(merchant, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '1000.00',
        createdAt: local(FIRST, 10),
      }),
      aMovement(other, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '9000.00',
        createdAt: local(FIRST, 10),
      }),
    ]);
    await expectAgreement(merchant);
    await expectAgreement(other);
    // The same merchant in UTC: 00:00:10 in Asunción is 03:00:10 UTC, the same day; totalled apart.
    const utc = { ...merchant, timezone: 'UTC' };
    const inUtc = await summaries(utc, { from: FIRST, to: LAST });
    expect(inUtc.cached).toEqual(inUtc.fromRows);
    // A late payment of the other merchant forgets none of this merchant's days.
    await store.record(
      aMovement(other, {
        kind: 'LINK_PAYMENT',
        status: 'succeeded',
        amount: '1.00',
        createdAt: local(FIRST, 20),
      }),
    );
    expect(await totalledDays(merchant)).toEqual(everyDay);
    expect(await totalledDays(other)).toEqual(everyDay.slice(1));
  });

  it('agree with the rows whatever the movements and the order they arrive in (property)', async () => {
    const amount = fc.integer({ min: 1, max: 5_000_000 }).map((cents) => (cents / 100).toFixed(2));
    const second = fc.oneof(
      fc.constantFrom(0, 1, LAST_SECOND - 1, LAST_SECOND),
      fc.integer({ min: 0, max: LAST_SECOND }),
    );
    const arrival = fc.record({
      kind: fc.constantFrom('LINK_PAYMENT', 'INSTALLMENT_CHARGE', 'BANK_TRANSFER', 'REFUND') as fc.Arbitrary<
        Movement['kind']
      >,
      status: fc.constantFrom(
        'succeeded',
        'succeeded',
        'declined',
        'pending',
        'scheduled',
        'failed',
      ) as fc.Arbitrary<Movement['status']>,
      amount,
      currency: fc.constantFrom('PYG', 'PYG', 'USD'),
      // One day before the range to one after, so that moves across its edges are made too.
      day: fc.integer({ min: -1, max: 5 }),
      second,
      installment: fc.constantFrom(1, 2, 3),
      /** When still open: settled this many seconds later (declined or succeeded), or never. */
      settles: fc.option(fc.record({ after: fc.integer({ min: 0, max: 2 * 86_400 }), ok: fc.boolean() })),
    });
    type Arrival = typeof arrival extends fc.Arbitrary<infer T> ? T : never;
    await fc.assert(
      fc.asyncProperty(
        fc.array(arrival, { minLength: 1, maxLength: 15 }),
        fc.array(arrival, { minLength: 1, maxLength: 10 }),
        async (early, late) => {
          const merchant = aMerchant({ timezone: ZONE });
          const toMovement = (a: Arrival) =>
            aMovement(merchant, {
              kind: a.kind,
              status: a.status,
              amount: a.amount,
              currency: a.currency,
              installmentId: a.kind === 'INSTALLMENT_CHARGE' ? a.installment : null,
              createdAt: local(addDays(FIRST, a.day), a.second),
            });
          const first = early.map(toMovement);
          await svc.database.db.insert(ledger).values(first);
          await expectAgreement(merchant);
          // Later: new movements (late for days already totalled), and the open ones settled.
          for (const a of late) await store.record(toMovement(a));
          for (const [index, open] of first.entries()) {
            const settles = early[index]?.settles;
            if (!settles || !['pending', 'scheduled'].includes(open.status)) continue;
            await store.record({
              ...open,
              status: settles.ok ? 'succeeded' : open.kind === 'REFUND' ? 'failed' : 'declined',
              settledAt: new Date(open.createdAt.getTime() + settles.after * 1000),
            });
          }
          await expectAgreement(merchant);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
