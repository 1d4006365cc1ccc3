import { createEvent } from '@payrail/contracts';
import { type DatabaseHandle, openDatabase, rowsOf } from '@payrail/db';
import {
  context,
  contextFromHeaders,
  createLogger,
  currentTraceHeaders,
  metricsText,
  startTelemetry,
} from '@payrail/observability';
import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  freePort,
  testAmqpUrl,
  uniqueName,
} from '@payrail/test-infra';
import { sql } from 'drizzle-orm';
import { pgSchema } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOutboxRelay,
  createRabbitMqBus,
  type DeliveredMessage,
  enqueueEvent,
  idempotentBatchConsumer,
  idempotentConsumer,
  inboxTable,
  type MessageBus,
  outboxTable,
  relaySelectStatement,
  wakeOutboxRelay,
} from '../src/index';
import { pause, waitFor } from './wait-for';

// A throw-away schema standing in for a service's: the tables come from the same factories services use.
const schema = pgSchema('outbox_test');
const outbox = outboxTable(schema);
const inbox = inboxTable(schema);
const logger = createLogger('test', 'silent');
// The context manager and the W3C propagator, as every service's main.ts starts them.
const telemetry = startTelemetry({ serviceName: 'outbox-test' });

let testDb: TestDatabase;
let database: DatabaseHandle;
let bus: MessageBus;
const exchange = uniqueName('outbox_test_events');
const queuePrefix = `${uniqueName('outbox_test')}.`;

const linkPaid = (linkId: number) =>
  createEvent(
    'link.paid',
    {
      linkId,
      merchantId: '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f',
      amount: '100.00',
      currency: 'PYG',
      paidAt: '2026-11-22T10:00:00.000Z',
      txId: null,
      recurrent: false,
      method: 'CARD',
      processor: null,
      paymentMethodId: null,
      chargeId: null,
      customerId: null,
    },
    new Date(),
  );

beforeAll(async () => {
  testDb = await createTestDatabase('outbox');
  database = openDatabase({ url: testDb.url });
  await database.db.execute(sql`create schema outbox_test`);
  await database.db.execute(sql`create table outbox_test.outbox (
    id uuid primary key, type text not null, body text not null, headers jsonb not null,
    created_at timestamptz not null default now(), published_at timestamptz,
    attempts integer not null default 0, next_attempt_at timestamptz not null default now(), last_error text)`);
  await database.db.execute(sql`create table outbox_test.inbox (
    consumer text not null, message_id text not null, processed_at timestamptz not null default now(),
    primary key (consumer, message_id))`);
  await database.db.execute(sql`create table outbox_test.effects (message_id text not null)`);
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix, logger });
  await bus.start();
});

afterAll(async () => {
  await bus?.close();
  await deleteBrokerTopology(testAmqpUrl(), exchange, [
    `${queuePrefix}outbox-once`,
    `${queuePrefix}outbox-notify`,
    `${queuePrefix}outbox-wake`,
    `${queuePrefix}outbox-outage`,
  ]);
  await database?.close();
  await testDb?.drop();
  await telemetry.shutdown();
});

/** A relay on a one-minute poll, asleep after its first (empty) batch, and what `consumer` receives. */
async function relayAsleep(consumer: string) {
  const received: DeliveredMessage[] = [];
  await bus.subscribe({ consumer, eventTypes: ['link.paid'], handler: async (m) => void received.push(m) });
  const relay = createOutboxRelay({
    database,
    outbox,
    schemaName: 'outbox_test',
    bus,
    logger,
    pollIntervalMs: 60_000,
  });
  await relay.start();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { received, relay };
}

