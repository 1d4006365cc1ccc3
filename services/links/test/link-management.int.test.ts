import { createEvent, type EventEnvelope, type MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aOneOffLink,
  aStaticLink,
  testRabbitMqBus,
  type TestRabbitMqBus,
  type ServiceUnderTest,
  startService,
  testClock,
  waitFor,
} from '@payrail/testing';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANCEL_LINK_CONSUMER } from '../src/adapters/messaging/cancel-link-on-subscription-cancelled.consumer';
import { inbox, outbox, paymentLinks } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';

// The merchant's management of its links (list, cancel) and the cancel that follows a subscription
// cancelled before its first payment, on real PostgreSQL and, for the event, a real RabbitMQ.

// 2026-11-22 09:00 in Asunción (UTC-3).
const clock = testClock(new Date('2026-11-22T12:00:00Z'));
const HOUR = 3_600_000;
let bus: TestRabbitMqBus;
let svc: ServiceUnderTest;

beforeAll(async () => {
  bus = testRabbitMqBus('links_management');
  svc = await startService(linksService, { bus, clock });
});
afterAll(async () => {
  await svc?.stop();
  await bus?.removeTopology();
});

type Json = Record<string, unknown>;
interface Page {
  payRequests: Array<Json & { id: number; statusId: number }>;
  nextCursor: string | null;
}

async function createLink(merchant: MerchantContext, body: Json = aOneOffLink()): Promise<number> {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: number }).id;
}

async function list(merchant: MerchantContext, query: Record<string, string> = {}) {
  const search = new URLSearchParams(query).toString();
  const response = await svc.request('GET', `/api/payrequests${search ? `?${search}` : ''}`, { merchant });
  return { status: response.status, body: (await response.json()) as Page & Json };
}

async function ids(merchant: MerchantContext, query: Record<string, string> = {}) {
  const { status, body } = await list(merchant, query);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.payRequests.map((link) => link.id);
}

function cancel(merchant: MerchantContext, id: number) {
  return svc.request('POST', `/api/payrequests/${id}/cancel`, { merchant });
}

async function statusOf(id: number): Promise<number | undefined> {
  const [row] = await svc.database.db.select().from(paymentLinks).where(eq(paymentLinks.id, id));
  return row?.statusId;
}

async function cancelledEvents(linkId: number) {
  const rows = await svc.database.db
    .select()
    .from(outbox)
    .where(eq(outbox.type, 'link.cancelled'))
    .orderBy(asc(outbox.createdAt));
  return rows
    .map((row) => JSON.parse(row.body) as EventEnvelope<'link.cancelled'>)
    .filter((event) => event.data.linkId === linkId);
}

async function setStatus(id: number, statusId: number) {
  await svc.database.db.update(paymentLinks).set({ statusId }).where(eq(paymentLinks.id, id));
}

