import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService } from '@payrail/testing';
import { startOfLocalDay } from '@payrail/time';
import { v7 as timeOrderedUuid } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledger } from '../src/adapters/postgres/schema';
import { FakeCardProcessor } from './fake-card-processor';
import { serviceWithFakes, TEST_ENV } from './support';

/**
 * `GET /api/reports/summary` on the real PostgreSQL: the ledger's rows of a merchant summed per currency
 * and per day or month of the merchant's time zone, the edges of a day included.
 */
let svc: ServiceUnderTest;
const ZONE = 'America/Asuncion';
const merchant = aMerchant({ timezone: ZONE });
const other = aMerchant({ timezone: ZONE });

/** An instant given as the merchant's local day and the seconds after its midnight. */
const local = (day: string, seconds: number) =>
  new Date(startOfLocalDay(day, ZONE).getTime() + seconds * 1000);
const LAST_SECOND = 24 * 3600 - 1;

type Kind = (typeof ledger.$inferInsert)['kind'];
type Status = (typeof ledger.$inferInsert)['status'];

function row(o: {
  kind: Kind;
  status: Status;
  amount: string;
  at: Date;
  createdAt?: Date;
  currency?: string;
  installmentId?: number;
  of?: MerchantContext;
}): typeof ledger.$inferInsert {
  return {
    id: timeOrderedUuid(),
    merchantId: (o.of ?? merchant).merchantId,
    kind: o.kind,
    status: o.status,
    method: o.kind === 'BANK_TRANSFER' ? 'BANK_TRANSFER' : 'CARD',
    processor: o.kind === 'BANK_TRANSFER' ? null : 'PARAGUAY.PROCESSOR_A',
    amount: o.amount,
    currency: o.currency ?? 'PYG',
    installmentId: o.installmentId ?? null,
    createdAt: o.createdAt ?? o.at,
    settledAt: o.status === 'pending' ? null : o.at,
  };
}

/** subscriptions' internal answer, as the test sets it; the instants it was asked about. */
let statesAnswer: { status: number; body: unknown } = {
  status: 200,
  body: { pending: 1, active: 4, past_due: 2, completed: 3, cancelled: 5 },
};
const statesAskedAt: string[] = [];