describe('transactional outbox', () => {
  it('publishes nothing for a rolled-back transaction, and the committed event once', async () => {
    const received: DeliveredMessage[] = [];
    await bus.subscribe({
      consumer: 'outbox-once',
      eventTypes: ['link.paid'],
      handler: async (m) => void received.push(m),
    });
    const kept = linkPaid(1);
    const rolledBack = linkPaid(2);
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, kept));
    await database.db
      .transaction(async (tx) => {
        await enqueueEvent(tx, outbox, rolledBack);
        throw new Error('the state change failed');
      })
      .catch(() => {});
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus,
      logger,
      pollIntervalMs: 100,
    });
    await relay.start();
    await waitFor(() => received.length >= 1, { what: 'the committed event' });
    await relay.runOnce();
    await relay.stop();
    expect(received.map((m) => m.id)).toEqual([kept.id]);
    // Published, so deleted: the outbox keeps only what is still to publish.
    expect(await database.db.select().from(outbox)).toEqual([]);
  });

  it('keeps published rows, marked, with keepPublished (OUTBOX_KEEP_PUBLISHED=true): a log of what was emitted', async () => {
    const events = [6, 7].map(linkPaid);
    for (const event of events) await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus,
      logger,
      keepPublished: true,
    });
    expect(await relay.runOnce()).toBe(2);
    const rows = rowsOf<{ id: string; published: boolean }>(
      await database.db.execute(
        sql`select id, published_at is not null as published from outbox_test.outbox`,
      ),
    );
    expect(rows.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      events.map((event) => ({ id: event.id, published: true })).sort((a, b) => a.id.localeCompare(b.id)),
    );
    // Published already: a relay that deletes finds nothing to send, and leaves them.
    expect(
      await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce(),
    ).toBe(0);
    await database.db.execute(sql`delete from outbox_test.outbox`);
  });

  it('publishes up to 500 rows in one batch by default (one transaction, one wait for confirms, one delete)', async () => {
    await database.db.transaction(async (tx) => {
      for (let linkId = 1; linkId <= 600; linkId += 1) await enqueueEvent(tx, outbox, linkPaid(linkId));
    });
    const relay = createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger });
    expect(await relay.runOnce()).toBe(500);
    expect(await relay.runOnce()).toBe(100);
    expect(await database.db.select().from(outbox)).toEqual([]);
  });

  it('stores the event as the relay reads it: its body, the trace headers as a JSON object, due now', async () => {
    const event = linkPaid(5);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const traced = contextFromHeaders({ traceparent });
    await database.db.transaction(async (tx) => context.with(traced, () => enqueueEvent(tx, outbox, event)));
    const rows = await database.db.execute(
      sql`select type, body, jsonb_typeof(headers) as kind, headers, attempts, published_at,
                 next_attempt_at <= now() as due
          from outbox_test.outbox where id = ${event.id}`,
    );
    expect(rowsOf(rows)).toEqual([
      {
        type: 'link.paid',
        body: JSON.stringify(event),
        kind: 'object',
        headers: expect.objectContaining({
          traceparent: expect.stringMatching(/^00-0af7651916cd43dd8448eb211c80319c-/),
        }),
        attempts: 0,
        published_at: null,
        due: true,
      },
    ]);
    // Published here so that the batch tests below find only their own rows.
    await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce();
  });

  it('is woken by NOTIFY at commit rather than waiting for the poll', async () => {
    const { received, relay } = await relayAsleep('outbox-notify');
    const event = linkPaid(3);
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    await waitFor(() => received.some((m) => m.id === event.id), {
      timeoutMs: 5_000,
      what: 'a NOTIFY-woken publish',
    });
    await relay.stop();
  });

  it('is woken in-process for a row committed without a NOTIFY, and only by that', async () => {
    const { received, relay } = await relayAsleep('outbox-wake');
    // A row written as the links service writes a new link's event: committed, no NOTIFY.
    const event = linkPaid(4);
    await database.db.execute(sql`insert into outbox_test.outbox (id, type, body, headers)
      values (${event.id}::uuid, ${event.type}, ${JSON.stringify(event)}, '{}'::jsonb)`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received.some((m) => m.id === event.id)).toBe(false);
    // Another schema's wake is not this relay's.
    wakeOutboxRelay('another_schema');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.some((m) => m.id === event.id)).toBe(false);
    wakeOutboxRelay('outbox_test');
    await waitFor(() => received.some((m) => m.id === event.id), {
      timeoutMs: 5_000,
      what: 'an in-process woken publish',
    });
    await relay.stop();
  });

  it('keeps a row whose publish failed and retries it with backoff', async () => {
    const failing: MessageBus = {
      ...bus,
      publish: async () => Promise.reject(new Error('broker unavailable')),
    };
    const event = linkPaid(4);
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus: failing,
      logger,
      backoffMs: () => 0,
    });
    expect(await relay.runOnce()).toBe(0);
    const rows = await database.db.execute(
      sql`select attempts, last_error, published_at from outbox_test.outbox where id = ${event.id}`,
    );
    const row = (Array.isArray(rows) ? rows[0] : undefined) as {
      attempts: number;
      last_error: string;
      published_at: unknown;
    };
    expect(row).toMatchObject({ attempts: 1, last_error: 'broker unavailable', published_at: null });
    const healthy = createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger });
    expect(await healthy.runOnce()).toBe(1);
  });
});

