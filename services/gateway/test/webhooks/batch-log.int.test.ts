import { readFileSync } from 'node:fs';
import { createEvent, type EventData, type EventType } from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import type { DeliveredMessage, MessageBus } from '@payrail/messaging';
import type { ServiceUnderTest } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WEBHOOK_EVENTS_BATCH,
  WEBHOOK_EVENTS_CONSUMER,
} from '../../src/adapters/messaging/record-webhook-events-on-events.consumer';
import { inbox } from '../../src/adapters/postgres/schema';
import { postgresWebhookProjectionStore } from '../../src/adapters/postgres/webhook-projection-store';
import { linkCreatedEvent, linkPaidEvent } from './link-events';
import { countingDatabase } from './statement-counter';
import {
  createEndpoint,
  createMerchant,
  freshId,
  publishEveryKind,
  startWebhookGateway,
  webhookEventsConsumer,
} from './support';

// The consumer's batch path appends the same log as the messages recorded one by one, with a few
// statements per batch rather than a dozen per charge.

let gateway: ServiceUnderTest;
const merchants: Array<{ merchantId: string; token: string }> = [];
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
  for (const name of ['Gym Asunción', 'Club Encarnación']) {
    const merchant = await createMerchant(gateway, name);
    merchants.push(merchant);
    // One endpoint taking everything, one taking two kinds only: the deliveries differ by kind.
    await createEndpoint(gateway, merchant.token, { url: 'http://127.0.0.1:9/all', events: ['*'] });
    await createEndpoint(gateway, merchant.token, {
      url: 'http://127.0.0.1:9/some',
      events: ['PAYMENT_SUCCESS', 'SUBSCRIPTION_CANCELLED'],
    });
  }
});
afterAll(async () => {
  await gateway?.stop();
});

const asMessage = (event: { id: string; type: EventType }): DeliveredMessage => ({
  id: event.id,
  type: event.type,
  body: JSON.stringify(event),
  headers: {},
  attempt: 1,
});

/** The messages `publishEveryKind` publishes, kept instead of sent. */
async function storyOf(merchantId: string) {
  const messages: DeliveredMessage[] = [];
  const bus = {
    async publish(message: { id: string; type: string; body: string }) {
      messages.push({ ...message, headers: {}, attempt: 1 });
    },
  } as unknown as MessageBus;
  const ids = await publishEveryKind(bus, merchantId);
  return { messages, ...ids };
}

let clock = Date.parse('2026-12-05T09:00:00Z');
const nextAt = () => {
  clock += 1000;
  return new Date(clock);
};

/**
 * A charge of the automatic debit as the gateway hears of it: its `installment.paid`, with the charge's
 * transaction as subscriptions sends it (the authorization code, else the charge id); a bank transfer's
 * has its reference instead.
 */
function charge(
  merchantId: string,
  subscriptionId: number,
  installmentId: number,
  number: number,
  options: { authorizationCode?: string | null; bankReference?: string | null } = {},
) {
  const authorizationCode =
    options.authorizationCode === undefined ? `AUTH-${installmentId}` : options.authorizationCode;
  const byTransfer = Boolean(options.bankReference);
  const paid = createEvent(
    'installment.paid',
    {
      subscriptionId,
      merchantId,
      currency: 'PYG',
      timezone: 'America/Asuncion',
      installmentId,
      number,
      paymentDate: '2026-12-05',
      amount: '150000.00',
      status: 'paid',
      invoiceNumber: null,
      paidAt: '2026-12-05T09:00:00.000Z',
      method: byTransfer ? 'BANK_TRANSFER' : 'CARD',
      bankReference: options.bankReference ?? null,
      paidCount: number,
      paidTotal: String(150000 * number) + '.00',
      chargeAttempt: byTransfer ? null : 1,
      txId: byTransfer ? null : (authorizationCode ?? `charge-${installmentId}`),
    } as EventData<'installment.paid'>,
    nextAt(),
  );
  return [asMessage(paid)];
}

