import { openDatabase } from '@payrail/db';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import type { ServiceInstance } from '@payrail/runtime';
import {
  aMerchant,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  TEST_INTERNAL_SECRET,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHARGE_CONSUMER } from '../src/adapters/messaging/charge-on-charge-requested.consumer';
import { LEDGER_CONSUMER } from '../src/adapters/messaging/record-movements-on-money-events.consumer';
import { FakeCardProcessor } from './fake-card-processor';
import {
  chargeByKey,
  chargeRequested,
  paymentObserver,
  publish,
  serviceWithFakes,
  TEST_ENV,
  vaultCard,
} from './support';

/**
 * Two processor-gateway replicas on one database, consuming one RabbitMQ queue, both talking to one
 * processor: 20 copies of one `charge.requested` (each its own message) must charge the card once.
 */
const exchange = uniqueName('pgw_replicas');
const queuePrefix = `${uniqueName('pgw_replicas')}.`;
const fake = new FakeCardProcessor('PARAGUAY.PROCESSOR_A');
const observer = paymentObserver();
const deliveries: [number, number] = [0, 0];
const buses: MessageBus[] = [];
let first: ServiceUnderTest;
let second: { instance: ServiceInstance; close(): Promise<void> };

/** The bus as a replica sees it, counting what this replica was handed. */
function countingBus(bus: MessageBus, replica: number): MessageBus {
  return {
    ...bus,
    start: () => bus.start(),
    publish: (message) => bus.publish(message),
    subscribe: (subscription) =>
      bus.subscribe({
        ...subscription,
        handler: async (message) => {
          if (subscription.consumer === CHARGE_CONSUMER) deliveries[replica] = (deliveries[replica] ?? 0) + 1;
          return subscription.handler(message);
        },
      }),
    stopConsuming: () => bus.stopConsuming(),
    close: () => bus.close(),
    isReady: () => bus.isReady(),
    drainDeadLetters: (consumer) => bus.drainDeadLetters(consumer),
  };
}

beforeAll(async () => {
  // The publishing bus (the third) sends each message alone: bundled, the 20 copies would be one AMQP
  // message, taken by one replica.
  for (let i = 0; i < 3; i += 1)
    buses.push(createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix, bundleMax: i === 2 ? 1 : 50 }));
  const [busOne, busTwo, observerBus] = buses as [MessageBus, MessageBus, MessageBus];
  first = await startService(serviceWithFakes({ a: fake }).definition, {
    bus: countingBus(busOne, 0),
    env: TEST_ENV,
  });
  // The second replica: same database, same queue, its own connections.
  const database = openDatabase({ url: first.testDatabase.url, max: 5 });
  await busTwo.start();
  const instance = await serviceWithFakes({ a: fake }).definition.create({
    database,
    bus: countingBus(busTwo, 1),
    logger: createLogger('processor-gateway-2', 'silent'),
    clock: { now: () => new Date() },
    internalSecret: TEST_INTERNAL_SECRET,
    env: TEST_ENV,
    upstream: () => async () => new Response(null, { status: 503 }),
  });
  await instance.start();
  second = {
    instance,
    async close() {
      await busTwo.stopConsuming();
      await instance.stop();
      await database.close();
    },
  };
  await observerBus.start();
  await observerBus.subscribe(observer.subscription);
});
afterAll(async () => {
  await second?.close();
  await first?.stop();
  for (const bus of buses) await bus.close();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    [CHARGE_CONSUMER, LEDGER_CONSUMER, 'observer'].map((c) => `${queuePrefix}${c}`),
  );
});

describe('two replicas', () => {
  it('20 concurrent identical charge.requested across both: exactly one processor charge, one event', async () => {
    const card = await vaultCard(first, fake, aMerchant().merchantId);
    const request = chargeRequested(card);
    // Slow enough that the copies overlap while the first is still at the processor.
    fake.chargeDelayMs = 200;
    await Promise.all(
      Array.from({ length: 20 }, () => publish(buses[2] as MessageBus, request, crypto.randomUUID())),
    );

    await waitFor(() => deliveries[0] + deliveries[1] >= 20, 20_000);
    const row = await waitFor(async () => {
      const charge = await chargeByKey(first, request.data.idempotencyKey);
      return charge?.status === 'succeeded' ? charge : undefined;
    });
    await waitFor(() => observer.of(request.data.idempotencyKey).length >= 1, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(deliveries[0]).toBeGreaterThan(0);
    expect(deliveries[1]).toBeGreaterThan(0);
    expect(fake.chargeCalls).toHaveLength(1);
    expect(fake.chargesOf(row.reference)).toHaveLength(1);
    expect(row.processorCalls).toBe(1);
    expect(observer.of(request.data.idempotencyKey).map((e) => e.type)).toEqual(['payment.succeeded']);
  });
});