describe('outbox relay batches', () => {
  it('publishes a batch at once, waits for every confirm, and deletes only the confirmed rows', async () => {
    // Drain what earlier tests left, so the batch below is exactly these five rows.
    await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce();
    const events = [10, 11, 12, 13, 14].map(linkPaid);
    for (const event of events) await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    const refused = events[2]?.id;
    let inFlight = 0;
    let mostInFlight = 0;
    const confirms: Array<() => void> = [];
    const slowBroker: MessageBus = {
      ...bus,
      publish: async (message) => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Confirms arrive only once the whole batch is out: a relay waiting row by row would hang here.
        await new Promise<void>((resolve) => {
          confirms.push(resolve);
          if (confirms.length === events.length) for (const confirm of confirms) confirm();
        });
        inFlight -= 1;
        if (message.id === refused) throw new Error('nack');
      },
    };
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus: slowBroker,
      logger,
      backoffMs: () => 60_000,
    });
    expect(await relay.runOnce()).toBe(4);
    expect(mostInFlight).toBe(5);
    const rows = rowsOf<{ id: string; published: boolean; attempts: number }>(
      await database.db.execute(
        sql`select id, published_at is not null as published, attempts from outbox_test.outbox
            where id in ${sql.raw(`(${events.map((e) => `'${e.id}'`).join(',')})`)}`,
      ),
    );
    // The four confirmed rows are gone; the refused one waits for its retry, unpublished.
    expect(rows).toEqual([{ id: refused, published: false, attempts: 1 }]);
  });

  it('lets two relays (replicas) share the rows without publishing one twice, even while a batch waits for confirms', async () => {
    await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce();
    const events = [30, 31, 32, 33].map(linkPaid);
    for (const event of events) await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    const published: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first relay's broker holds every confirm until the second relay has run its own batch.
    const slow: MessageBus = {
      ...bus,
      publish: async (message) => {
        published.push(message.id);
        await held;
      },
    };
    const quick: MessageBus = { ...bus, publish: async (message) => void published.push(message.id) };
    const first = createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus: slow, logger });
    const second = createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus: quick, logger });
    const firstBatch = first.runOnce();
    await waitFor(() => published.length === events.length, { what: 'the first batch out' });
    expect(await second.runOnce()).toBe(0);
    release();
    expect(await firstBatch).toBe(events.length);
    expect(await second.runOnce()).toBe(0);
    expect(published.sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('publishes the rows of a relay that died mid-batch as soon as its connection is gone', async () => {
    await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce();
    const event = linkPaid(40);
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    // Its broker never confirms: the batch never ends (as when the process is killed), on its own connection.
    const dying = openDatabase({ url: testDb.url, max: 1 });
    let publishing = false;
    const hung: MessageBus = {
      ...bus,
      publish: () => {
        publishing = true;
        return new Promise<void>(() => {});
      },
    };
    void createOutboxRelay({ database: dying, outbox, schemaName: 'outbox_test', bus: hung, logger })
      .runOnce()
      .catch(() => {});
    await waitFor(() => publishing, { what: 'the hung batch to lock the row' });
    const published: string[] = [];
    const quick: MessageBus = { ...bus, publish: async (message) => void published.push(message.id) };
    const other = createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus: quick, logger });
    expect(await other.runOnce()).toBe(0);
    await dying.close();
    // PostgreSQL ends the dead session's transaction once it sees the socket closed.
    await waitFor(async () => (await other.runOnce()) === 1, { timeoutMs: 5_000, what: 'the row released' });
    expect(published).toEqual([event.id]);
  });

  it('gathers the rows of NOTIFYs that come close together into one batch', async () => {
    await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce();
    const batches: number[] = [];
    let inBatch = 0;
    const counting: MessageBus = {
      ...bus,
      publish: async () => {
        // Every publish of a batch starts before the first of them settles.
        if (inBatch === 0)
          queueMicrotask(() => {
            batches.push(inBatch);
            inBatch = 0;
          });
        inBatch += 1;
      },
    };
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus: counting,
      logger,
      pollIntervalMs: 60_000,
      gatherMs: 300,
    });
    await relay.start();
    await pause(200);
    const events = [50, 51, 52].map(linkPaid);
    for (const event of events) {
      await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
      await pause(50);
    }
    await waitFor(() => batches.reduce((sum, n) => sum + n, 0) === events.length, { what: 'the batch' });
    await relay.stop();
    expect(batches).toEqual([3]);
  });

  it('runs another batch at once for a NOTIFY that came while a batch was publishing', async () => {
    await createOutboxRelay({ database, outbox, schemaName: 'outbox_test', bus, logger }).runOnce();
    const published: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holdingFirst: MessageBus = {
      ...bus,
      publish: async (message) => {
        published.push(message.id);
        if (published.length === 1) await held;
      },
    };
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus: holdingFirst,
      logger,
      pollIntervalMs: 60_000,
    });
    await relay.start();
    await pause(200);
    const [first, second] = [60, 61].map(linkPaid);
    if (!first || !second) throw new Error('two events');
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, first));
    await waitFor(() => published.length === 1, { what: 'the first batch out' });
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, second));
    await pause(200);
    release();
    await waitFor(() => published.includes(second.id), {
      timeoutMs: 5_000,
      what: 'the second row without the poll',
    });
    await relay.stop();
    expect(published).toEqual([first.id, second.id]);
  });

  it('shows its backlog and the age of the oldest unpublished row on /metrics while it runs', async () => {
    const event = linkPaid(20);
    await database.db.transaction(async (tx) => enqueueEvent(tx, outbox, event));
    const broken: MessageBus = { ...bus, publish: async () => Promise.reject(new Error('down')) };
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'outbox_test',
      bus: broken,
      logger,
      pollIntervalMs: 60_000,
      backoffMs: () => 60_000,
    });
    await relay.start();
    const [expected] = rowsOf<{ n: number }>(
      await database.db.execute(
        sql`select count(*)::int as n from outbox_test.outbox where published_at is null`,
      ),
    );
    const text = await metricsText();
    await relay.stop();
    const backlog = text.match(/^payrail_outbox_backlog\{service="outbox-test"\} (\d+)$/m);
    expect(Number(backlog?.[1])).toBe(expected?.n);
    expect(expected?.n).toBeGreaterThanOrEqual(1);
    const age = text.match(
      /^payrail_outbox_oldest_unpublished_age_seconds\{service="outbox-test"\} ([\d.e-]+)$/m,
    );
    expect(Number(age?.[1])).toBeGreaterThan(0);
    // Once stopped, the relay's series are gone from the scrape.
    expect(await metricsText()).not.toContain('service="outbox-test"');
  });
});

