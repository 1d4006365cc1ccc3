import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import {
  aMerchant,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  testClock,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PROCESSOR_CALLS } from '../src/application/settle-unsettled-charges';
import { storedCardChargeBatches } from '../src/application/stored-card-charge-batches';
import { storedCardChargeRequest } from '../src/adapters/messaging/charge-on-charge-requested.consumer';
import { CHARGE_CONSUMER } from '../src/adapters/messaging/charge-on-charge-requested.consumer';
import { LEDGER_CONSUMER } from '../src/adapters/messaging/record-movements-on-money-events.consumer';
import { charges, paymentMethods } from '../src/adapters/postgres/schema';
import { loadConfig } from '../src/config';
import { FakeCardProcessor } from './fake-card-processor';
import {
  chargeByKey,
  chargeRequested,
  existingCharge,
  newInstallmentId,
  paymentObserver,
  publish,
  serviceWithFakes,
  TEST_ENV,
  vaultCard,
} from './support';

/**
 * The automatic-debit charge core on real PostgreSQL and RabbitMQ, against an in-memory processor whose
 * ledger says what was really charged.
 */
const exchange = uniqueName('pgw_charges');
const queuePrefix = `${uniqueName('pgw_charges')}.`;
const fake = new FakeCardProcessor('PARAGUAY.PROCESSOR_A');
const clock = testClock(new Date('2026-11-23T12:00:00Z'));
const observer = paymentObserver();
const { definition, janitor, deps } = serviceWithFakes({ a: fake });
let bus: MessageBus;
let svc: ServiceUnderTest;

beforeAll(async () => {
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  // "Not found" is believed 10 minutes after the charge, as in production; the test moves the clock.
  svc = await startService(definition, {
    bus,
    clock,
    env: { ...TEST_ENV, CHARGE_NOT_FOUND_FINAL_AFTER_MS: '600000' },
  });
  await bus.subscribe(observer.subscription);
});
afterAll(async () => {
  await svc?.stop();
  await bus?.close();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    [CHARGE_CONSUMER, LEDGER_CONSUMER, 'observer'].map((c) => `${queuePrefix}${c}`),
  );
});
beforeEach(() => {
  fake.onCharge = undefined;
  fake.asynchronous = false;
});

const merchant = aMerchant();

async function settled(key: string) {
  return waitFor(async () => {
    const row = await chargeByKey(svc, key);
    return row && (row.status === 'succeeded' || row.status === 'failed') ? row : undefined;
  });
}

