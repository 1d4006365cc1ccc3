import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, openDatabase } from '@payrail/db';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import type { ServiceInstance } from '@payrail/runtime';
import {
  aMerchant,
  createTestDatabase,
  deleteBrokerTopology,
  TEST_INTERNAL_SECRET,
  type TestDatabase,
  testAmqpUrl,
  testClock,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import type { Clock } from '@payrail/time';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHARGE_CONSUMER } from '../src/adapters/messaging/charge-on-charge-requested.consumer';
import { LEDGER_CONSUMER } from '../src/adapters/messaging/record-movements-on-money-events.consumer';
import { gatewayStores } from '../src/adapters/postgres/stores';
import { createCardProcessors } from '../src/adapters/processors';
import { createProcessorB } from '../src/adapters/processors/processor-b';
import type { ChargeJanitor } from '../src/application/charge-janitor';
import { loadConfig } from '../src/config';
import type { PaymentMethod } from '../src/domain/payment-method';
import { createProcessorGatewayService, type ProcessorGatewayOptions } from '../src/service';
import { type ContractSandbox, KEYS, startContractSandbox } from './contract-sandbox';
import {
  chargeByKey,
  chargeRequested,
  existingCharge,
  paymentObserver,
  publish,
  saveCard,
  TEST_ENV,
} from './support';

/**
 * PROCESSOR_B charges a stored card in two steps: `iniciar-transaccion` opens the order, `pagar` pays it.
 * Here processor-gateway is killed between them (nothing it would send after B's first answer ever leaves,
 * its RabbitMQ connection drops with the message unacked), and another process starts on the same database
 * and queue. Real PostgreSQL, real RabbitMQ, the real adapter against the real sandbox: the sandbox's ledger
 * says what was charged.
 */
const logger = createLogger('processor-gateway', process.env.TEST_LOG_LEVEL ?? 'silent');
const exchange = uniqueName('pgw_b_killed');
const queuePrefix = `${uniqueName('pgw_b_killed')}.`;
const env = {
  ...TEST_ENV,
  PROCESSOR_B_PUBLIC_KEY: KEYS.B.publicKey,
  PROCESSOR_B_PRIVATE_KEY: KEYS.B.privateKey,
  PROCESSOR_TIMEOUT_MS: '5000',
};
const { callDeadlineMs } = loadConfig(env).timings;
const observer = paymentObserver();
const buses: MessageBus[] = [];
const databases: DatabaseHandle[] = [];
/** The replicas still running: each test ends its own, so that the next test's charges reach its own. */
const running: Replica[] = [];
let sandbox: ContractSandbox;
let testDatabase: TestDatabase;
let observerBus: MessageBus;
let processorB: ReturnType<typeof createProcessorB>;

/** What a processor-gateway process handed to the test: its janitor, and how many charge.requested it took. */
interface Replica {
  bus: MessageBus;
  database: DatabaseHandle;
  instance: ServiceInstance;
  janitor: () => ChargeJanitor;
  chargeRequests: () => number;
}

/** One processor-gateway process: its own connections to the shared database and the shared queue. */
async function startReplica(clock: Clock, options: ProcessorGatewayOptions = {}): Promise<Replica> {
  let janitor: ChargeJanitor | undefined;
  let chargeRequests = 0;
  const rabbit = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  buses.push(rabbit);
  await rabbit.start();
  const bus: MessageBus = {
    ...rabbit,
    subscribe: (subscription) =>
      rabbit.subscribe({
        ...subscription,
        handler: async (message) => {
          if (subscription.consumer === CHARGE_CONSUMER) chargeRequests += 1;
          return subscription.handler(message);
        },
      }),
  };
  const database = openDatabase({ url: testDatabase.url, max: 4 });
  databases.push(database);
  const instance = await createProcessorGatewayService({
    ...options,
    onCreated: (parts) => {
      janitor = parts.janitor;
    },
  }).create({
    database,
    bus,
    logger,
    clock,
    internalSecret: TEST_INTERNAL_SECRET,
    env: { ...env, PROCESSOR_SANDBOX_URL: sandbox.baseUrl, PUBLIC_BASE_URL: 'http://pay.test' },
    upstream: () => async () => new Response(null, { status: 503 }),
  });
  await instance.start();
  const replica: Replica = {
    bus: rabbit,
    database,
    instance,
    janitor: () => {
      if (!janitor) throw new Error('service not created yet');
      return janitor;
    },
    chargeRequests: () => chargeRequests,
  };
  running.push(replica);
  return replica;
}