describe('inbox (idempotent consumer)', () => {
  it('runs the handler once for a message delivered twice', async () => {
    const handler = idempotentConsumer({
      db: database.db,
      inbox,
      consumer: 'test.effects',
      async handle(tx, message) {
        await tx.execute(sql`insert into outbox_test.effects (message_id) values (${message.id})`);
      },
    });
    const message: DeliveredMessage = { id: 'm-1', type: 'link.paid', body: '{}', headers: {}, attempt: 1 };
    await handler(message);
    await handler({ ...message, attempt: 2 });
    const effects = await database.db.execute(
      sql`select count(*)::int as n from outbox_test.effects where message_id = 'm-1'`,
    );
    expect((effects as unknown as Array<{ n: number }>)[0]?.n).toBe(1);
  });

  it('records nothing when the handler fails, so the retry runs it again', async () => {
    let calls = 0;
    const handler = idempotentConsumer({
      db: database.db,
      inbox,
      consumer: 'test.flaky',
      async handle(tx, message) {
        calls += 1;
        await tx.execute(sql`insert into outbox_test.effects (message_id) values (${message.id})`);
        if (calls === 1) throw new Error('transient');
      },
    });
    const message: DeliveredMessage = { id: 'm-2', type: 'link.paid', body: '{}', headers: {}, attempt: 1 };
    await expect(handler(message)).rejects.toThrow('transient');
    await handler({ ...message, attempt: 2 });
    const effects = await database.db.execute(
      sql`select count(*)::int as n from outbox_test.effects where message_id = 'm-2'`,
    );
    expect((effects as unknown as Array<{ n: number }>)[0]?.n).toBe(1);
    expect(calls).toBe(2);
  });
});