/** Waits for this key's payment event, then a little longer so that a second one would show up. */
async function eventsOf(key: string, count = 1) {
  await waitFor(() => observer.of(key).length >= count, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return observer.of(key);
}

describe('charge.requested → payment.succeeded / payment.failed', () => {
  it('writes the charge pending before the processor is called, then settles it and announces it once', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    const seenAtCall: Array<string | undefined> = [];
    fake.onCharge = async (input) => {
      const [row] = await svc.database.db
        .select()
        .from(charges)
        .where(eq(charges.reference, input.reference));
      seenAtCall.push(row?.status);
    };
    await publish(bus, request);

    const row = await settled(request.data.idempotencyKey);
    expect(seenAtCall).toEqual(['pending']);
    expect(row).toMatchObject({
      status: 'succeeded',
      processorCalls: 1,
      amount: '150000.00',
      installmentId: request.data.installmentId,
    });
    expect(fake.chargesOf(row.reference)).toHaveLength(1);
    const events = await eventsOf(request.data.idempotencyKey);
    expect(events.map((e) => e.type)).toEqual(['payment.succeeded']);
    expect(events[0]?.data).toMatchObject({
      installmentId: request.data.installmentId,
      attempt: 1,
      paymentMethodId: card.id,
      amount: '150000.00',
      currency: 'PYG',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
  });

  it('a lost reply makes the charge unknown (never failed) until the janitor finds it at the processor', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    fake.inject('lose-reply');
    await publish(bus, request);

    const unknown = await waitFor(async () => {
      const row = await chargeByKey(svc, request.data.idempotencyKey);
      return row?.status === 'unknown' ? row : undefined;
    });
    // Nothing announced yet: nobody may retry a charge that may have happened.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(observer.of(request.data.idempotencyKey)).toEqual([]);

    const report = await janitor().runOnce();
    expect(report.settled).toBeGreaterThanOrEqual(1);
    const row = await chargeByKey(svc, request.data.idempotencyKey);
    expect(row).toMatchObject({ status: 'succeeded', processorCalls: 1, statusChecks: 1 });
    expect(fake.chargesOf(unknown.reference)).toHaveLength(1);
    expect(fake.chargeCalls.filter((call) => call.reference === unknown.reference)).toHaveLength(1);
    expect((await eventsOf(request.data.idempotencyKey)).map((e) => e.type)).toEqual(['payment.succeeded']);

    // A second pass finds nothing left to do and charges nothing.
    await janitor().runOnce();
    expect(fake.chargesOf(unknown.reference)).toHaveLength(1);
  });

  it('an adapter that throws after the request went out is unknown too, and settled by the janitor', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    fake.inject('throw-after-charge');
    await publish(bus, request);
    await waitFor(async () => (await chargeByKey(svc, request.data.idempotencyKey))?.status === 'unknown');
    await janitor().runOnce();
    const row = await settled(request.data.idempotencyKey);
    expect(row.status).toBe('succeeded');
    expect(fake.chargesOf(row.reference)).toHaveLength(1);
  });

  it('a request that never reached the processor is settled by the janitor as a retryable failure, nothing charged', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    fake.inject('lose-request');
    await publish(bus, request);
    await waitFor(async () => (await chargeByKey(svc, request.data.idempotencyKey))?.status === 'unknown');
    // Right away the processor's "not found" proves nothing: the request may still arrive.
    await janitor().runOnce();
    expect((await chargeByKey(svc, request.data.idempotencyKey))?.status).toBe('unknown');
    clock.advance(10 * 60 * 1000);
    // The pass says what it did (its log line): one charge given up as never processed.
    expect(await janitor().runOnce()).toEqual({ checked: 1, settled: 1, resent: 0, notProcessed: 1 });
    const row = await settled(request.data.idempotencyKey);
    expect(row).toMatchObject({ status: 'failed', declineCode: 'NOT_PROCESSED', retryable: true });
    expect(fake.chargesOf(row.reference)).toHaveLength(0);
    const [event] = await eventsOf(request.data.idempotencyKey);
    expect(event).toMatchObject({
      type: 'payment.failed',
      data: { retryable: true, category: 'processor-down' },
    });
  });

  it('an outage is a retryable failure and nothing is charged', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    fake.inject('outage');
    await publish(bus, request);
    const row = await settled(request.data.idempotencyKey);
    expect(row).toMatchObject({ status: 'failed', declineCategory: 'processor-down', retryable: true });
    expect(fake.chargesOf(row.reference)).toHaveLength(0);
    const [event] = await eventsOf(request.data.idempotencyKey);
    expect(event).toMatchObject({
      type: 'payment.failed',
      data: { retryable: true, category: 'processor-down', declineCode: '503' },
    });
  });

  it('declines carry their code and category; a hard decline is not retryable', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    fake.script(card.cardRef, ['51', '54']);
    const soft = chargeRequested(card);
    await publish(bus, soft);
    expect(await settled(soft.data.idempotencyKey)).toMatchObject({
      status: 'failed',
      declineCode: '51',
      declineCategory: 'soft',
      retryable: true,
    });
    const hard = chargeRequested(card);
    await publish(bus, hard);
    expect(await settled(hard.data.idempotencyKey)).toMatchObject({
      status: 'failed',
      declineCode: '54',
      declineCategory: 'hard',
      retryable: false,
    });
    const [event] = await eventsOf(hard.data.idempotencyKey);
    expect(event).toMatchObject({
      type: 'payment.failed',
      data: { retryable: false, category: 'hard', declineCode: '54' },
    });
  });

  it('a redelivered charge.requested, and the same key in a new message, change nothing', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    await publish(bus, request);
    const first = await settled(request.data.idempotencyKey);
    await publish(bus, request);
    await publish(bus, request, crypto.randomUUID());
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await chargeByKey(svc, request.data.idempotencyKey);
    expect(after).toEqual(first);
    expect(fake.chargeCalls.filter((call) => call.reference === first.reference)).toHaveLength(1);
    expect((await eventsOf(request.data.idempotencyKey)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('an asynchronous charge stays pending until the processor decides; the janitor then settles it', async () => {
    fake.asynchronous = true;
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    await publish(bus, request);
    const pending = await waitFor(async () => {
      const row = await chargeByKey(svc, request.data.idempotencyKey);
      return row?.processorReference ? row : undefined;
    });
    expect(pending.status).toBe('pending');
    await janitor().runOnce();
    expect((await chargeByKey(svc, request.data.idempotencyKey))?.status).toBe('pending');
    fake.decidePending(pending.reference, '00');
    await janitor().runOnce();
    expect(await settled(request.data.idempotencyKey)).toMatchObject({
      status: 'succeeded',
      processorCalls: 1,
    });
    expect(fake.chargesOf(pending.reference)).toHaveLength(1);
  });
});

describe('processor-gateway dies between the pending row and the processor', () => {
  const { callDeadlineMs } = loadConfig(TEST_ENV).timings;

  /** Publishes the charge and waits until its call is held by the fault (our process "dies" there). */
  async function chargeLeftPending(fault: 'die-before-request' | 'die-after-charge') {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    const key = request.data.idempotencyKey;
    fake.inject(fault);
    await publish(bus, request);
    const left = await waitFor(async () => {
      const row = await chargeByKey(svc, key);
      return row && fake.chargeCalls.some((call) => call.reference === row.reference) ? row : undefined;
    });
    expect(left).toMatchObject({ status: 'pending', processorCalls: 1 });
    const callsOf = () => fake.chargeCalls.filter((call) => call.reference === left.reference);
    return { key, left, callsOf };
  }

  it('a request that never left is sent again under the same reference once no call of ours can be live: charged once', async () => {
    const { key, left, callsOf } = await chargeLeftPending('die-before-request');
    // Before the call's deadline our own call could still be on its way: not even asked about.
    clock.advance(callDeadlineMs - 1000);
    await janitor().runOnce();
    expect(fake.statusQueries).not.toContain(left.reference);
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'pending', processorCalls: 1 });

    clock.advance(1000);
    expect(await janitor().runOnce()).toEqual({ checked: 1, settled: 1, resent: 1, notProcessed: 0 });
    const row = await existingCharge(svc, key);
    expect(row).toMatchObject({ status: 'succeeded', processorCalls: 2, reference: left.reference });
    expect(callsOf()).toHaveLength(2);
    expect(fake.chargesOf(left.reference)).toHaveLength(1);

    // The dead process's call ends (as on restart): nothing changes, one event.
    await fake.releaseHeld('die');
    expect((await eventsOf(key)).map((e) => e.type)).toEqual(['payment.succeeded']);
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'succeeded', processorCalls: 2 });
    await janitor().runOnce();
    expect(callsOf()).toHaveLength(2);
  });

  it('a charge the processor made before we died is settled from its status and never sent again', async () => {
    const { key, left, callsOf } = await chargeLeftPending('die-after-charge');
    expect(fake.chargesOf(left.reference)).toHaveLength(1);
    clock.advance(callDeadlineMs);
    await janitor().runOnce();
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'succeeded', processorCalls: 1 });
    expect(callsOf()).toHaveLength(1);
    expect(fake.chargesOf(left.reference)).toHaveLength(1);
    await fake.releaseHeld();
    expect((await eventsOf(key)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('a first request arriving late makes the re-send a refused reuse: unknown, then the status query settles it', async () => {
    const { key, left, callsOf } = await chargeLeftPending('die-before-request');
    clock.advance(callDeadlineMs);
    // The status query finds nothing; the dead process's request reaches the processor just before the re-send.
    fake.onCharge = async () => {
      fake.onCharge = undefined;
      await fake.releaseHeld('arrive');
    };
    await janitor().runOnce();
    expect(callsOf()).toHaveLength(2);
    expect(fake.chargesOf(left.reference)).toHaveLength(1);
    const unknown = await existingCharge(svc, key);
    expect(unknown).toMatchObject({ status: 'unknown', processorCalls: 2 });
    expect(observer.of(key)).toEqual([]);

    // The dead process's call, let through, is settled too (as `unknown`), and may hold the row locked while
    // a pass claims: the pass skips a locked row, as a running janitor would, and the next one settles it.
    await waitFor(async () => {
      await janitor().runOnce();
      return (await existingCharge(svc, key)).status === 'succeeded';
    });
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'succeeded', processorCalls: 2 });
    expect(fake.chargesOf(left.reference)).toHaveLength(1);
    expect((await eventsOf(key)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('re-sends are capped: after them "not found" is only believed at the last resort', async () => {
    const { key, left, callsOf } = await chargeLeftPending('die-before-request');
    // Every re-send is lost on its way too.
    fake.inject(...Array<'lose-request'>(MAX_PROCESSOR_CALLS - 1).fill('lose-request'));
    for (let pass = 0; pass < 4; pass += 1) {
      clock.advance(callDeadlineMs);
      await janitor().runOnce();
    }
    expect(callsOf()).toHaveLength(MAX_PROCESSOR_CALLS);
    expect(await existingCharge(svc, key)).toMatchObject({
      status: 'unknown',
      processorCalls: MAX_PROCESSOR_CALLS,
    });
    clock.advance(10 * 60 * 1000);
    await janitor().runOnce();
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'failed', declineCode: 'NOT_PROCESSED' });
    expect(fake.chargesOf(left.reference)).toHaveLength(0);
    await fake.releaseHeld('die');
  });
});