/**
 * PROCESSOR_B's adapter in a process that is killed as soon as B has answered `iniciar-transaccion`: the
 * answer is read, and every request after it hangs for ever without leaving (a dead process sends nothing).
 */
function killedAfterOpeningTheOrder() {
  let dead = false;
  let died: () => void = () => {};
  const death = new Promise<void>((resolve) => {
    died = resolve;
  });
  const fetchUntilKilled: typeof fetch = async (input, init) => {
    if (dead) return new Promise<Response>(() => {});
    const response = await fetch(input, init);
    if (String(input).includes('iniciar-transaccion')) {
      dead = true;
      died();
    }
    return response;
  };
  const options: ProcessorGatewayOptions = {
    cardProcessors: (config) => {
      const others = createCardProcessors(config.processors, { logger });
      const dyingB = createProcessorB(config.processors['PARAGUAY.PROCESSOR_B'], {
        logger,
        fetch: fetchUntilKilled,
      });
      return (processor) => (processor === 'PARAGUAY.PROCESSOR_B' ? dyingB : others(processor));
    },
  };
  return { options, death };
}

/** SIGKILL as the broker and the database see it: connections gone, nothing acknowledged or finished. */
async function kill(replica: Replica): Promise<void> {
  running.splice(running.indexOf(replica), 1);
  await replica.bus.close();
  await replica.instance.stop();
  await replica.database.close();
}

/** A card registered on the sandbox's hosted form and saved in our vault, as a registration would. */
async function savedCardAtB(
  database: DatabaseHandle,
  merchantId: string,
  cardNumber = '4242424242424242',
): Promise<PaymentMethod> {
  const stores = gatewayStores(database.db);
  const customerId = 800_000 + Math.floor(Math.random() * 100_000);
  const customerRef = await stores.customers.processorCustomerRef(
    merchantId,
    customerId,
    'PARAGUAY.PROCESSOR_B',
    new Date(),
  );
  const opened = await processorB.openCardRegistration({
    customerRef,
    registrationRef: String(Date.now()).slice(-12),
    returnUrl: 'http://pay.test/cards/return',
  });
  if (opened.kind !== 'opened' || opened.form.kind !== 'redirect') throw new Error('registration not opened');
  await sandbox.complete({ hash: opened.form.hash }, cardNumber);
  const [card] = await processorB.completeCardRegistration({ customerRef, registrationRef: '0' });
  if (!card) throw new Error('card not registered');
  return saveCard(stores, { merchantId, customerId, processor: 'PARAGUAY.PROCESSOR_B', customerRef }, card);
}

/** B's notifications go to this process's webhook route. */
function notificationsTo(replica: Replica): void {
  sandbox.receiveWith(async (_processor, raw) => {
    const response = await replica.instance.app.fetch(
      new Request('http://service.test/webhooks/processor-b', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw.body,
      }),
    );
    return { status: response.status, body: await response.json() };
  });
}

async function ledgerOf(reference: string) {
  return (await sandbox.ledger()).filter((entry) => entry.reference === reference && entry.kind === 'charge');
}

beforeAll(async () => {
  sandbox = await startContractSandbox();
  processorB = createProcessorB(sandbox.settings('B'), { logger });
  testDatabase = await createTestDatabase('processor_gateway');
  const migrator = openDatabase({ url: testDatabase.url, max: 1 });
  const { database } = createProcessorGatewayService();
  if (database) await migrator.migrate(database);
  await migrator.close();
  observerBus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  buses.push(observerBus);
  await observerBus.start();
  await observerBus.subscribe(observer.subscription);
});

afterEach(async () => {
  for (const replica of running.splice(0)) {
    await replica.bus.stopConsuming();
    await replica.instance.stop();
  }
});

