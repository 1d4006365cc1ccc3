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
});