describe('a live call slower than its send window', () => {
  const { callDeadlineMs, notFoundFinalAfterMs } = loadConfig({
    ...TEST_ENV,
    CHARGE_NOT_FOUND_FINAL_AFTER_MS: '600000',
  }).timings;
  beforeAll(() => {
    fake.clock = clock;
  });
  afterAll(() => {
    fake.clock = undefined;
  });

  /**
   * Charges as the consumer does (the batched path), with the call held on our side before its request
   * leaves (a slow card listing, a slow database); answers once the row is written and the call is held.
   */
  async function slowCall(fault: 'slow-before-request' | 'slow-then-outage') {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const request = chargeRequested(card);
    const key = request.data.idempotencyKey;
    fake.inject(fault);
    const call = storedCardChargeBatches(deps())(storedCardChargeRequest(request.data));
    const left = await waitFor(async () => {
      const row = await chargeByKey(svc, key);
      return row && fake.chargeCalls.some((each) => each.reference === row.reference) ? row : undefined;
    });
    const callsOf = () => fake.chargeCalls.filter((each) => each.reference === left.reference);
    return { key, left, call, callsOf };
  }

  it('a request that would leave after the janitor believed "not found" is not sent: failed once, nothing charged', async () => {
    const { key, left, call } = await slowCall('slow-before-request');
    // The janitor asks long after the call began, finds nothing and believes it: the charge is failed.
    clock.advance(notFoundFinalAfterMs);
    await janitor().runOnce();
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'failed', declineCode: 'NOT_PROCESSED' });
    // The slow call goes on: its request must not leave now (a retry of the debt would charge it twice).
    await fake.releaseHeld('arrive');
    expect((await call).charge).toMatchObject({ status: 'failed', declineCode: 'NOT_PROCESSED' });
    expect(fake.chargesOf(left.reference)).toEqual([]);
    expect((await eventsOf(key)).map((e) => e.type)).toEqual(['payment.failed']);
  });

  it('a late failure of the first call does not settle a charge the janitor has sent again', async () => {
    const { key, left, call, callsOf } = await slowCall('slow-then-outage');
    // The janitor finds nothing and sends the charge again: charged, its reply lost.
    clock.advance(callDeadlineMs);
    fake.inject('lose-reply');
    await janitor().runOnce();
    expect(callsOf()).toHaveLength(2);
    expect(fake.chargesOf(left.reference)).toHaveLength(1);
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'unknown', processorCalls: 2 });
    // The first call now ends in an outage: that says nothing of the re-send, which was charged.
    await fake.releaseHeld('arrive');
    expect((await call).charge.status).toBe('unknown');
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'unknown', processorCalls: 2 });
    await janitor().runOnce();
    expect(await existingCharge(svc, key)).toMatchObject({ status: 'succeeded', processorCalls: 2 });
    expect(fake.chargesOf(left.reference)).toHaveLength(1);
    expect((await eventsOf(key)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });
});

