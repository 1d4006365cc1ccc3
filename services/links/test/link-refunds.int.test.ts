import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope, type MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aOneOffLink,
  testRabbitMqBus,
  type TestRabbitMqBus,
  type ServiceUnderTest,
  startService,
  testClock,
  waitFor,
} from '@payrail/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_REFUND_CONSUMER } from '../src/adapters/messaging/record-refund-on-refund-succeeded.consumer';
import { inbox, outbox } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';

// A link's payment given back (processor-gateway's `refund.succeeded`, issue 27): the link keeps what was
// refunded and stays paid. On real PostgreSQL and a real RabbitMQ.

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let bus: TestRabbitMqBus;
let svc: ServiceUnderTest;

beforeAll(async () => {
  bus = testRabbitMqBus('links_refunds');
  svc = await startService(linksService, { bus, clock });
});
afterAll(async () => {
  await svc?.stop();
  await bus?.removeTopology();
});

/** A one-off link of the merchant's, paid by a bank transfer (as processor-gateway settles it). */
async function paidLink(merchant: MerchantContext): Promise<number> {
  const created = await svc.request('POST', '/api/saleitems/add', { body: aOneOffLink(), merchant });
  expect(created.status).toBe(200);
  const { id } = (await created.json()) as { id: number };
  const settled = await svc.request('POST', '/internal/bank-transfers/settle', {
    merchant,
    body: {
      reference: `TRF-${randomUUID()}`,
      txId: randomUUID(),
      payRequestId: id,
      amount: '150000.00',
      currency: null,
      bankName: 'Banco Nacional',
      transferDate: '2026-11-21',
      note: null,
    },
  });
  expect(settled.status).toBe(200);
  return id;
}

function refundSucceeded(
  merchant: MerchantContext,
  linkId: number | null,
  amounts: { amount: string; refundedTotal: string },
): EventEnvelope {
  return createEvent(
    'refund.succeeded',
    {
      refundId: randomUUID(),
      paymentId: randomUUID(),
      merchantId: merchant.merchantId,
      currency: 'PYG',
      mode: 'outside',
      method: 'CASH',
      processor: null,
      reference: null,
      reason: null,
      linkId,
      subscriptionId: null,
      installmentId: linkId === null ? 123 : null,
      requestedAt: clock.now().toISOString(),
      succeededAt: clock.now().toISOString(),
      ...amounts,
    },
    clock.now(),
  );
}

async function publish(event: EventEnvelope, messageId = event.id) {
  await bus.publish({ id: messageId, type: event.type, body: JSON.stringify(event) });
}

async function handled(messageId: string) {
  const rows = await svc.database.db
    .select()
    .from(inbox)
    .where(and(eq(inbox.consumer, RECORD_REFUND_CONSUMER), eq(inbox.messageId, messageId)));
  return rows.length === 1;
}

async function retrieved(merchant: MerchantContext, id: number) {
  const response = await svc.request('GET', `/api/payrequests/${id}`, { merchant });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('refund.succeeded of a link payment', () => {
  it('a paid link not refunded says refundedAmount 0.00', async () => {
    const merchant = aMerchant();
    const id = await paidLink(merchant);
    expect((await retrieved(merchant, id)).body).toMatchObject({
      statusId: 200,
      paid: true,
      refundedAmount: '0.00',
    });
  });

  it('keeps the refunded total and the link stays paid; a redelivery and a late smaller total change nothing', async () => {
    const merchant = aMerchant();
    const id = await paidLink(merchant);
    const first = refundSucceeded(merchant, id, { amount: '50000.00', refundedTotal: '50000.00' });
    const second = refundSucceeded(merchant, id, { amount: '30000.00', refundedTotal: '80000.00' });
    await publish(second);
    await waitFor(() => handled(second.id));
    expect((await retrieved(merchant, id)).body).toMatchObject({
      statusId: 200,
      paid: true,
      refundedAmount: '80000.00',
    });
    // The earlier refund's event arrives after the later one (queues are not ordered across replicas).
    await publish(first);
    await waitFor(() => handled(first.id));
    // And the later one again, under its message id: the inbox makes it a no-op.
    await publish(second);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await retrieved(merchant, id)).body).toMatchObject({ statusId: 200, refundedAmount: '80000.00' });
    // A refund writes no event of the link's: it is still paid, nothing to announce.
    const linkEvents = await svc.database.db.select().from(outbox).where(eq(outbox.type, 'link.cancelled'));
    expect(linkEvents).toEqual([]);
  });

  it("another merchant's refund naming the link changes nothing; one of an installment names no link", async () => {
    const merchant = aMerchant();
    const id = await paidLink(merchant);
    const foreign = refundSucceeded(aMerchant(), id, { amount: '1000.00', refundedTotal: '1000.00' });
    const ofInstallment = refundSucceeded(merchant, null, { amount: '1000.00', refundedTotal: '1000.00' });
    await publish(foreign);
    await publish(ofInstallment);
    await waitFor(async () => (await handled(foreign.id)) && (await handled(ofInstallment.id)));
    expect((await retrieved(merchant, id)).body).toMatchObject({ refundedAmount: '0.00' });
  });
});