describe('GET /api/payrequests', () => {
  it('pages the merchant’s links newest first with an opaque cursor, never another merchant’s', async () => {
    const merchant = aMerchant();
    const other = aMerchant();
    const made: number[] = [];
    for (let i = 0; i < 5; i++) made.push(await createLink(merchant));
    await createLink(other);

    const first = await list(merchant, { limit: '2' });
    expect(first.status).toBe(200);
    expect(first.body.payRequests.map((link) => link.id)).toEqual([made[4], made[3]]);
    expect(first.body.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    // Each item is what GET /api/payrequests/{id} answers.
    const one = await svc.request('GET', `/api/payrequests/${made[4]}`, { merchant });
    expect(first.body.payRequests[0]).toEqual(await one.json());

    const second = await list(merchant, { limit: '2', cursor: first.body.nextCursor as string });
    expect(second.body.payRequests.map((link) => link.id)).toEqual([made[2], made[1]]);
    const third = await list(merchant, { limit: '2', cursor: second.body.nextCursor as string });
    expect(third.body.payRequests.map((link) => link.id)).toEqual([made[0]]);
    expect(third.body.nextCursor).toBeNull();

    expect(await ids(merchant)).toEqual([...made].reverse());
    expect(await ids(other)).toHaveLength(1);
    expect(await ids(aMerchant())).toEqual([]);
  });

  it('filters by status (expiry counted as the reader sees it), customIdentifier and local creation day', async () => {
    const merchant = aMerchant();
    clock.set(new Date('2026-11-22T12:00:00Z')); // 22 Nov 09:00 in Asunción
    const order = await createLink(merchant, aOneOffLink({ customIdentifier: 'ORDER-1' }));
    const shortLived = await createLink(merchant, aOneOffLink({ payWaitHours: 1 }));
    clock.set(new Date('2026-11-23T02:30:00Z')); // still 22 Nov (23:30) in Asunción
    const lateEvening = await createLink(merchant, aOneOffLink({ customIdentifier: 'ORDER-1' }));
    clock.set(new Date('2026-11-23T03:30:00Z')); // 23 Nov 00:30 in Asunción
    const nextDay = await createLink(merchant);
    const rejected = await createLink(merchant);
    await setStatus(rejected, 5);
    const paid = await createLink(merchant);
    await setStatus(paid, 200);
    const cancelled = await createLink(merchant);
    expect((await cancel(merchant, cancelled)).status).toBe(200);

    expect(await ids(merchant, { customIdentifier: 'ORDER-1' })).toEqual([lateEvening, order]);
    expect(await ids(merchant, { createdFrom: '2026-11-22', createdTo: '2026-11-22' })).toEqual([
      lateEvening,
      shortLived,
      order,
    ]);
    expect(await ids(merchant, { createdFrom: '2026-11-23' })).toEqual([cancelled, paid, rejected, nextDay]);
    expect(await ids(merchant, { createdTo: '2026-11-21' })).toEqual([]);
    // The short-lived link expired an hour after it was made: expired, not pending, though nothing wrote it.
    expect(await ids(merchant, { status: 'expired' })).toEqual([shortLived]);
    expect(await ids(merchant, { status: 'pending' })).toEqual([nextDay, lateEvening, order]);
    expect(await ids(merchant, { status: 'rejected' })).toEqual([rejected]);
    expect(await ids(merchant, { status: 'paid' })).toEqual([paid]);
    expect(await ids(merchant, { status: 'cancelled' })).toEqual([cancelled]);
    const expired = await list(merchant, { status: 'expired' });
    expect(expired.body.payRequests[0]?.statusId).toBe(6);
    expect(
      await ids(merchant, { status: 'pending', customIdentifier: 'ORDER-1', createdTo: '2026-11-22' }),
    ).toEqual([lateEvening, order]);
  });

  it('refuses bad filters with a problem naming the parameter', async () => {
    const merchant = aMerchant();
    const cases: Array<[Record<string, string>, string]> = [
      [{ status: 'open' }, 'status'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ cursor: 'not a cursor!' }, 'cursor'],
      [{ cursor: Buffer.from('after:12').toString('base64url') }, 'cursor'],
      [{ createdFrom: '2026-02-30' }, 'createdFrom'],
      [{ createdTo: '23/11/2026' }, 'createdTo'],
      [{ createdFrom: '2026-11-23', createdTo: '2026-11-22' }, 'createdTo'],
    ];
    for (const [query, path] of cases) {
      const { status, body } = await list(merchant, query);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect((body.errors as Array<{ path: string }>).map((error) => error.path)).toContain(path);
    }
    const unsigned = await svc.request('GET', '/api/payrequests');
    expect(unsigned.status).toBe(401);
  });
});