describe('a consumer while its database is unreachable', () => {
  it('keeps the message through retries for as long as the outage lasts, past maxAttempts, and handles it once back', async () => {
    // The database the consumer reaches: first a port nothing listens on (refused at once, as a server being
    // restarted or failed over), then, after more tries than maxAttempts allows, the real one again.
    const port = await freePort();
    const down = openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 1 });
    let reached = down;
    const consumer = 'outbox-outage';
    const tries: number[] = [];
    const errors: string[] = [];
    try {
      await bus.subscribe({
        consumer,
        eventTypes: ['link.paid'],
        maxAttempts: 2,
        retryDelayMs: 50,
        handler: async (message) => {
          tries.push(message.attempt);
          if (tries.length === 6) reached = database;
          await idempotentConsumer({
            db: reached.db,
            inbox,
            consumer,
            async handle(tx, delivered) {
              await tx.execute(sql`insert into outbox_test.effects (message_id) values (${delivered.id})`);
            },
          })(message).catch((error: Error) => {
            errors.push((error as { code?: string }).code ?? error.message);
            throw error;
          });
        },
      });
      const event = linkPaid(9_001);
      await bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
      const handled = async () =>
        rowsOf<{ n: number }>(
          await database.db.execute(
            sql`select count(*)::int as n from outbox_test.effects where message_id = ${event.id}`,
          ),
        )[0]?.n === 1;
      await waitFor(handled, { what: 'the message handled once the database is back', timeoutMs: 15_000 });
      // Five tries refused by postgres.js, each still attempt 1: the outage spent none of the two it has.
      expect(errors).toEqual([
        'ECONNREFUSED',
        'ECONNREFUSED',
        'ECONNREFUSED',
        'ECONNREFUSED',
        'ECONNREFUSED',
      ]);
      expect(tries).toEqual([1, 1, 1, 1, 1, 1]);
      await pause(200);
      expect(await bus.drainDeadLetters(consumer)).toEqual([]);
    } finally {
      await down.close();
    }
  });
});