/** A subscription's beginning: its link created, the subscription with its installments, the first paid. */
function subscriptionStart(merchantId: string, installments: number) {
  const linkId = freshId();
  const subscriptionId = freshId();
  const installmentIds = Array.from({ length: installments }, () => freshId());
  const created = createEvent(
    'link.created',
    {
      linkId,
      merchantId,
      slug: `s${linkId}`,
      label: `Plan ${linkId}`,
      amount: '150000.00',
      currency: 'PYG',
      customIdentifier: `C-${linkId}`,
      customIdentifier2: null,
      paymentMethods: ['PARAGUAY.PROCESSOR_A'],
      timezone: 'America/Asuncion',
      createdAt: '2026-11-23T12:00:00.000Z',
      createdOn: '2026-11-23',
      recurrence: {
        type: 'STATIC',
        installmentAmount: '150000.00',
        totalPeriods: installments,
        dayOfMonth: 5,
        monthForSecondInstallment: 1,
      },
    },
    nextAt(),
  );
  const subscribed = createEvent(
    'subscription.created',
    {
      subscriptionId,
      merchantId,
      linkId,
      type: 'STATIC',
      customIdentifier: `C-${linkId}`,
      customIdentifier2: null,
      currency: 'PYG',
      timezone: 'America/Asuncion',
      status: 'pending',
      installments: installmentIds.map((installmentId, index) => ({
        installmentId,
        number: index + 1,
        paymentDate: '2026-12-05',
        amount: '150000.00',
      })),
    } as EventData<'subscription.created'>,
    nextAt(),
  );
  const linkPaid = createEvent(
    'link.paid',
    {
      linkId,
      merchantId,
      amount: '150000.00',
      currency: 'PYG',
      paidAt: '2026-11-23T12:05:00.000Z',
      txId: `LINK-${linkId}`,
      recurrent: true,
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_A',
      paymentMethodId: null,
      chargeId: null,
      customerId: null,
    },
    nextAt(),
  );
  return {
    subscriptionId,
    installmentIds,
    messages: [asMessage(created), asMessage(subscribed), asMessage(linkPaid)],
  };
}

function consumerOn(db = gateway.database.db) {
  let wakes = 0;
  const subscription = webhookEventsConsumer(db, () => {
    wakes += 1;
  });
  return { subscription, wakes: () => wakes };
}

/** Handled as the bus hands them over with a prefetch above one: gathered into batches. */
async function together(handler: (message: DeliveredMessage) => Promise<void>, messages: DeliveredMessage[]) {
  await Promise.all(messages.map((message) => handler(message)));
}

async function oneByOne(handler: (message: DeliveredMessage) => Promise<void>, messages: DeliveredMessage[]) {
  for (const message of messages) await handler(message);
}

async function rows<T>(query: ReturnType<typeof sql>) {
  return rowsOf<T>(await gateway.database.db.execute(query));
}

/** The log, its deliveries and the projection, in a form two runs can be compared by. */
async function snapshot() {
  const events = await rows<{ id: string; body: unknown }>(sql`
    select id, merchant_id, kind, ordering_key, body, created_at::text as created_at
      from gateway.webhook_events order by seq`);
  // Deliveries of one envelope have no order between them; several envelopes, the envelope's seq.
  const deliveries = await rows(sql`
    select e.id as event_id, d.endpoint_id, d.merchant_id, d.kind, d.ordering_key, d.origin, d.status,
           d.attempt_count, d.next_attempt_at::text as next_attempt_at, d.created_at::text as created_at,
           d.event_id = e.id as same_event
      from gateway.webhook_deliveries d join gateway.webhook_events e on e.seq = d.event_seq
     order by e.seq, d.endpoint_id`);
  // Each endpoint's deliveries in position order: the order the worker sends them in.
  const byEndpoint = await rows(sql`
    select endpoint_id, array_agg(event_id order by position) as events
      from gateway.webhook_deliveries group by endpoint_id order by endpoint_id`);
  const links = await rows(sql`select * from gateway.webhook_links order by link_id`);
  const subscriptions = await rows(sql`select * from gateway.webhook_subscriptions order by subscription_id`);
  const installments = await rows(sql`select * from gateway.webhook_installments order by installment_id`);
  const paidCounts = await rows(sql`select * from gateway.webhook_paid_counts order by subscription_id`);
  return { events, deliveries, byEndpoint, links, subscriptions, installments, paidCounts };
}