describe('card lock', () => {
  it('after 7 declines of one card in 24 h, answers card-blocked without calling the processor', async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    const installmentId = newInstallmentId();
    const decline = async (attempt: number) => {
      const request = chargeRequested(card, { installmentId, attempt });
      await publish(bus, request);
      return settled(request.data.idempotencyKey);
    };
    // Six declines, then a day passes: they no longer count.
    fake.script(card.cardRef, Array(13).fill('51'));
    for (let attempt = 1; attempt <= 6; attempt += 1) expect((await decline(attempt)).declineCode).toBe('51');
    clock.advance(25 * 60 * 60 * 1000);
    for (let attempt = 7; attempt <= 12; attempt += 1)
      expect((await decline(attempt)).declineCode).toBe('51');
    const [notYet] = await svc.database.db
      .select()
      .from(paymentMethods)
      .where(eq(paymentMethods.id, card.id));
    expect(notYet?.blockedUntil).toBeNull();

    // The seventh decline within 24 h blocks the card (announced as the soft decline it was).
    expect((await decline(13)).declineCode).toBe('51');
    const [lock] = await svc.database.db.select().from(paymentMethods).where(eq(paymentMethods.id, card.id));
    expect(lock?.blockedUntil?.getTime()).toBe(clock.now().getTime() + 30 * 24 * 60 * 60 * 1000);
    const [seventh] = await eventsOf(`installment:${installmentId}:attempt:13`);
    expect(seventh?.data).toMatchObject({ category: 'soft', blockedUntil: null });
    const callsBefore = fake.chargeCalls.length;
    const blocked = await decline(14);
    expect(blocked).toMatchObject({
      status: 'failed',
      declineCategory: 'card-blocked',
      retryable: false,
      processorCalls: 0,
    });
    expect(fake.chargeCalls.length).toBe(callsBefore);
    const [event] = await eventsOf(`installment:${installmentId}:attempt:14`);
    // When the block ends goes with it: dunning retries after that day, not the next.
    expect(event).toMatchObject({
      type: 'payment.failed',
      data: {
        category: 'card-blocked',
        retryable: false,
        blockedUntil: lock?.blockedUntil?.toISOString(),
      },
    });

    // 30 days later the block is over and the processor is asked again.
    clock.advance(30 * 24 * 60 * 60 * 1000 + 1000);
    expect((await decline(15)).status).toBe('succeeded');
    expect(fake.chargeCalls.length).toBe(callsBefore + 1);
  });

  it("the processor's own card-blocked blocks the card for 30 days from now, and payment.failed says until when", async () => {
    const card = await vaultCard(svc, fake, merchant.merchantId);
    fake.script(card.cardRef, ['CardBlockedError']);
    const request = chargeRequested(card);
    await publish(bus, request);
    expect(await settled(request.data.idempotencyKey)).toMatchObject({
      declineCategory: 'card-blocked',
      processorCalls: 1,
    });
    const until = new Date(clock.now().getTime() + 30 * 24 * 60 * 60 * 1000);
    const [method] = await svc.database.db
      .select()
      .from(paymentMethods)
      .where(eq(paymentMethods.id, card.id));
    expect(method?.blockedUntil).toEqual(until);
    const [event] = await eventsOf(request.data.idempotencyKey);
    expect(event?.data).toMatchObject({ category: 'card-blocked', blockedUntil: until.toISOString() });

    // The next attempt is answered by our own block, with the same end.
    const again = chargeRequested(card);
    await publish(bus, again);
    expect(await settled(again.data.idempotencyKey)).toMatchObject({ processorCalls: 0 });
    const [second] = await eventsOf(again.data.idempotencyKey);
    expect(second?.data).toMatchObject({ category: 'card-blocked', blockedUntil: until.toISOString() });
  });
});