describe('inbox, batch path (idempotent batch consumer)', () => {
  const effectCount = async (messageId: string) => {
    const rows = await database.db.execute(
      sql`select count(*)::int as n from outbox_test.effects where message_id = ${messageId}`,
    );
    return (rows as unknown as Array<{ n: number }>)[0]?.n ?? 0;
  };
  const delivered = (id: string, headers: Record<string, string> = {}): DeliveredMessage => ({
    id,
    type: 'link.paid',
    body: '{}',
    headers,
    attempt: 1,
  });

  it('handles a batch in one call and one transaction, leaving out what the inbox already has and an id given twice', async () => {
    const calls: string[][] = [];
    const handler = idempotentBatchConsumer({
      db: database.db,
      inbox,
      consumer: 'test.batch-effects',
      maxBatch: 4,
      gatherMs: 1_000,
      async handle(tx, items) {
        calls.push(items.map((item) => item.message.id));
        for (const item of items) {
          await tx.execute(sql`insert into outbox_test.effects (message_id) values (${item.message.id})`);
        }
      },
    });
    // b-1 handled before (a batch of one, after the gathering time).
    await handler(delivered('b-1'));
    await Promise.all([
      handler(delivered('b-1')),
      handler(delivered('b-2')),
      handler(delivered('b-2')),
      handler(delivered('b-3')),
    ]);
    expect(calls).toEqual([['b-1'], ['b-2', 'b-3']]);
    expect([await effectCount('b-1'), await effectCount('b-2'), await effectCount('b-3')]).toEqual([1, 1, 1]);
  });

  it('keeps nothing of a failed batch and handles each message alone: only the poison one fails', async () => {
    const calls: string[][] = [];
    const handler = idempotentBatchConsumer({
      db: database.db,
      inbox,
      consumer: 'test.batch-poison',
      maxBatch: 3,
      gatherMs: 1_000,
      async handle(tx, items) {
        calls.push(items.map((item) => item.message.id));
        for (const item of items) {
          await tx.execute(sql`insert into outbox_test.effects (message_id) values (${item.message.id})`);
          if (item.message.id === 'p-2') throw new Error('poison');
        }
      },
    });
    const results = await Promise.allSettled([
      handler(delivered('p-1')),
      handler(delivered('p-2')),
      handler(delivered('p-3')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls[0]).toEqual(['p-1', 'p-2', 'p-3']);
    expect(calls.slice(1).sort()).toEqual([['p-1'], ['p-2'], ['p-3']]);
    expect([await effectCount('p-1'), await effectCount('p-2'), await effectCount('p-3')]).toEqual([1, 0, 1]);
    const inboxed = await database.db.execute(
      sql`select message_id from outbox_test.inbox where consumer = 'test.batch-poison' order by message_id`,
    );
    expect((inboxed as unknown as Array<{ message_id: string }>).map((row) => row.message_id)).toEqual([
      'p-1',
      'p-3',
    ]);
  });

  it("runs each message's work in its own consumer span, a child of the message's publisher", async () => {
    const traceIds = ['a'.repeat(32), 'b'.repeat(32)];
    const seen = new Map<string, string>();
    const handler = idempotentBatchConsumer({
      db: database.db,
      inbox,
      consumer: 'test.batch-traces',
      maxBatch: 2,
      gatherMs: 1_000,
      async handle(_tx, items) {
        expect(items).toHaveLength(2);
        for (const item of items) {
          seen.set(
            item.message.id,
            item.run(() => currentTraceHeaders().traceparent ?? ''),
          );
        }
      },
    });
    await Promise.all(
      traceIds.map((traceId, index) =>
        handler(delivered(`t-${index}`, { traceparent: `00-${traceId}-${'1'.repeat(15)}${index}-01` })),
      ),
    );
    traceIds.forEach((traceId, index) => {
      const traceparent = seen.get(`t-${index}`) ?? '';
      // Same trace, a new span (the consumer's), not the publisher's.
      expect(traceparent.split('-')[1]).toBe(traceId);
      expect(traceparent.split('-')[2]).not.toBe(`${'1'.repeat(15)}${index}`);
    });
  });
});

describe('the relay on a long backlog', () => {
  it('reads a batch off outbox_unpublished_idx in its order and stops there, not sorting every row waiting', async () => {
    // The services' migrations give each outbox this partial index (outboxTable's definition).
    const backlog = outboxTable(pgSchema('outbox_backlog'));
    await database.db.execute(sql`create schema outbox_backlog`);
    await database.db.execute(
      sql`create table outbox_backlog.outbox (like outbox_test.outbox including all)`,
    );
    await database.db.execute(sql`create index outbox_unpublished_idx on outbox_backlog.outbox (next_attempt_at)
      where published_at is null`);
    // A run's worth of charge-due rows waiting, as after an as-of run claimed them.
    await database.db.execute(sql`insert into outbox_backlog.outbox (id, type, body, headers, created_at, next_attempt_at)
      select gen_random_uuid(), 'installment.charge-due', repeat('x', 300), '{}',
             now() - make_interval(secs => g / 1000.0), now() - make_interval(secs => g / 1000.0)
      from generate_series(1, 20000) g`);
    await database.db.execute(sql`analyze outbox_backlog.outbox`);
    const plan = rowsOf<{ 'QUERY PLAN': unknown }>(
      await database.db.execute(
        sql.raw(`explain (format json) ${relaySelectStatement(backlog).replace('$1::int', '100')}`),
      ),
    );
    const text = JSON.stringify(plan);
    expect(text).toContain('outbox_unpublished_idx');
    expect(text).not.toContain('"Sort"');
    expect(text).not.toContain('Seq Scan');
  });
});