async function forgetEverything() {
  await gateway.database.db.execute(sql`delete from gateway.webhook_deliveries`);
  await gateway.database.db.execute(sql`delete from gateway.webhook_events`);
  await gateway.database.db.execute(sql`delete from gateway.webhook_installments`);
  await gateway.database.db.execute(sql`delete from gateway.webhook_subscriptions`);
  await gateway.database.db.execute(sql`delete from gateway.webhook_links`);
  await gateway.database.db.execute(sql`delete from gateway.webhook_paid_counts`);
  await gateway.database.db.execute(sql`delete from ${inbox} where consumer = ${WEBHOOK_EVENTS_CONSUMER}`);
}

/** Interleaves lists, each kept in its own order. */
function interleave<T>(...lists: T[][]): T[] {
  const result: T[] = [];
  const longest = Math.max(...lists.map((list) => list.length));
  for (let index = 0; index < longest; index += 1)
    for (const list of lists) if (index < list.length) result.push(list[index] as T);
  return result;
}

describe('the webhook-events consumer, batch path', () => {
  it('appends the same log, deliveries and projection as one message at a time', async () => {
    const [first, second] = merchants as [(typeof merchants)[0], (typeof merchants)[0]];
    const storyA = await storyOf(first.merchantId);
    const storyB = await storyOf(second.merchantId);
    // Charges after the stories: a payment's transaction is what its installment's envelope tells.
    const planA = subscriptionStart(first.merchantId, 3);
    const planB = subscriptionStart(second.merchantId, 3);
    const charges = [
      ...charge(first.merchantId, planA.subscriptionId, planA.installmentIds[0] as number, 1),
      ...charge(second.merchantId, planB.subscriptionId, planB.installmentIds[0] as number, 1, {
        authorizationCode: null,
      }),
      ...charge(first.merchantId, planA.subscriptionId, planA.installmentIds[1] as number, 2, {
        bankReference: 'BANK-9',
      }),
      // An installment the projection never heard of, and one paid twice.
      ...charge(second.merchantId, freshId(), freshId(), 4),
      ...charge(second.merchantId, planB.subscriptionId, planB.installmentIds[0] as number, 1),
      // Out of order: period 3's payment before period 2's, then a declined charge of the subscription.
      ...charge(second.merchantId, planB.subscriptionId, planB.installmentIds[2] as number, 3),
      ...charge(second.merchantId, planB.subscriptionId, planB.installmentIds[1] as number, 2),
      asMessage(
        createEvent(
          'payment.failed',
          {
            idempotencyKey: `installment:${planB.installmentIds[1]}:attempt:2`,
            chargeId: '0190f0c6-0000-7000-8000-000000000001',
            merchantId: second.merchantId,
            processor: 'PARAGUAY.PROCESSOR_A',
            amount: '150000.00',
            currency: 'PYG',
            installmentId: planB.installmentIds[1] as number,
            attempt: 2,
            linkId: null,
            paymentMethodId: null,
            failedAt: '2026-12-05T09:00:00.000Z',
            retryable: true,
            declineCode: '51',
            category: 'soft',
            processorReference: '000000000123',
          },
          nextAt(),
        ),
      ),
    ];
    const messages = [
      ...interleave(storyA.messages, storyB.messages, planA.messages, planB.messages),
      ...charges,
    ];
    expect(messages.length).toBeGreaterThan(WEBHOOK_EVENTS_BATCH);

    await oneByOne(consumerOn().subscription.handler, messages);
    const alone = await snapshot();
    expect(alone.events.length).toBeGreaterThan(30);
    expect(alone.deliveries.length).toBeGreaterThan(alone.events.length);
    // Each payment's envelope has the transaction its installment.paid carries.
    const paidTx = (installmentId: number) =>
      alone.events
        .map(({ body }) => (typeof body === 'string' ? JSON.parse(body) : body))
        .filter(
          (envelope) => envelope.event === 'PAYMENT_SUCCESS' && envelope.data.installmentId === installmentId,
        )
        .map((envelope) => envelope.data.txId);
    const [a1, a2] = planA.installmentIds as [number, number];
    const [b1] = planB.installmentIds as [number];
    expect(paidTx(a1)).toEqual([`AUTH-${a1}`]);
    expect(paidTx(a2)).toEqual(['BANK-9']);
    expect(paidTx(b1)).toEqual([`charge-${b1}`, `AUTH-${b1}`]);
    // Periods paid never go down in a subscription's envelopes, whatever order its payments came in.
    const envelopesOf = (subscriptionId: number) =>
      alone.events
        .map(({ body }) => (typeof body === 'string' ? JSON.parse(body) : body))
        .filter((envelope) => envelope.data.subscriptionId === subscriptionId)
        .map((envelope) => [
          envelope.event,
          envelope.data.installmentNumber,
          envelope.data.subscriptionPayedPeriod,
        ]);
    expect(envelopesOf(planB.subscriptionId)).toEqual([
      ['PAYMENT_SUCCESS', 1, 1],
      ['PAYMENT_SUCCESS', 1, 1],
      ['PAYMENT_SUCCESS', 3, 3],
      ['PAYMENT_SUCCESS', 2, 3],
      ['PAYMENT_FAILED', 2, 3],
    ]);

    await forgetEverything();
    const { subscription, wakes } = consumerOn();
    await together(subscription.handler, messages);
    // Two batches (50, then the rest), one wake each.
    expect(wakes()).toBe(2);
    expect(await snapshot()).toEqual(alone);

    // Delivered again, all of it: nothing appended twice.
    await together(
      subscription.handler,
      messages.map((message) => ({ ...message, attempt: 2 })),
    );
    expect(await snapshot()).toEqual(alone);
  });

  it("keeps the transaction an older gateway recorded for an older subscriptions' installment.paid", async () => {
    const projection = postgresWebhookProjectionStore(gateway.database.db);
    const [merchant] = merchants as [(typeof merchants)[0]];
    const plan = subscriptionStart(merchant.merchantId, 3);
    await together(consumerOn().subscription.handler, plan.messages);
    const [, second, third] = plan.installmentIds as [number, number, number];
    // What an older gateway wrote from the charge's payment.succeeded (it no longer takes that event).
    await gateway.database.db.execute(
      sql`update gateway.webhook_installments set tx_id = 'OLD-AUTH' where installment_id = ${second}`,
    );
    // Saving it again (a batch, or installments.scheduled one by one) changes its place, not its transaction.
    await projection.saveInstallments([
      { installmentId: second, subscriptionId: plan.subscriptionId, number: 2 },
    ]);
    // An older subscriptions' installment.paid carries no txId: the recorded one is told.
    const [older] = charge(merchant.merchantId, plan.subscriptionId, second, 2);
    const body = JSON.parse((older as DeliveredMessage).body);
    delete body.data.txId;
    delete body.data.chargeAttempt;
    const [newer] = charge(merchant.merchantId, plan.subscriptionId, third, 3);
    await together(consumerOn().subscription.handler, [
      { ...(older as DeliveredMessage), body: JSON.stringify(body) },
      newer as DeliveredMessage,
    ]);
    const told = await rows<{ installment: number; tx: string | null }>(sql`
      select (body::jsonb -> 'data' ->> 'installmentId')::int as installment, body::jsonb -> 'data' ->> 'txId' as tx
        from gateway.webhook_events
       where kind = 'PAYMENT_SUCCESS' and (body::jsonb -> 'data' ->> 'installmentId')::int in (${second}, ${third})
       order by seq`);
    expect(told).toEqual([
      { installment: second, tx: 'OLD-AUTH' },
      { installment: third, tx: `AUTH-${third}` },
    ]);
    expect(await projection.findInstallment(second)).toEqual({
      installmentId: second,
      subscriptionId: plan.subscriptionId,
      number: 2,
      txId: 'OLD-AUTH',
    });
  });

  it('runs a few statements per batch of charges, not a dozen per charge', async () => {
    const plans = Array.from({ length: 100 }, (_, index) =>
      subscriptionStart((merchants[index % 2] as (typeof merchants)[0]).merchantId, 6),
    );
    const { subscription } = consumerOn();
    await together(
      subscription.handler,
      plans.flatMap((plan) => plan.messages),
    );

    const counting = countingDatabase(gateway.database.db);
    const counted = consumerOn(counting.db).subscription;
    const merchantOf = (index: number) => (merchants[index % 2] as (typeof merchants)[0]).merchantId;
    const chargesOf = (number: number, from: number, to: number) =>
      plans.slice(from, to).map((plan, index) => {
        const installmentId = plan.installmentIds[number - 1] as number;
        return charge(merchantOf(from + index), plan.subscriptionId, installmentId, number);
      });

    /** Statements, client and server CPU of handling `messages` (a batch of 50). */
    async function measure(messages: DeliveredMessage[]) {
      const before = { client: process.cpuUsage(), server: await serverCpuMs() };
      counting.reset();
      await together(counted.handler, messages);
      const client = process.cpuUsage(before.client);
      return {
        statements: counting.counter.statements,
        texts: [...counting.counter.texts],
        clientCpuMs: (client.user + client.system) / 1000,
        serverCpuMs: (await serverCpuMs()) - before.server,
      };
    }

    // 50 charges' `installment.paid` a batch, several batches.
    const batches: Array<Awaited<ReturnType<typeof measure>>> = [];
    for (let number = 2; number <= 6; number += 1)
      for (let from = 0; from < 100; from += 50)
        batches.push(await measure(chargesOf(number, from, from + 50).flat()));
    const perBatch = (key: 'statements' | 'clientCpuMs' | 'serverCpuMs') =>
      batches.reduce((sum, each) => sum + each[key], 0) / batches.length;
    console.log(
      `batches of ${WEBHOOK_EVENTS_BATCH} installment.paid (${batches.length}): ${perBatch('statements').toFixed(1)} statements, ` +
        `${(perBatch('statements') / 50).toFixed(2)} per event, client CPU ${perBatch('clientCpuMs').toFixed(1)} ms, ` +
        `PostgreSQL CPU ${perBatch('serverCpuMs').toFixed(1)} ms a batch`,
    );
    // A fixed handful a batch, whatever its size: its inbox rows, the projection read, the subscriptions'
    // paid counts, the merchants' locks, the envelopes with their deliveries (the installments are written
    // only when they change: not here, the projection has them). One a message would be 50 and more.
    for (const each of batches) expect(each.statements).toBeLessThanOrEqual(5);
    // The same texts batch after batch, whatever is in them: each prepared once per connection.
    const texts = new Set(batches.flatMap((each) => each.texts));
    expect(texts.size).toBe(5);
    // Short enough to be prepared (libs/db prepares statements up to 4,000 characters).
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4000);
  });
});