afterAll(async () => {
  for (const bus of buses) await bus.close();
  for (const database of databases) await database.close().catch(() => undefined);
  await sandbox?.stop();
  await testDatabase?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    [CHARGE_CONSUMER, LEDGER_CONSUMER, 'observer'].map((consumer) => `${queuePrefix}${consumer}`),
  );
});

describe('PROCESSOR_B: processor-gateway killed between iniciar-transaccion and pagar', () => {
  it('after the restart the opened order is paid once: one debit at B, succeeded, one payment.succeeded', async () => {
    const merchant = aMerchant();
    const dying = killedAfterOpeningTheOrder();
    const first = await startReplica({ now: () => new Date() }, dying.options);
    const card = await savedCardAtB(first.database, merchant.merchantId);
    const request = chargeRequested(card, { amount: '150000.00' });
    const key = request.data.idempotencyKey;
    await publish(observerBus, request);
    await dying.death;
    await kill(first);

    const clock = testClock(new Date());
    const second = await startReplica(clock);
    const database = { database: second.database };
    notificationsTo(second);
    // The broker hands the unacknowledged command to the new process: the key is known, nothing is sent.
    await waitFor(() => second.chargeRequests() === 1, 15_000);
    const left = await existingCharge(database, key);
    expect(left).toMatchObject({ status: 'pending', processorCalls: 1, processorReference: null });
    // B holds an order under our reference that nothing paid.
    expect(await processorB.queryStatus({ reference: left.reference })).toMatchObject({ status: 'pending' });
    expect(await ledgerOf(left.reference)).toEqual([]);

    // Once no call of the dead process can be live, the janitor of the new one completes the charge.
    clock.advance(callDeadlineMs);
    await second.janitor().runOnce();
    const paid = await waitFor(async () => {
      const row = await chargeByKey(database, key);
      return row?.status === 'succeeded' ? row : undefined;
    });
    expect(paid).toMatchObject({ reference: left.reference, processorCalls: 2 });
    const debits = await ledgerOf(left.reference);
    expect(debits).toMatchObject([{ amount: '150000', resultCode: '00', last4: '4242' }]);
    expect(paid.processorReference).toBe(debits[0]?.processReference);
    await waitFor(() => observer.of(key).length === 1, 15_000);

    // Later passes and late copies change nothing.
    clock.advance(callDeadlineMs);
    await second.janitor().runOnce();
    await publish(observerBus, request, randomUUID());
    await waitFor(() => second.chargeRequests() === 2, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await ledgerOf(left.reference)).toHaveLength(1);
    expect(await existingCharge(database, key)).toMatchObject({ status: 'succeeded', processorCalls: 2 });
    expect(observer.of(key).map((event) => event.type)).toEqual(['payment.succeeded']);
  });

  it('a pagar B accepted and is still deciding (slow card 0077) is left to B: never sent again', {
    timeout: 30_000,
  }, async () => {
    const merchant = aMerchant();
    const clock = testClock(new Date());
    const replica = await startReplica(clock);
    notificationsTo(replica);
    const database = { database: replica.database };
    const card = await savedCardAtB(replica.database, merchant.merchantId, '4000000000000077');
    const request = chargeRequested(card, { amount: '90000.00' });
    const key = request.data.idempotencyKey;
    await publish(observerBus, request);
    const accepted = await waitFor(async () => {
      const row = await chargeByKey(database, key);
      return row?.status === 'pending' && row.processorReference ? row : undefined;
    });

    clock.advance(callDeadlineMs);
    await replica.janitor().runOnce();
    expect(await processorB.queryStatus({ reference: accepted.reference })).toMatchObject({
      status: 'pending',
      unpaidOrder: true,
    });
    // Looked at, not sent again.
    expect(await existingCharge(database, key)).toMatchObject({
      status: 'pending',
      processorCalls: 1,
      statusChecks: 1,
    });

    const paid = await waitFor(async () => {
      const row = await chargeByKey(database, key);
      return row?.status === 'succeeded' ? row : undefined;
    }, 15_000);
    expect(paid.processorCalls).toBe(1);
    expect(await ledgerOf(accepted.reference)).toMatchObject([{ amount: '90000', resultCode: '00' }]);
    await waitFor(() => observer.of(key).length === 1, 15_000);
    expect(observer.of(key).map((event) => event.type)).toEqual(['payment.succeeded']);
  });
});