beforeAll(async () => {
  const { definition } = serviceWithFakes({ a: new FakeCardProcessor() });
  svc = await startService(definition, {
    env: TEST_ENV,
    upstreams: {
      subscriptions: async (request) => {
        const url = new URL(request.url);
        if (url.pathname !== '/internal/reports/subscription-states')
          return new Response(null, { status: 404 });
        statesAskedAt.push(url.searchParams.get('at') ?? '');
        return Response.json(statesAnswer.body, { status: statesAnswer.status });
      },
    },
  });
  await svc.database.db.insert(ledger).values([
    // The 23rd: a link paid in its very last second, and one created the day before but paid on the 23rd.
    row({
      kind: 'LINK_PAYMENT',
      status: 'succeeded',
      amount: '100000.00',
      at: local('2026-11-23', LAST_SECOND),
    }),
    row({
      kind: 'LINK_PAYMENT',
      status: 'succeeded',
      amount: '40000.00',
      createdAt: local('2026-11-22', LAST_SECOND - 60),
      at: local('2026-11-23', 30),
    }),
    row({
      kind: 'INSTALLMENT_CHARGE',
      status: 'declined',
      amount: '30000.00',
      installmentId: 501,
      at: local('2026-11-23', 36000),
    }),
    row({
      kind: 'LINK_PAYMENT',
      status: 'succeeded',
      amount: '12.50',
      currency: 'USD',
      at: local('2026-11-23', 43200),
    }),
    // The 24th: a transfer in its very first second, installment 501 paid by its retry, 502 at its first try.
    row({ kind: 'BANK_TRANSFER', status: 'succeeded', amount: '50000.00', at: local('2026-11-24', 0) }),
    row({
      kind: 'INSTALLMENT_CHARGE',
      status: 'succeeded',
      amount: '30000.00',
      installmentId: 501,
      at: local('2026-11-24', 36000),
    }),
    row({
      kind: 'INSTALLMENT_CHARGE',
      status: 'succeeded',
      amount: '30000.00',
      installmentId: 502,
      at: local('2026-11-24', 36100),
    }),
    row({ kind: 'REFUND', status: 'succeeded', amount: '20000.00', at: local('2026-11-24', 40000) }),
    // Given back nothing: a refund that failed, one still pending.
    row({ kind: 'REFUND', status: 'failed', amount: '5000.00', at: local('2026-11-24', 41000) }),
    row({ kind: 'REFUND', status: 'pending', amount: '6000.00', at: local('2026-11-24', 42000) }),
    // Outside the range of the 23rd and 24th: the last second of the 22nd, the first of the 25th.
    row({
      kind: 'LINK_PAYMENT',
      status: 'succeeded',
      amount: '7000.00',
      at: local('2026-11-22', LAST_SECOND),
    }),
    row({ kind: 'LINK_PAYMENT', status: 'succeeded', amount: '9000.00', at: local('2026-11-25', 0) }),
    // Another merchant's payment on the 23rd.
    row({
      kind: 'LINK_PAYMENT',
      status: 'succeeded',
      amount: '999999.00',
      at: local('2026-11-23', 100),
      of: other,
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

async function summary(query: string, who: MerchantContext = merchant) {
  return svc.request('GET', `/api/reports/summary${query}`, { merchant: who });
}

const zero = { refunded: '0.00', declinedAttempts: 0, recoveredInstallments: 0 };

describe('GET /api/reports/summary', () => {
  it("sums per currency and per day of the merchant's zone: 23:59:59 on its day, 00:00:00 on the next", async () => {
    const response = await summary('?from=2026-11-23&to=2026-11-24&groupBy=day');
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({
      from: '2026-11-23',
      to: '2026-11-24',
      groupBy: 'day',
      timezone: ZONE,
      currencies: [
        {
          currency: 'PYG',
          collected: '250000.00',
          refunded: '20000.00',
          net: '230000.00',
          declinedAttempts: 1,
          recoveredInstallments: 1,
          periods: [
            {
              period: '2026-11-23',
              collected: '140000.00',
              net: '140000.00',
              ...zero,
              declinedAttempts: 1,
            },
            {
              period: '2026-11-24',
              collected: '110000.00',
              refunded: '20000.00',
              net: '90000.00',
              declinedAttempts: 0,
              recoveredInstallments: 1,
            },
          ],
        },
        {
          currency: 'USD',
          collected: '12.50',
          net: '12.50',
          ...zero,
          periods: [{ period: '2026-11-23', collected: '12.50', net: '12.50', ...zero }],
        },
      ],
      subscriptions: { pending: 1, active: 4, past_due: 2, completed: 3, cancelled: 5 },
    });
    // Asked at the end of the range: the last instant of the 24th in the merchant's zone.
    expect(statesAskedAt.at(-1)).toBe(
      new Date(startOfLocalDay('2026-11-25', ZONE).getTime() - 1).toISOString(),
    );
  });

  it('says null for the subscriptions when subscriptions cannot answer, and still gives the money', async () => {
    statesAnswer = { status: 503, body: { code: 'UNAVAILABLE' } };
    try {
      const body = (await (await summary('?from=2026-11-23&to=2026-11-23')).json()) as {
        subscriptions: unknown;
        currencies: unknown[];
      };
      expect(body.subscriptions).toBeNull();
      expect(body.currencies).toHaveLength(2);
    } finally {
      statesAnswer = {
        status: 200,
        body: { pending: 1, active: 4, past_due: 2, completed: 3, cancelled: 5 },
      };
    }
  });

  it('one day alone: its last second in, the first second of the next out', async () => {
    const day23 = (await (await summary('?from=2026-11-23&to=2026-11-23')).json()) as {
      groupBy: string;
      currencies: Array<{ currency: string; collected: string }>;
    };
    expect(day23.groupBy).toBe('day');
    expect(day23.currencies.map((c) => [c.currency, c.collected])).toEqual([
      ['PYG', '140000.00'],
      ['USD', '12.50'],
    ]);
    const day22 = (await (await summary('?from=2026-11-22&to=2026-11-22')).json()) as {
      currencies: Array<{ currency: string; collected: string }>;
    };
    expect(day22.currencies.map((c) => [c.currency, c.collected])).toEqual([['PYG', '7000.00']]);
  });

  it('by month: every day of November of the zone in one period', async () => {
    const response = await summary('?from=2026-11-01&to=2026-11-30&groupBy=month');
    const body = (await response.json()) as {
      currencies: Array<{
        currency: string;
        periods: Array<{ period: string; collected: string; net: string }>;
      }>;
    };
    expect(body.currencies.find((c) => c.currency === 'PYG')?.periods).toEqual([
      expect.objectContaining({ period: '2026-11', collected: '266000.00', net: '246000.00' }),
    ]);
  });

  it("another merchant sees none of this merchant's money", async () => {
    const body = (await (await summary('?from=2026-11-24&to=2026-11-24', other)).json()) as {
      currencies: unknown[];
    };
    expect(body.currencies).toEqual([]);
  });

  it('refuses a range that ends before it starts, or is too long, and a malformed day', async () => {
    const backwards = await summary('?from=2026-11-24&to=2026-11-23');
    expect(backwards.status).toBe(400);
    expect(await backwards.json()).toMatchObject({ code: 'REPORT_RANGE_INVALID', errors: [{ path: 'to' }] });
    const tooLong = await summary('?from=2025-01-01&to=2026-11-23&groupBy=day');
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ code: 'REPORT_RANGE_INVALID' });
    expect((await summary('?from=2025-01-01&to=2026-11-23&groupBy=month')).status).toBe(200);
    const malformed = await summary('?from=23/11/2026&to=2026-11-24');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await summary('?from=2026-11-23&to=2026-11-24&groupBy=week')).status).toBe(400);
  });
});