describe('the webhook-events consumer, link statuses in a batch', () => {
  const cancelled = (merchantId: string, linkId: number, at: Date) =>
    createEvent(
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

  /** A batch that sets link statuses among saves: each case of what one after the other leaves. */
  function mixedBatch(merchantId: string) {
    const [paid, paidThenCancelled, paidThenCreatedAgain, paidBeforeCreated, created] = Array.from(
      { length: 5 },
      () => freshId(),
    ) as [number, number, number, number, number];
    const before = [paid, paidThenCancelled, paidThenCreatedAgain].map((linkId) =>
      asMessage(linkCreatedEvent(merchantId, linkId, `Link ${linkId}`, nextAt())),
    );
    const batch = [
      asMessage(linkPaidEvent(merchantId, paid, nextAt())),
      asMessage(linkPaidEvent(merchantId, paidThenCancelled, nextAt())),
      asMessage(cancelled(merchantId, paidThenCancelled, nextAt())),
      asMessage(linkPaidEvent(merchantId, paidThenCreatedAgain, nextAt())),
      // Created again after its payment (a redelivery of an older message): the save wins, as alone.
      asMessage(linkCreatedEvent(merchantId, paidThenCreatedAgain, 'Created again', nextAt())),
      // Paid before the projection has it: no row changed, then created with its own status.
      asMessage(linkPaidEvent(merchantId, paidBeforeCreated, nextAt())),
      asMessage(linkCreatedEvent(merchantId, paidBeforeCreated, 'Late', nextAt())),
      asMessage(linkCreatedEvent(merchantId, created, 'Created', nextAt())),
      asMessage(linkPaidEvent(merchantId, created, nextAt())),
    ];
    return { before, batch };
  }

  it('leaves the same links and log as one message at a time', async () => {
    const [merchant] = merchants as [(typeof merchants)[0]];
    const { before, batch } = mixedBatch(merchant.merchantId);
    await forgetEverything();
    await oneByOne(consumerOn().subscription.handler, before);
    await oneByOne(consumerOn().subscription.handler, batch);
    const alone = await snapshot();
    const statuses = (alone.links as Array<{ status_id: number; tx_id: string | null }>).map((link) => [
      link.status_id,
      link.tx_id,
    ]);
    // Paid (200), cancelled keeping its payment's transaction (7), created again (1, none), late (1),
    // created then paid (200).
    expect(statuses.map(([status]) => status).sort()).toEqual([1, 1, 200, 200, 7].sort());

    await forgetEverything();
    await oneByOne(consumerOn().subscription.handler, before);
    await together(consumerOn().subscription.handler, batch);
    expect(await snapshot()).toEqual(alone);
  });

  it('writes the statuses of a batch of payments in one statement, not one per payment', async () => {
    const [merchant] = merchants as [(typeof merchants)[0]];
    const linkIds = Array.from({ length: WEBHOOK_EVENTS_BATCH }, () => freshId());
    await together(
      consumerOn().subscription.handler,
      linkIds.map((linkId) =>
        asMessage(linkCreatedEvent(merchant.merchantId, linkId, `Link ${linkId}`, nextAt())),
      ),
    );
    const counting = countingDatabase(gateway.database.db);
    await together(
      consumerOn(counting.db).subscription.handler,
      linkIds.map((linkId) => asMessage(linkPaidEvent(merchant.merchantId, linkId, nextAt()))),
    );
    // Its inbox rows, the projection read, the statuses, the merchants' locks, the envelopes with their
    // deliveries: one status update a payment would be 50 more.
    expect(counting.counter.statements).toBeLessThanOrEqual(5);
    // And two round trips in its transaction besides BEGIN and COMMIT (the inbox rows with the projection
    // read, then the writes): it was five, each waiting for the gateway's event loop to send the next.
    expect(counting.counter.roundTrips).toBe(2);
    const paid = await rows<{ count: number }>(sql`
      select count(*)::int as count from gateway.webhook_links
       where link_id in (${sql.join(
         linkIds.map((linkId) => sql`${linkId}`),
         sql`, `,
       )})
         and status_id = 200 and tx_id = 'tx-' || link_id`);
    expect(paid[0]?.count).toBe(WEBHOOK_EVENTS_BATCH);
  });
});

/** CPU time the test database's PostgreSQL backends have used (milliseconds, from /proc; 0 elsewhere). */
async function serverCpuMs(): Promise<number> {
  const backends = await rows<{ pid: number }>(
    sql`select pid from pg_stat_activity where datname = current_database()`,
  );
  let ticks = 0;
  for (const { pid } of backends) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Not on this machine, or gone.
    }
  }
  return ticks * 10;
}
