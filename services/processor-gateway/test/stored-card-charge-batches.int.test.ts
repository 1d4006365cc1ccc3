import { createInProcessBus, type MessageBus } from '@payrail/messaging';
import { inSpan, startTelemetry } from '@payrail/observability';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredCardChargeRequest } from '../src/application/charge-stored-card';
import { DEFAULT_TIMINGS, type ChargeDeps } from '../src/application/settle-charge';
import { storedCardChargeBatches } from '../src/application/stored-card-charge-batches';
import { storedCardChargeRequest } from '../src/adapters/messaging/charge-on-charge-requested.consumer';
import { gatewayStores, postgresTransaction } from '../src/adapters/postgres/stores';
import { charges, outbox, paymentMethods } from '../src/adapters/postgres/schema';
import type { PaymentMethod } from '../src/domain/payment-method';
import type { GatewayStores, InTransaction } from '../src/ports/unit-of-work';
import { FakeCardProcessor } from './fake-card-processor';
import { chargeRequested, existingCharge, serviceWithFakes, TEST_ENV, vaultCard } from './support';

/**
 * The batched way of charging stored cards (an as-of run's charges in flight together), on real PostgreSQL
 * against an in-memory processor whose ledger says what was really charged: every case the single path
 * knows, mixed in one batch, comes out as the single path would leave it, in fewer statements.
 */
const telemetry = startTelemetry({ serviceName: 'stored-card-charge-batches-test' });
const fake = new FakeCardProcessor('PARAGUAY.PROCESSOR_A');
const clock = testClock(new Date('2026-11-23T12:00:00Z'));
const { definition } = serviceWithFakes({ a: fake });
let bus: MessageBus;
let svc: ServiceUnderTest;

beforeAll(async () => {
  bus = createInProcessBus();
  // The janitor runs only when a test asks (TEST_ENV): what the batch left is what the test sees.
  svc = await startService(definition, { bus, clock, env: TEST_ENV });
});
afterAll(async () => {
  await svc?.stop();
  await bus?.close();
  await telemetry.shutdown();
});

const merchant = aMerchant();
const otherMerchant = aMerchant();

interface Stores {
  stores: GatewayStores;
  transaction: InTransaction;
}

/** The stores, counting the batch statements and able to fail them. */
function countingStores(failing: { insert?: boolean; save?: boolean } = {}) {
  const counts = { inserts: 0, insertedDrafts: 0, saves: 0, savedRows: 0, publishes: 0 };
  const wrap = (stores: GatewayStores): GatewayStores => ({
    ...stores,
    charges: {
      ...stores.charges,
      async insertStoredCardCharges(drafts, now) {
        counts.inserts += 1;
        counts.insertedDrafts += drafts.length;
        if (failing.insert) throw new Error('batch insert failed (test)');
        return stores.charges.insertStoredCardCharges(drafts, now);
      },
      async saveCharges(list) {
        counts.saves += 1;
        counts.savedRows += list.length;
        if (failing.save) throw new Error('batch save failed (test)');
        return stores.charges.saveCharges(list);
      },
    },
    outbox: {
      ...stores.outbox,
      async publishEach(events) {
        counts.publishes += 1;
        return stores.outbox.publishEach(events);
      },
    },
  });
  const inTransaction = postgresTransaction(svc.database.db);
  const transaction: InTransaction = (work) => inTransaction((tx) => work(wrap(tx)));
  return { stores: wrap(gatewayStores(svc.database.db)), transaction, counts };
}

function plainStores(): Stores {
  return { stores: gatewayStores(svc.database.db), transaction: postgresTransaction(svc.database.db) };
}

function depsWith({ stores, transaction }: Stores): ChargeDeps {
  return { stores, transaction, processors: () => fake, clock, timings: DEFAULT_TIMINGS };
}

function request(
  method: PaymentMethod,
  overrides: Partial<StoredCardChargeRequest> = {},
): StoredCardChargeRequest {
  return { ...storedCardChargeRequest(chargeRequested(method).data), ...overrides };
}

/** Each request in a trace of its own; returns the outcomes and each request's trace id. */
async function chargeAll(
  charge: ReturnType<typeof storedCardChargeBatches>,
  requests: StoredCardChargeRequest[],
) {
  const traceIds: string[] = [];
  const outcomes = await Promise.allSettled(
    requests.map((one, index) =>
      inSpan('test', `request ${index}`, {}, (span) => {
        traceIds[index] = span.spanContext().traceId;
        return charge(one);
      }),
    ),
  );
  return { outcomes, traceIds };
}

async function eventsOf(keys: string[]) {
  const rows = await svc.database.db.select().from(outbox);
  return rows
    .map((row) => ({ event: JSON.parse(row.body) as { type: string; data: Record<string, unknown> }, row }))
    .filter(({ event }) => keys.includes(event.data.idempotencyKey as string));
}

async function chargeRows(keys: string[]) {
  return svc.database.db.select().from(charges).where(inArray(charges.idempotencyKey, keys));
}

