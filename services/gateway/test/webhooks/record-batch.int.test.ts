import { createEvent, type EventType } from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import type { DeliveredMessage } from '@payrail/messaging';
import type { ServiceUnderTest } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS_CONSUMER } from '../../src/adapters/messaging/record-webhook-events-on-events.consumer';
import { inbox } from '../../src/adapters/postgres/schema';
import { postgresWebhookEventLog } from '../../src/adapters/postgres/webhook-event-log';
import { linkCreatedEvent, linkPaidEvent } from './link-events';
import { createMerchant, freshId, startWebhookGateway, webhookEventsConsumer } from './support';

// The consumer takes its messages in batches (one transaction each) and still records them in delivery
// order; a message that cannot be recorded fails alone, the rest of its batch is kept.

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await gateway?.stop();
});

const at = new Date('2026-11-22T10:00:00.000Z');

function events(merchantId: string, linkId: number, label: string) {
  const created = linkCreatedEvent(merchantId, linkId, label, at);
  const paid = linkPaidEvent(merchantId, linkId, at);
  const cancelled = createEvent(
    'link.cancelled',
    {
      linkId,
      merchantId,
      amount: '150000.00',
      currency: 'PYG',
      cancelledAt: at.toISOString(),
      reason: 'merchant',
    },
    at,
  );
  return { created, paid, cancelled };
}

const message = (event: { id: string; type: EventType }): DeliveredMessage => ({
  id: event.id,
  type: event.type,
  body: JSON.stringify(event),
  headers: {},
  attempt: 1,
});

function consumer() {
  let wakes = 0;
  const subscription = webhookEventsConsumer(gateway.database.db, () => {
    wakes += 1;
  });
  return { subscription, wakes: () => wakes };
}

async function logOf(merchantId: string) {
  const logged = await postgresWebhookEventLog(gateway.database.db).listEvents(merchantId, {
    after: 0,
    limit: 100,
  });
  return logged.map((event) => {
    const { data } = JSON.parse(event.body) as { data: { payRequestId: number; label: string | null } };
    return [event.kind, data.payRequestId, data.label];
  });
}

/** The messages' inbox rows, and how many transactions wrote them. */
async function inboxRows(ids: string[]) {
  const [row] = rowsOf<{ n: number; transactions: number }>(
    await gateway.database.db.execute(
      sql`select count(*)::int as n, count(distinct xmin::text)::int as transactions from ${inbox}
           where consumer = ${WEBHOOK_EVENTS_CONSUMER}
             and message_id in (${sql.join(
               ids.map((id) => sql`${id}`),
               sql`, `,
             )})`,
    ),
  );
  return row;
}

describe('the webhook-events consumer in batches', () => {
  it('records a batch in delivery order: a link created and paid in one batch has its label', async () => {
    const { merchantId } = await createMerchant(gateway);
    const first = events(merchantId, freshId(), 'Yoga');
    const second = events(merchantId, freshId(), 'Swim');
    const batch = [first.created, second.created, first.paid, second.cancelled].map(message);
    const { subscription, wakes } = consumer();

    await Promise.all(batch.map((each) => subscription.handler(each)));
    expect(await logOf(merchantId)).toEqual([
      ['PAYMENT_SUCCESS', first.created.data.linkId, 'Yoga'],
      ['LINK_CANCELLED', second.created.data.linkId, 'Swim'],
    ]);
    // One transaction for the four, and one wake for its two envelopes.
    expect(await inboxRows(batch.map((each) => each.id))).toEqual({ n: 4, transactions: 1 });
    expect(wakes()).toBe(1);

    // Delivered again (all of it): the inbox leaves every message out, nothing is appended twice.
    await Promise.all(batch.map((each) => subscription.handler({ ...each, attempt: 2 })));
    expect(await logOf(merchantId)).toHaveLength(2);
    expect(wakes()).toBe(1);
  });

  it('records the rest of a batch that holds a poison message, which fails alone', async () => {
    const { merchantId } = await createMerchant(gateway);
    const first = events(merchantId, freshId(), 'Pilates');
    const second = events(merchantId, freshId(), 'Boxing');
    const poison: DeliveredMessage = {
      ...message(second.paid),
      id: `poison-${freshId()}`,
      body: '{"not":"an event"}',
    };
    const batch = [
      message(first.created),
      message(second.created),
      poison,
      message(first.paid),
      message(second.cancelled),
    ];
    const { subscription } = consumer();

    const outcomes = await Promise.allSettled(batch.map((each) => subscription.handler(each)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(await logOf(merchantId)).toEqual([
      ['PAYMENT_SUCCESS', first.created.data.linkId, 'Pilates'],
      ['LINK_CANCELLED', second.created.data.linkId, 'Boxing'],
    ]);
    // The poison message left no inbox row: its retry (by the bus) would run it again.
    expect((await inboxRows([poison.id]))?.n).toBe(0);
    expect((await inboxRows(batch.filter((each) => each !== poison).map((each) => each.id)))?.n).toBe(4);
  });
});
