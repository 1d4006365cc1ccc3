import { randomUUID } from 'node:crypto';
import { tcpProxy, testAmqpUrl, uniqueName, type TcpProxy } from '@payrail/test-infra';
import { connect } from 'amqplib';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveredMessage, MessageBus, OutgoingMessage, Subscription } from '../src/bus';
import { createRabbitMqBus, type RabbitMqBusOptions } from '../src/rabbitmq-bus';
import { busContract } from './bus.contract';
import { gate, waitFor } from './wait-for';

/** What one test declared on the broker, so cleanup can delete exactly that. */
interface Topology {
  exchange: string;
  queuePrefix: string;
  consumers: Set<string>;
}

function newTopology(): Topology {
  return {
    exchange: uniqueName('bus_test'),
    queuePrefix: `${uniqueName('bus_test')}.`,
    consumers: new Set(),
  };
}

async function deleteTopology(topology: Topology): Promise<void> {
  const model = await connect(testAmqpUrl());
  try {
    const channel = await model.createChannel();
    for (const consumer of topology.consumers) {
      const queue = `${topology.queuePrefix}${consumer}`;
      for (const name of [queue, `${queue}.retry`, `${queue}.dlq`]) await channel.deleteQueue(name);
    }
    await channel.deleteExchange(topology.exchange);
    await channel.close();
  } finally {
    await model.close();
  }
}

/** Delegates to `bus`, noting each consumer name so that its queues can be deleted afterwards. */
function recordingConsumers(bus: MessageBus, topology: Topology): MessageBus {
  return {
    start: () => bus.start(),
    publish: (message) => bus.publish(message),
    subscribe: (subscription: Subscription) => {
      topology.consumers.add(subscription.consumer);
      return bus.subscribe(subscription);
    },
    stopConsuming: () => bus.stopConsuming(),
    close: () => bus.close(),
    isReady: () => bus.isReady(),
    drainDeadLetters: (consumer) => bus.drainDeadLetters(consumer),
  };
}

busContract('RabbitMQ', async () => {
  const topology = newTopology();
  const bus = createRabbitMqBus({
    url: testAmqpUrl(),
    exchange: topology.exchange,
    queuePrefix: topology.queuePrefix,
    reconnectDelayMs: 50,
  });
  return {
    bus: recordingConsumers(bus, topology),
    async cleanup() {
      // Closed first: a live bus would re-declare the queues we delete.
      await bus.close();
      await deleteTopology(topology);
    },
  };
});

function message(type: string): OutgoingMessage {
  const id = randomUUID();
  return { id, type, body: JSON.stringify({ id }) };
}