describe('stored-card charges in batches', () => {
  it('a batch mixing every case leaves each charge as the single path would, charged once, in two batch statements', async () => {
    const approved = await Promise.all(
      Array.from({ length: 20 }, () => vaultCard(svc, fake, merchant.merchantId)),
    );
    const soft = await vaultCard(svc, fake, merchant.merchantId);
    fake.script(soft.cardRef, ['51']);
    const hard = await vaultCard(svc, fake, merchant.merchantId);
    fake.script(hard.cardRef, ['14']);
    const removed = await vaultCard(svc, fake, merchant.merchantId);
    await svc.database.db
      .update(paymentMethods)
      .set({ removedAt: clock.now() })
      .where(eq(paymentMethods.id, removed.id));
    const blocked = await vaultCard(svc, fake, merchant.merchantId);
    await svc.database.db
      .update(paymentMethods)
      .set({ blockedUntil: new Date(clock.now().getTime() + 86_400_000) })
      .where(eq(paymentMethods.id, blocked.id));
    const foreign = await vaultCard(svc, fake, otherMerchant.merchantId);
    const chargedBefore = await vaultCard(svc, fake, merchant.merchantId);
    const before = request(chargedBefore);
    await chargeAll(storedCardChargeBatches(depsWith(plainStores())), [before]);

    const approvals = approved.map((method) => request(method));
    const twice = approvals[0] as StoredCardChargeRequest;
    const requests = [
      ...approvals,
      { ...twice }, // the same key twice in one batch (a redelivery while the first is in flight)
      request(soft),
      request(hard),
      request(removed),
      request(blocked),
      request(foreign, { merchantId: merchant.merchantId }), // another merchant's card: not found
      { ...before }, // a key charged before
    ];
    const keys = [...new Set(requests.map((one) => one.idempotencyKey))];
    const callsBefore = fake.chargeCalls.length;
    const { counts, ...stores } = countingStores();
    const charge = storedCardChargeBatches(depsWith(stores), { maxBatch: 100, gatherMs: 200 });
    const { outcomes, traceIds } = await chargeAll(charge, requests);

    // One statement opened the batch; the approvals were saved together.
    expect(counts.inserts).toBe(1);
    expect(counts.insertedDrafts).toBe(requests.length);
    expect(counts.savedRows).toBe(20);
    expect(counts.saves).toBeLessThanOrEqual(2);

    // The processor heard of each new key once: 20 approvals, the soft and the hard decline.
    const calls = fake.chargeCalls.slice(callsBefore);
    expect(calls).toHaveLength(22);
    const rows = await chargeRows(keys);
    const byKey = new Map(rows.map((row) => [row.idempotencyKey, row]));
    for (const one of approvals) {
      const row = byKey.get(one.idempotencyKey);
      expect(row?.status).toBe('succeeded');
      expect(calls.filter((call) => call.reference === row?.reference)).toHaveLength(1);
    }
    const statusOf = (method: PaymentMethod) => rows.find((row) => row.paymentMethodId === method.id);
    expect(statusOf(soft)).toMatchObject({ status: 'failed', declineCategory: 'soft', retryable: true });
    expect(statusOf(hard)).toMatchObject({ status: 'failed', declineCategory: 'hard', retryable: false });
    expect(statusOf(removed)).toMatchObject({
      status: 'failed',
      declineCode: 'PAYMENT_METHOD_REMOVED',
      processorCalls: 0,
    });
    expect(statusOf(blocked)).toMatchObject({
      status: 'failed',
      declineCategory: 'card-blocked',
      processorCalls: 0,
    });
    expect(statusOf(foreign)).toBeUndefined();
    expect(outcomes[requests.length - 2]).toMatchObject({ status: 'rejected' }); // not the merchant's card

    // The key given twice and the key charged before: one charge each, reported as a duplicate.
    const kinds = outcomes.map((outcome) =>
      outcome.status === 'fulfilled' ? outcome.value.kind : 'rejected',
    );
    expect(kinds.filter((kind) => kind === 'duplicate')).toHaveLength(2);
    expect(rows.filter((row) => row.idempotencyKey === twice.idempotencyKey)).toHaveLength(1);
    expect(byKey.get(before.idempotencyKey)).toEqual(await existingCharge(svc, before.idempotencyKey));

    // One event per settled charge, each in the trace of the request that made it.
    const events = await eventsOf(keys);
    const settled = rows.filter((row) => row.status === 'succeeded' || row.status === 'failed');
    expect(events.map(({ event }) => event.data.idempotencyKey).sort()).toEqual(
      settled.map((row) => row.idempotencyKey).sort(),
    );
    for (const { event, row } of events) {
      // The key charged before was announced then, in its own trace.
      if (event.data.idempotencyKey === before.idempotencyKey) continue;
      // The key given twice was made by one of its two requests.
      const traces = requests.flatMap((one, index) =>
        one.idempotencyKey === event.data.idempotencyKey ? [traceIds[index]] : [],
      );
      const traceId = row.headers.traceparent?.split('-')[1];
      expect(traces, String(event.data.idempotencyKey)).toContain(traceId);
    }
  });

  it('when the batch statements fail, every charge goes the single way: charged once, announced once', async () => {
    for (const failing of [{ insert: true }, { save: true }]) {
      const methods = await Promise.all(
        Array.from({ length: 6 }, () => vaultCard(svc, fake, merchant.merchantId)),
      );
      const requests = methods.map((method) => request(method));
      const keys = requests.map((one) => one.idempotencyKey);
      const callsBefore = fake.chargeCalls.length;
      const { counts, ...stores } = countingStores(failing);
      const { outcomes } = await chargeAll(
        storedCardChargeBatches(depsWith(stores), { maxBatch: 100, gatherMs: 100 }),
        requests,
      );
      expect(counts.inserts, JSON.stringify(failing)).toBe(1);
      expect(outcomes.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
      const rows = await chargeRows(keys);
      expect(rows.map((row) => row.status)).toEqual(keys.map(() => 'succeeded'));
      expect(fake.chargeCalls.slice(callsBefore)).toHaveLength(6);
      expect((await eventsOf(keys)).map(({ event }) => event.type)).toEqual(
        keys.map(() => 'payment.succeeded'),
      );
    }
  });
});