describe('POST /api/payrequests/{id}/cancel', () => {
  it('cancels a pending link with its link.cancelled (reason merchant); a second cancel is 409', async () => {
    clock.set(new Date('2026-11-22T12:00:00Z'));
    const merchant = aMerchant();
    const id = await createLink(merchant);
    const response = await cancel(merchant, id);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({ id, statusId: 7, paid: false });
    expect(await statusOf(id)).toBe(7);
    const events = await cancelledEvents(id);
    expect(events.map((event) => event.data)).toEqual([
      {
        linkId: id,
        merchantId: merchant.merchantId,
        amount: '150000.00',
        currency: 'PYG',
        cancelledAt: '2026-11-22T12:00:00.000Z',
        reason: 'merchant',
      },
    ]);

    const again = await cancel(merchant, id);
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(((await again.json()) as Json).code).toBe('PAYMENT_LINK_CANCELLED');
    expect(await cancelledEvents(id)).toHaveLength(1);
  });

  it('cancels a link whose last attempt was rejected (5): it is still payable', async () => {
    const merchant = aMerchant();
    const id = await createLink(merchant);
    await setStatus(id, 5);
    expect((await cancel(merchant, id)).status).toBe(200);
    expect(await statusOf(id)).toBe(7);
  });

  it('refuses paid and expired links (409) and another merchant’s (404), changing nothing', async () => {
    clock.set(new Date('2026-11-22T12:00:00Z'));
    const merchant = aMerchant();
    const paid = await createLink(merchant);
    await setStatus(paid, 200);
    const expiring = await createLink(merchant, aOneOffLink({ payWaitHours: 1 }));
    const pending = await createLink(merchant);
    clock.advance(2 * HOUR);

    const cases: Array<[MerchantContext, number, number, string]> = [
      [merchant, paid, 409, 'PAYMENT_LINK_ALREADY_PAID'],
      [merchant, expiring, 409, 'PAYMENT_LINK_EXPIRED'],
      [aMerchant(), pending, 404, 'PAYMENT_LINK_NOT_FOUND'],
      [merchant, 987_654_321, 404, 'PAYMENT_LINK_NOT_FOUND'],
    ];
    for (const [as, id, status, code] of cases) {
      const response = await cancel(as, id);
      expect({ id, status: response.status, code: ((await response.json()) as Json).code }).toEqual({
        id,
        status,
        code,
      });
    }
    expect([await statusOf(paid), await statusOf(expiring), await statusOf(pending)]).toEqual([200, 1, 1]);
    for (const id of [paid, expiring, pending]) expect(await cancelledEvents(id)).toEqual([]);

    const badId = await svc.request('POST', '/api/payrequests/abc/cancel', { merchant });
    expect(badId.status).toBe(400);
  });
});

describe('a subscription cancelled before its first payment cancels its link (subscription.cancelled on RabbitMQ)', () => {
  function subscriptionCancelled(merchant: MerchantContext, linkId: number): EventEnvelope {
    return createEvent(
      'subscription.cancelled',
      {
        subscriptionId: linkId + 100_000,
        merchantId: merchant.merchantId,
        linkId,
        type: 'STATIC',
        status: 'cancelled',
        customIdentifier: null,
        customIdentifier2: null,
        currency: 'PYG',
        timezone: merchant.timezone,
        reason: 'merchant',
      },
      clock.now(),
    );
  }

  async function publish(event: EventEnvelope) {
    await bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
  }

  /** Taken in by the consumer that cancels links (links' customer mail consumes the same event). */
  async function handled(event: EventEnvelope) {
    await waitFor(
      async () =>
        (
          await svc.database.db
            .select()
            .from(inbox)
            .where(and(eq(inbox.messageId, event.id), eq(inbox.consumer, CANCEL_LINK_CONSUMER)))
        ).length > 0,
      15_000,
    );
  }

  it('the unpaid link becomes cancelled (7) with link.cancelled reason subscription-cancelled, once', async () => {
    clock.set(new Date('2026-11-22T12:00:00Z'));
    const merchant = aMerchant();
    const id = await createLink(merchant, aStaticLink());
    const event = subscriptionCancelled(merchant, id);
    await publish(event);
    await publish(event);
    await handled(event);
    expect(await statusOf(id)).toBe(7);
    // Give the duplicate its chance before counting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const events = await cancelledEvents(id);
    expect(events.map((e) => e.data.reason)).toEqual(['subscription-cancelled']);
    const page = await svc.request('GET', `/api/payrequests/${id}`, { merchant });
    expect(((await page.json()) as Json).statusId).toBe(7);
  });

  it('a paid link (the subscription was active) and another merchant’s link are left as they are', async () => {
    const merchant = aMerchant();
    const paid = await createLink(merchant, aStaticLink());
    await setStatus(paid, 200);
    const pending = await createLink(merchant, aStaticLink());
    const paidEvent = subscriptionCancelled(merchant, paid);
    const forgedEvent = subscriptionCancelled(aMerchant(), pending);
    await publish(paidEvent);
    await publish(forgedEvent);
    await handled(paidEvent);
    await handled(forgedEvent);
    expect([await statusOf(paid), await statusOf(pending)]).toEqual([200, 1]);
    expect(await cancelledEvents(paid)).toEqual([]);
    expect(await cancelledEvents(pending)).toEqual([]);
  });
});