describe('RabbitMQ bus on a real broker', () => {
  const cleanups: Array<() => Promise<void>> = [];
  let topology: Topology;

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function setUp(): void {
    topology = newTopology();
    cleanups.push(() => deleteTopology(topology));
  }

  function busFor(options: Partial<RabbitMqBusOptions> = {}): MessageBus {
    const bus = createRabbitMqBus({
      url: testAmqpUrl(),
      exchange: topology.exchange,
      queuePrefix: topology.queuePrefix,
      reconnectDelayMs: 50,
      ...options,
    });
    cleanups.push(() => bus.close());
    return recordingConsumers(bus, topology);
  }

  async function proxyToBroker(): Promise<{ proxy: TcpProxy; url: string }> {
    const broker = new URL(testAmqpUrl());
    const proxy = await tcpProxy(broker.hostname, Number(broker.port || 5672));
    cleanups.push(() => proxy.close());
    const url = new URL(broker);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return { proxy, url: url.toString() };
  }

  it('reconnects by itself after the connection drops, resumes consuming and handles messages published during and after the outage', async () => {
    setUp();
    const { proxy, url } = await proxyToBroker();
    const bus = busFor({ url });
    await bus.start();
    const received: string[] = [];
    await bus.subscribe({
      consumer: 'payments',
      eventTypes: ['link.paid'],
      handler: async (delivered) => {
        received.push(delivered.id);
      },
    });
    const before = message('link.paid');
    await bus.publish(before);
    await waitFor(() => received.includes(before.id), { what: 'the message before the drop' });

    // Refuse reconnections for a moment, so the outage is long enough to observe.
    proxy.pause();
    proxy.cutConnections();
    await waitFor(() => !bus.isReady(), { what: 'isReady() to turn false' });

    // A publish during the outage waits for the reconnection instead of failing at once.
    const during = message('link.paid');
    const publishing = bus.publish(during);
    proxy.resume();
    await waitFor(() => bus.isReady(), { what: 'the bus to reconnect' });
    await publishing;

    const after = message('link.paid');
    await bus.publish(after);
    await waitFor(() => received.includes(during.id) && received.includes(after.id), {
      what: 'the messages published during and after the outage',
    });
    // At least once: when the cut comes after the handler ran but before its ack reached the broker,
    // `before` comes again (that redelivery is the subject of its own test below).
    expect([...new Set(received)]).toEqual([before.id, during.id, after.id]);
  });

  it('rejects a publish once the broker has been unreachable for publishTimeoutMs', async () => {
    setUp();
    const { proxy, url } = await proxyToBroker();
    const bus = busFor({ url, publishTimeoutMs: 300 });
    await bus.start();
    proxy.pause();
    proxy.cutConnections();
    await waitFor(() => !bus.isReady(), { what: 'isReady() to turn false' });

    const startedAt = Date.now();
    await expect(bus.publish(message('link.paid'))).rejects.toThrow(/Not connected to RabbitMQ/);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);

    proxy.resume();
    await waitFor(() => bus.isReady(), { what: 'the bus to reconnect' });
    await expect(bus.publish(message('link.paid'))).resolves.toBeUndefined();
  });

  it('keeps messages published while a consumer is down in its durable queue, for the next instance', async () => {
    setUp();
    const firstInstance = busFor();
    await firstInstance.start();
    const seenByFirst: string[] = [];
    await firstInstance.subscribe({
      consumer: 'ledger',
      eventTypes: ['link.paid'],
      handler: async (delivered) => {
        seenByFirst.push(delivered.id);
      },
    });
    await firstInstance.close();

    const publisher = busFor();
    await publisher.start();
    const whileDown = message('link.paid');
    await publisher.publish(whileDown);

    const nextInstance = busFor();
    await nextInstance.start();
    const seenByNext: DeliveredMessage[] = [];
    await nextInstance.subscribe({
      consumer: 'ledger',
      eventTypes: ['link.paid'],
      handler: async (delivered) => {
        seenByNext.push(delivered);
      },
    });
    await waitFor(() => seenByNext.length === 1, { what: 'the message kept in the durable queue' });
    expect(seenByNext[0]).toMatchObject({ id: whileDown.id, body: whileDown.body, attempt: 1 });
    expect(seenByFirst).toEqual([]);
  });

  it.each([
    [
      'with retiredEventTypes, no longer gets what it narrowed away',
      ['link.created'],
      ['recurrent', 'fence'],
    ],
    ['without, still gets it through the old binding', [], ['one-off', 'recurrent', 'fence']],
  ])(
    'a consumer narrowed by an upgrade (link.created to link.created.recurrent) %s',
    async (_, retired, expected) => {
      setUp();
      // The older version, bound to the whole type, declared the queue.
      const older = busFor();
      await older.start();
      await older.subscribe({
        consumer: 'narrowed',
        eventTypes: ['link.created'],
        handler: async () => undefined,
      });
      await older.close();

      const upgraded = busFor();
      await upgraded.start();
      const received: string[] = [];
      await upgraded.subscribe({
        consumer: 'narrowed',
        eventTypes: ['link.created.recurrent', 'test.fence'],
        retiredEventTypes: retired,
        handler: async (delivered) => {
          received.push(
            delivered.type === 'test.fence' ? 'fence' : (JSON.parse(delivered.body).data.slug as string),
          );
        },
        prefetch: 1,
      });
      const linkCreated = (slug: string, recurrence: unknown): OutgoingMessage => ({
        ...message('link.created'),
        body: JSON.stringify({ type: 'link.created', data: { slug, recurrence } }),
      });
      await upgraded.publish(linkCreated('one-off', null));
      await upgraded.publish(linkCreated('recurrent', { type: 'STATIC' }));
      await upgraded.publish(message('test.fence'));
      await waitFor(() => received.includes('fence'), { what: 'the fence' });
      expect(received).toEqual(expected);
    },
  );

  it('redelivers a message whose handler was cut off by a connection drop: same id, handled again', async () => {
    setUp();
    const { proxy, url } = await proxyToBroker();
    const bus = busFor({ url });
    await bus.start();
    const firstTry = gate();
    const calls: DeliveredMessage[] = [];
    await bus.subscribe({
      consumer: 'fulfilment',
      eventTypes: ['link.paid'],
      handler: async (delivered) => {
        calls.push(delivered);
        // The first call is still running when the connection goes; its ack can no longer reach
        // the broker, which must hand the message out again rather than lose it.
        if (calls.length === 1) await firstTry.promise;
      },
    });
    const sent = message('link.paid');
    await bus.publish(sent);
    await waitFor(() => calls.length === 1, { what: 'the first delivery' });

    proxy.cutConnections();
    await waitFor(() => calls.length === 2, { what: 'the redelivery after reconnecting' });
    firstTry.open();

    expect(calls.map((call) => call.id)).toEqual([sent.id, sent.id]);
    // A redelivery is not a retry after a handler failure: the attempt number is unchanged.
    expect(calls[1]?.attempt).toBe(1);
    await bus.stopConsuming();
    expect(await bus.drainDeadLetters('fulfilment')).toEqual([]);
  });

  it('delivers a message published twice with the same id twice (de-duplication is the inbox’s job)', async () => {
    setUp();
    const bus = busFor();
    await bus.start();
    const ids: string[] = [];
    await bus.subscribe({
      consumer: 'dupes',
      eventTypes: ['link.paid'],
      handler: async (delivered) => {
        ids.push(delivered.id);
      },
    });
    const sent = message('link.paid');
    await bus.publish(sent);
    await bus.publish(sent);
    await waitFor(() => ids.length === 2, { what: 'both copies' });
    expect(ids).toEqual([sent.id, sent.id]);
  });

  it('re-consumes when the broker cancels the consumer (its queue was deleted), and says so in isReady()', async () => {
    setUp();
    // Long enough a recovery delay for the not-ready window to be observed.
    const bus = busFor({ reconnectDelayMs: 300 });
    await bus.start();
    const received: string[] = [];
    await bus.subscribe({
      consumer: 'renewals',
      eventTypes: ['subscription.renewed'],
      handler: async (delivered) => {
        received.push(delivered.id);
      },
    });
    expect(bus.isReady()).toBe(true);

    const admin = await connect(testAmqpUrl());
    try {
      const channel = await admin.createChannel();
      await channel.deleteQueue(`${topology.queuePrefix}renewals`);
      await channel.close();
    } finally {
      await admin.close();
    }
    await waitFor(() => !bus.isReady(), { what: 'isReady() to turn false after the cancel' });
    await waitFor(() => bus.isReady(), { what: 'the consumer to be re-established' });

    const sent = message('subscription.renewed');
    await bus.publish(sent);
    await waitFor(() => received.includes(sent.id), { what: 'a message on the re-declared queue' });
  });

  describe('bundles: neighbours of one routing key published together travel as one AMQP message', () => {
    async function started(options: Partial<RabbitMqBusOptions> = {}): Promise<MessageBus> {
      setUp();
      const bus = busFor(options);
      await bus.start();
      return bus;
    }

    /** What the broker carries on the exchange: each AMQP message's type and bundle size. */
    async function spy(): Promise<Array<{ type: string; size: number }>> {
      const model = await connect(testAmqpUrl());
      cleanups.push(() => model.close());
      const channel = await model.createChannel();
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
      await channel.bindQueue(queue, topology.exchange, '#');
      const seen: Array<{ type: string; size: number }> = [];
      await channel.consume(
        queue,
        (raw) => {
          if (raw)
            seen.push({
              type: String(raw.properties.type),
              size: Number(raw.properties.headers?.['x-bundle-size'] ?? 1),
            });
        },
        { noAck: true },
      );
      return seen;
    }

    it('120 events at once are 3 messages on the broker; the consumer gets each event once, in order, as its own message', async () => {
      const bus = await started();
      const carried = await spy();
      const received: DeliveredMessage[] = [];
      await bus.subscribe({
        consumer: 'bundled',
        eventTypes: ['charge.requested'],
        prefetch: 1,
        handler: async (delivered) => {
          received.push(delivered);
        },
      });
      const sent = Array.from({ length: 120 }, () => ({
        ...message('charge.requested'),
        headers: { traceparent: `00-${randomUUID().replace(/-/g, '')}-0000000000000001-01` },
      }));
      await Promise.all(sent.map((each) => bus.publish(each)));
      await waitFor(() => received.length === 120, { what: '120 events' });
      expect(received.map((each) => each.id)).toEqual(sent.map((each) => each.id));
      expect(received.map((each) => [each.type, each.body, each.headers.traceparent, each.attempt])).toEqual(
        sent.map((each) => ['charge.requested', each.body, each.headers.traceparent, 1]),
      );
      await waitFor(() => carried.length === 3, { what: 'the spy' });
      expect(carried).toEqual([
        { type: 'payrail.bundle', size: 50 },
        { type: 'payrail.bundle', size: 50 },
        { type: 'payrail.bundle', size: 20 },
      ]);
    });

    it('keeps publishing order across keys: only neighbours share a bundle, and a consumer of both gets them in order', async () => {
      const bus = await started();
      const carried = await spy();
      const received: string[] = [];
      await bus.subscribe({
        consumer: 'ordered',
        eventTypes: ['installments.updated', 'installment.paid'],
        prefetch: 1,
        handler: async (delivered) => {
          received.push(delivered.id);
        },
      });
      const sent = [
        message('installments.updated'),
        message('installments.updated'),
        message('installment.paid'),
        message('installments.updated'),
      ];
      await Promise.all(sent.map((each) => bus.publish(each)));
      await waitFor(() => received.length === 4, { what: 'four events' });
      expect(received).toEqual(sent.map((each) => each.id));
      await waitFor(() => carried.length === 3, { what: 'the spy' });
      expect(carried.map((each) => each.size)).toEqual([2, 1, 1]);
      expect(carried.map((each) => each.type)).toEqual([
        'payrail.bundle',
        'installment.paid',
        'installments.updated',
      ]);
    });

    it('retries a failed event of a bundle alone, and dead-letters it alone; the others are handled once', async () => {
      const bus = await started();
      const sent = Array.from({ length: 10 }, () => message('payment.failed'));
      const [flaky, poison] = [sent[3], sent[7]] as [OutgoingMessage, OutgoingMessage];
      const calls: DeliveredMessage[] = [];
      await bus.subscribe({
        consumer: 'picky',
        eventTypes: ['payment.failed'],
        maxAttempts: 2,
        retryDelayMs: 50,
        handler: async (delivered) => {
          calls.push(delivered);
          if (delivered.id === poison.id) throw new Error('poison');
          if (delivered.id === flaky.id && delivered.attempt === 1) throw new Error('not yet');
        },
      });
      await Promise.all(sent.map((each) => bus.publish(each)));
      await waitFor(() => calls.filter((call) => call.id === poison.id).length === 2, {
        what: 'the poison twice',
      });
      await waitFor(() => calls.filter((call) => call.id === flaky.id).length === 2, {
        what: 'the flaky twice',
      });
      const dead = await waitForDeadLetters(bus, 'picky');
      expect(dead.map((letter) => [letter.id, letter.type, letter.body, letter.attempts])).toEqual([
        [poison.id, 'payment.failed', poison.body, 2],
      ]);
      const times = new Map<string, number[]>();
      for (const call of calls) times.set(call.id, [...(times.get(call.id) ?? []), call.attempt]);
      expect(sent.map((each) => times.get(each.id))).toEqual(
        sent.map((each) => (each.id === flaky.id || each.id === poison.id ? [1, 2] : [1])),
      );
    });

    it('with bundleMax 1, every event is a message of its own', async () => {
      const bus = await started({ bundleMax: 1 });
      const carried = await spy();
      const received: string[] = [];
      await bus.subscribe({
        consumer: 'single',
        eventTypes: ['charge.requested'],
        handler: async (delivered) => {
          received.push(delivered.id);
        },
      });
      await Promise.all(Array.from({ length: 5 }, () => bus.publish(message('charge.requested'))));
      await waitFor(() => received.length === 5 && carried.length === 5, { what: 'five messages' });
      expect(carried.every((each) => each.type === 'charge.requested' && each.size === 1)).toBe(true);
    });

    it('dead-letters a bundle it cannot take apart, as it came', async () => {
      const bus = await started();
      const calls: DeliveredMessage[] = [];
      await bus.subscribe({
        consumer: 'strict',
        eventTypes: ['charge.requested'],
        maxAttempts: 2,
        retryDelayMs: 50,
        handler: async (delivered) => {
          calls.push(delivered);
        },
      });
      const model = await connect(testAmqpUrl());
      cleanups.push(() => model.close());
      const channel = await model.createConfirmChannel();
      channel.publish(topology.exchange, 'charge.requested', Buffer.from('{"not":"a list"}'), {
        type: 'payrail.bundle',
        messageId: 'bundle:broken',
        persistent: true,
      });
      await channel.waitForConfirms();
      const dead = await waitForDeadLetters(bus, 'strict');
      expect(dead.map((letter) => [letter.id, letter.type, letter.body, letter.attempts])).toEqual([
        ['bundle:broken', 'payrail.bundle', '{"not":"a list"}', 2],
      ]);
      expect(calls).toEqual([]);
    });
  });
});

async function waitForDeadLetters(bus: MessageBus, consumer: string) {
  const letters: Awaited<ReturnType<MessageBus['drainDeadLetters']>> = [];
  await waitFor(
    async () => {
      letters.push(...(await bus.drainDeadLetters(consumer)));
      return letters.length > 0;
    },
    { what: `a dead letter of ${consumer}` },
  );
  return letters;
}
