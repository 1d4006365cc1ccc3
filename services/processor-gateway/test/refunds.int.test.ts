import { randomUUID } from 'node:crypto';
import { rowsOf } from '@payrail/db';
import { createLogger } from '@payrail/observability';
import { aMerchant, type ServiceUnderTest, startService, testClock, waitFor } from '@payrail/testing';
import { eq, sql } from 'drizzle-orm';
import { v7 as timeOrderedUuid } from 'uuid';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bankTransfers, refunds } from '../src/adapters/postgres/schema';
import { gatewayStores } from '../src/adapters/postgres/stores';
import { createProcessorA } from '../src/adapters/processors/processor-a';
import { createProcessorB } from '../src/adapters/processors/processor-b';
import type { RefundJanitor } from '../src/application/refund-janitor';
import type { PaymentMethod } from '../src/domain/payment-method';
import type { ProcessorId } from '../src/ports/card-processor';
import { createProcessorGatewayService } from '../src/service';
import { type ContractSandbox, KEYS, startContractSandbox } from './contract-sandbox';
import { chargeByKey, chargeRequested, publish, saveCard, TEST_ENV } from './support';

/**
 * Refunds (issue 27) through the real adapters against the real sandbox: the sandbox's ledger, not our own
 * tables, says what money went back. processor-gateway's clock and the sandbox's are set together, to noon
 * in Asunción, so "the payment's day" is a day the test chooses.
 */
const logger = createLogger('processor-gateway', process.env.TEST_LOG_LEVEL ?? 'silent');
const NOON_IN_ASUNCION = new Date('2026-11-23T15:00:00Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const merchant = aMerchant();
const clock = testClock(NOON_IN_ASUNCION);
let sandbox: ContractSandbox;
let svc: ServiceUnderTest;
let janitor: RefundJanitor | undefined;
/** A JSON answer, with the fields the tests read. */
type Answer = Record<string, unknown> & {
  id: string;
  status: string;
  code: string;
  errors: Array<{ path: string; message: string }>;
};
const bodyOf = async (response: Response) => (await response.json()) as Answer;

let nextCustomerId = 800_000 + Math.floor(Math.random() * 100_000) * 10;

beforeAll(async () => {
  sandbox = await startContractSandbox();
  const definition = createProcessorGatewayService({
    onCreated: (parts) => {
      janitor = parts.refundJanitor;
    },
  });
  svc = await startService(definition, {
    clock,
    env: {
      ...TEST_ENV,
      PROCESSOR_SANDBOX_URL: sandbox.baseUrl,
      PROCESSOR_A_PUBLIC_KEY: KEYS.A.publicKey,
      PROCESSOR_A_PRIVATE_KEY: KEYS.A.privateKey,
      PROCESSOR_B_PUBLIC_KEY: KEYS.B.publicKey,
      PROCESSOR_B_PRIVATE_KEY: KEYS.B.privateKey,
      PROCESSOR_TIMEOUT_MS: '5000',
    },
  });
});

afterAll(async () => {
  await svc?.stop();
  await sandbox?.stop();
});

beforeEach(async () => {
  await sandbox.reset();
  await sandbox.setClock(NOON_IN_ASUNCION);
  clock.set(NOON_IN_ASUNCION);
  sandbox.receiveWith(async (processor, raw) => {
    const response = await svc.request('POST', `/webhooks/processor-${processor.toLowerCase()}`, {
      rawBody: raw.body,
    });
    return { status: response.status, body: await bodyOf(response) };
  });
});

/** Both clocks a day (and an hour) later: the payment's day is over. */
async function nextDay(): Promise<void> {
  clock.advance(DAY_MS + 3_600_000);
  await sandbox.advanceClock((DAY_MS + 3_600_000) / 1000);
}

async function savedCard(processor: ProcessorId, cardNumber: string): Promise<PaymentMethod> {
  const stores = gatewayStores(svc.database.db);
  nextCustomerId += 1;
  const customerRef = await stores.customers.processorCustomerRef(
    merchant.merchantId,
    nextCustomerId,
    processor,
    new Date(),
  );
  const adapter =
    processor === 'PARAGUAY.PROCESSOR_A'
      ? createProcessorA(sandbox.settings('A'), { logger })
      : createProcessorB(sandbox.settings('B'), { logger });
  const opened = await adapter.openCardRegistration({
    customerRef,
    registrationRef: `${nextCustomerId}${String(Date.now()).slice(-5)}`,
    returnUrl: 'http://pay.test/cards/return',
  });
  if (opened.kind !== 'opened') throw new Error(`registration not opened: ${JSON.stringify(opened)}`);
  const target =
    opened.form.kind === 'iframe' ? { processId: opened.form.processId } : { hash: opened.form.hash };
  await sandbox.complete(target, cardNumber);
  const [card] = await adapter.completeCardRegistration({ customerRef, registrationRef: '0' });
  if (!card) throw new Error('card not registered');
  return saveCard(
    stores,
    { merchantId: merchant.merchantId, customerId: nextCustomerId, processor, customerRef },
    card,
  );
}

/** An installment charged by card and settled (`succeeded`, or `failed` for a declining card). */
async function chargedPayment(
  processor: ProcessorId,
  options: { cardNumber?: string; amount?: string; status?: 'succeeded' | 'failed' } = {},
) {
  const card = await savedCard(processor, options.cardNumber ?? '4242424242424242');
  const request = chargeRequested(card, { amount: options.amount ?? '150000.00' });
  await publish(svc.bus, request);
  return waitFor(async () => {
    const row = await chargeByKey(svc, request.data.idempotencyKey);
    return row?.status === (options.status ?? 'succeeded') ? row : undefined;
  }, 15_000);
}

/** A bank transfer of the merchant's, registered (as `POST /api/bank-notification/add` leaves it). */
async function registeredTransfer(amount = '150000.00', currency = 'PYG') {
  const txId = timeOrderedUuid();
  await svc.database.db.insert(bankTransfers).values({
    txId,
    merchantId: merchant.merchantId,
    reference: `TRF-${randomUUID()}`,
    fingerprint: 'test',
    status: 'settled',
    targetType: 'PAY_REQUEST',
    amount,
    currency,
    bankName: 'Banco Nacional',
    transferDate: '2026-11-23',
    note: null,
    request: {},
    response: { currency, target: { type: 'PAY_REQUEST', payRequestId: 4242, statusId: 200 } },
    merchant: merchant as unknown as Record<string, unknown>,
    createdAt: clock.now(),
    settledAt: clock.now(),
  });
  return txId;
}

function refund(
  paymentId: string,
  body: Record<string, unknown> = {},
  options: { key?: string | null; as?: typeof merchant } = {},
) {
  const key = options.key === undefined ? randomUUID() : options.key;
  return svc.request('POST', `/api/payments/${paymentId}/refunds`, {
    body,
    merchant: options.as ?? merchant,
    headers: key === null ? {} : { 'idempotency-key': key },
  });
}

async function refundRowsOf(paymentId: string) {
  return svc.database.db.select().from(refunds).where(eq(refunds.paymentId, paymentId));
}

/** The `refund.*` events written for a payment, in order. */
async function refundEventsOf(paymentId: string) {
  const rows = rowsOf<{ type: string; data: Record<string, unknown> }>(
    await svc.database.db.execute(sql`
    select type, body::jsonb -> 'data' as data from processor_gateway.outbox
    where type like 'refund.%' and body::jsonb -> 'data' ->> 'paymentId' = ${paymentId}
    order by id`),
  );
  return rows;
}

async function ledgerOf(reference: string) {
  return (await sandbox.ledger()).filter((entry) => entry.reference === reference);
}

describe('a card payment given back through its processor', () => {
  it('PROCESSOR_A the same day: rolled back, succeeded, one rollback in its ledger, refund.succeeded', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    const response = await refund(charge.id, { reason: 'Charged twice' });
    expect(response.status).toBe(201);
    const body = await bodyOf(response);
    expect(body).toMatchObject({
      paymentId: charge.id,
      status: 'succeeded',
      amount: '150000.00',
      currency: 'PYG',
      mode: 'rollback',
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_A',
      reference: null,
      reason: 'Charged twice',
      paymentAmount: '150000.00',
      refundedAmount: '150000.00',
      refundableAmount: '0.00',
      createdAt: '2026-11-23T12:00:00-03:00',
      succeededAt: '2026-11-23T12:00:00-03:00',
      failedAt: null,
    });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'rollback']);
    const events = await refundEventsOf(charge.id);
    expect(events.map((event) => event.type)).toEqual(['refund.succeeded']);
    expect(events[0]?.data).toMatchObject({
      refundId: body.id,
      paymentId: charge.id,
      merchantId: merchant.merchantId,
      amount: '150000.00',
      refundedTotal: '150000.00',
      mode: 'rollback',
      method: 'CARD',
      installmentId: charge.installmentId,
      linkId: null,
    });
    // Nothing is left: another refund of it, under another key, is refused and writes nothing.
    const again = await refund(charge.id);
    expect(again.status).toBe(409);
    expect((await bodyOf(again)).code).toBe('PAYMENT_FULLY_REFUNDED');
    expect(await refundRowsOf(charge.id)).toHaveLength(1);
  });

  it('PROCESSOR_A a later day: 409 PROCESSOR_REFUND_NOT_POSSIBLE, nothing written, nothing asked of it', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    await nextDay();
    const response = await refund(charge.id);
    expect(response.status).toBe(409);
    expect(await bodyOf(response)).toMatchObject({
      code: 'PROCESSOR_REFUND_NOT_POSSIBLE',
      detail: expect.stringContaining('only on the day it was made (2026-11-23, Asunción time)'),
    });
    expect(await refundRowsOf(charge.id)).toEqual([]);
    expect(await refundEventsOf(charge.id)).toEqual([]);
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge']);
    // What the merchant can do instead: give it back outside and record it.
    const outside = await refund(charge.id, {
      amount: '150000',
      method: 'BANK_TRANSFER',
      reference: 'DEV-0001',
    });
    expect(outside.status).toBe(201);
    expect(await bodyOf(outside)).toMatchObject({ status: 'succeeded', mode: 'outside', processor: null });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge']);
  });

  it('PROCESSOR_B the same day: reversed at once, succeeded, one reversal in its ledger', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_B');
    const response = await refund(charge.id);
    expect(response.status).toBe(201);
    expect(await bodyOf(response)).toMatchObject({
      status: 'succeeded',
      mode: 'reversal',
      processor: 'PARAGUAY.PROCESSOR_B',
      scheduledAt: null,
    });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'reversal']);
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual(['refund.succeeded']);
  });

  it('PROCESSOR_B a later day: scheduled, then succeeded once its clock passes the next day and the janitor asks', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_B');
    await nextDay();
    const response = await refund(charge.id);
    expect(response.status).toBe(201);
    const body = await bodyOf(response);
    expect(body).toMatchObject({
      status: 'scheduled',
      mode: 'reversal',
      scheduledAt: '2026-11-24T13:00:00-03:00',
      succeededAt: null,
      refundedAmount: '0.00',
      refundableAmount: '0.00',
    });
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual(['refund.scheduled']);
    // Not applied yet: the janitor asks and it stays scheduled (no second request to the processor).
    await janitor?.runOnce();
    expect((await refundRowsOf(charge.id))[0]).toMatchObject({ status: 'scheduled', processorCalls: 1 });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge']);

    await nextDay();
    await janitor?.runOnce();
    const read = await svc.request('GET', `/api/payments/${charge.id}/refunds/${body.id}`, { merchant });
    expect(read.status).toBe(200);
    expect(await bodyOf(read)).toMatchObject({
      id: body.id,
      status: 'succeeded',
      refundedAmount: '150000.00',
      scheduledAt: '2026-11-24T13:00:00-03:00',
      succeededAt: '2026-11-25T14:00:00-03:00',
    });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'reversal']);
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual([
      'refund.scheduled',
      'refund.succeeded',
    ]);
  });

  it('a part of a card payment cannot go through the processor: 409, and outside it can', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    const partial = await refund(charge.id, { amount: 50000 });
    expect(partial.status).toBe(409);
    expect(await bodyOf(partial)).toMatchObject({
      code: 'PARTIAL_CARD_REFUND_NOT_POSSIBLE',
      errors: [{ path: 'amount', message: 'a card refund is the whole payment (150000.00)' }],
    });
    const outside = await refund(charge.id, { amount: 50000, method: 'CASH' });
    expect(outside.status).toBe(201);
    // With a part given back, what is left is no longer the whole payment: not through the processor.
    const rest = await refund(charge.id);
    expect(rest.status).toBe(409);
    expect((await bodyOf(rest)).code).toBe('PARTIAL_CARD_REFUND_NOT_POSSIBLE');
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge']);
  });
});

describe('exactly once', () => {
  it('the same key again answers the same refund (200) without asking the processor twice', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    const key = randomUUID();
    const first = await refund(charge.id, { reason: 'Duplicate' }, { key });
    const second = await refund(charge.id, { reason: 'Duplicate' }, { key });
    expect([first.status, second.status]).toEqual([201, 200]);
    const [a, b] = [await bodyOf(first), await bodyOf(second)];
    expect(b).toEqual(a);
    // Another request under the key is refused, as the gateway refuses it.
    const other = await refund(charge.id, { reason: 'Something else' }, { key });
    expect(other.status).toBe(422);
    expect((await bodyOf(other)).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await ledgerOf(charge.reference)).filter((entry) => entry.kind === 'rollback')).toHaveLength(1);
  });

  it('20 identical requests at once: one refund, one rollback, one event; every answer names it', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => refund(charge.id, { reason: 'Once' }, { key })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, ...Array(18).fill(200), 201].sort());
    const ids = new Set(await Promise.all(answers.map(async (answer) => (await bodyOf(answer)).id)));
    expect(ids.size).toBe(1);
    expect(await refundRowsOf(charge.id)).toHaveLength(1);
    expect((await ledgerOf(charge.reference)).filter((entry) => entry.kind === 'rollback')).toHaveLength(1);
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual(['refund.succeeded']);
  });

  it('a lost reply (PROCESSOR_A): pending, then the janitor finds it rolled back: succeeded, one rollback', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    await sandbox.fault('A', 'lose-reply');
    const response = await refund(charge.id);
    expect(response.status).toBe(201);
    const body = await bodyOf(response);
    expect(body).toMatchObject({ status: 'pending', refundableAmount: '0.00', refundedAmount: '0.00' });
    expect((await refundRowsOf(charge.id))[0]).toMatchObject({ status: 'unknown', processorCalls: 1 });
    expect(await refundEventsOf(charge.id)).toEqual([]);
    // The processor did roll it back; only its answer was lost.
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'rollback']);
    expect(await janitor?.runOnce()).toEqual({ checked: 1, settled: 1 });
    expect((await refundRowsOf(charge.id))[0]).toMatchObject({
      status: 'succeeded',
      processorCalls: 1,
      statusChecks: 1,
    });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'rollback']);
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual(['refund.succeeded']);
    expect(await janitor?.runOnce()).toEqual({ checked: 0, settled: 0 });
  });

  it('a lost reply of a scheduled reversal (PROCESSOR_B): the janitor sends it again and learns it is scheduled', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_B');
    await nextDay();
    await sandbox.fault('B', 'lose-reply');
    const response = await refund(charge.id);
    expect(await bodyOf(response)).toMatchObject({ status: 'pending' });
    // B's status still says paid (a scheduled reversal is not applied): the reversal is asked again, and B
    // answers that it has it.
    await janitor?.runOnce();
    expect((await refundRowsOf(charge.id))[0]).toMatchObject({ status: 'scheduled', processorCalls: 2 });
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual(['refund.scheduled']);
    await nextDay();
    await janitor?.runOnce();
    expect((await refundRowsOf(charge.id))[0]).toMatchObject({ status: 'succeeded' });
    expect((await ledgerOf(charge.reference)).filter((entry) => entry.kind === 'reversal')).toHaveLength(1);
  });

  it('a process stopped between the row and the call: the janitor sends it after the deadline, once', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    // What a crash right after the commit leaves: the refund `pending`, its call counted, nothing sent.
    const id = timeOrderedUuid();
    const now = clock.now();
    await svc.database.db.insert(refunds).values({
      id,
      merchantId: merchant.merchantId,
      paymentId: charge.id,
      idempotencyKey: randomUUID(),
      fingerprint: 'crashed',
      mode: 'rollback',
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_A',
      amount: '150000.00',
      currency: 'PYG',
      status: 'pending',
      processorCalls: 1,
      installmentId: charge.installmentId,
      createdAt: now,
      updatedAt: now,
      nextCheckAt: new Date(now.getTime() + 10_000),
    });
    expect(await janitor?.runOnce()).toEqual({ checked: 0, settled: 0 });
    clock.advance(11_000);
    expect(await janitor?.runOnce()).toEqual({ checked: 1, settled: 1 });
    expect((await refundRowsOf(charge.id))[0]).toMatchObject({ status: 'succeeded', processorCalls: 2 });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'rollback']);
  });

  it('an outage: failed PROCESSOR_UNAVAILABLE with refund.failed, nothing given back; a new key refunds it', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_B');
    await sandbox.fault('B', 'outage');
    const response = await refund(charge.id);
    expect(response.status).toBe(201);
    expect(await bodyOf(response)).toMatchObject({
      status: 'failed',
      failureCode: 'PROCESSOR_UNAVAILABLE',
      failureMessage: expect.stringContaining('nothing was given back'),
      refundableAmount: '150000.00',
      succeededAt: null,
      failedAt: '2026-11-23T12:00:00-03:00',
    });
    expect((await refundEventsOf(charge.id)).map((event) => event.type)).toEqual(['refund.failed']);
    expect((await refundEventsOf(charge.id))[0]?.data).toMatchObject({
      code: 'PROCESSOR_UNAVAILABLE',
      refundedTotal: '0.00',
    });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge']);
    const retried = await refund(charge.id);
    expect(await bodyOf(retried)).toMatchObject({ status: 'succeeded' });
    expect((await ledgerOf(charge.reference)).map((entry) => entry.kind)).toEqual(['charge', 'reversal']);
  });
});

describe('outside refunds', () => {
  it('partial refunds of a bank transfer add up; more than is left is 422; nothing left is 409', async () => {
    const transfer = await registeredTransfer('150000.00');
    const first = await refund(transfer, { amount: 30000, method: 'BANK_TRANSFER', reference: 'R-1' });
    expect(first.status).toBe(201);
    expect(await bodyOf(first)).toMatchObject({
      status: 'succeeded',
      mode: 'outside',
      method: 'BANK_TRANSFER',
      reference: 'R-1',
      amount: '30000.00',
      refundedAmount: '30000.00',
      refundableAmount: '120000.00',
    });
    const second = await refund(transfer, { amount: '20000.00', method: 'CASH' });
    expect(await bodyOf(second)).toMatchObject({ refundedAmount: '50000.00', refundableAmount: '100000.00' });
    const tooMuch = await refund(transfer, { amount: 100001, method: 'CASH' });
    expect(tooMuch.status).toBe(422);
    expect(await bodyOf(tooMuch)).toMatchObject({
      code: 'REFUND_AMOUNT_EXCEEDS_REFUNDABLE',
      detail: 'amount 100001.00 is more than the 100000.00 left to refund',
    });
    // A bank transfer has no processor to give it back.
    const byCard = await refund(transfer);
    expect(byCard.status).toBe(409);
    expect((await bodyOf(byCard)).code).toBe('PROCESSOR_REFUND_NOT_POSSIBLE');
    const rest = await refund(transfer, { amount: 100000, method: 'CASH' });
    expect(await bodyOf(rest)).toMatchObject({ refundedAmount: '150000.00', refundableAmount: '0.00' });
    const none = await refund(transfer, { amount: 1, method: 'CASH' });
    expect(none.status).toBe(409);
    expect((await bodyOf(none)).code).toBe('PAYMENT_FULLY_REFUNDED');
    const events = await refundEventsOf(transfer);
    expect(events.map((event) => [event.type, event.data.refundedTotal])).toEqual([
      ['refund.succeeded', '30000.00'],
      ['refund.succeeded', '50000.00'],
      ['refund.succeeded', '150000.00'],
    ]);
    expect(events[0]?.data).toMatchObject({ linkId: 4242, installmentId: null, processor: null });
  });

  it('50 partial refunds at once never add up to more than the payment', async () => {
    const transfer = await registeredTransfer('150000.00');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        refund(transfer, { amount: 7000, method: 'BANK_TRANSFER', reference: `P-${index}` }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    // 21 × 7000 = 147000 fit; the 22nd would pass 150000.
    expect(statuses.filter((status) => status === 201)).toHaveLength(21);
    expect(statuses.filter((status) => status !== 201).every((status) => status === 422)).toBe(true);
    const rows = await refundRowsOf(transfer);
    expect(rows).toHaveLength(21);
    const [total] = rowsOf<{ sum: string }>(
      await svc.database.db.execute(
        sql`select sum(amount)::text as sum from processor_gateway.refunds where payment_id = ${transfer}`,
      ),
    );
    expect(total?.sum).toBe('147000.00');
    expect(await refundEventsOf(transfer)).toHaveLength(21);
  });
});

describe('refusals leave nothing', () => {
  it('404 for no such payment and for another merchant’s; 409 for a declined attempt and for a refund', async () => {
    const charge = await chargedPayment('PARAGUAY.PROCESSOR_A');
    const unknown = await refund(randomUUID());
    expect(unknown.status).toBe(404);
    expect((await bodyOf(unknown)).code).toBe('PAYMENT_NOT_FOUND');
    const other = await refund(charge.id, {}, { as: aMerchant() });
    expect(other.status).toBe(404);
    expect(await bodyOf(other)).toMatchObject({
      code: 'PAYMENT_NOT_FOUND',
      detail: `Payment ${charge.id} not found`,
    });

    const declined = await chargedPayment('PARAGUAY.PROCESSOR_A', {
      cardNumber: '4000000000009995',
      status: 'failed',
    });
    const attempt = await refund(declined.id, { amount: 1, method: 'CASH' });
    expect(attempt.status).toBe(409);
    expect((await bodyOf(attempt)).code).toBe('PAYMENT_NOT_REFUNDABLE');

    const made = await bodyOf(await refund(charge.id));
    const ofRefund = await refund(made.id);
    expect(ofRefund.status).toBe(409);
    expect(await bodyOf(ofRefund)).toMatchObject({
      code: 'PAYMENT_NOT_REFUNDABLE',
      detail: `${made.id} is a refund: a refund cannot be refunded`,
    });
    const read = await svc.request('GET', `/api/payments/${charge.id}/refunds/${made.id}`, {
      merchant: aMerchant(),
    });
    expect(read.status).toBe(404);
    const wrongPair = await svc.request('GET', `/api/payments/${declined.id}/refunds/${made.id}`, {
      merchant,
    });
    expect(wrongPair.status).toBe(404);
    expect((await bodyOf(wrongPair)).code).toBe('REFUND_NOT_FOUND');
    expect(await refundRowsOf(declined.id)).toEqual([]);
    expect(await refundRowsOf(charge.id)).toHaveLength(1);
  });

  it.each([
    ['zero', { amount: 0, method: 'CASH' }, 'must be greater than 0'],
    ['negative', { amount: '-10', method: 'CASH' }, 'must be greater than 0'],
    [
      'a fraction of a guaraní',
      { amount: 100.5, method: 'CASH' },
      'must be a whole number: PYG has no decimals',
    ],
    ['three decimals', { amount: '100.001', method: 'CASH' }, 'must be a whole number: PYG has no decimals'],
  ])('422 REFUND_AMOUNT_INVALID for %s, nothing written', async (_, body, message) => {
    const transfer = await registeredTransfer();
    const response = await refund(transfer, body);
    expect(response.status).toBe(422);
    expect(await bodyOf(response)).toMatchObject({
      code: 'REFUND_AMOUNT_INVALID',
      errors: [{ path: 'amount', message }],
    });
    expect(await refundRowsOf(transfer)).toEqual([]);
  });

  it('trailing zeros are not decimals: 150000.00 is a whole PYG amount', async () => {
    const transfer = await registeredTransfer();
    const response = await refund(transfer, { amount: '150000.00', method: 'CASH' });
    expect(response.status).toBe(201);
  });

  it.each([
    ['no Idempotency-Key', {}, null, 'IDEMPOTENCY_KEY_REQUIRED', 'Idempotency-Key'],
    ['a key with a space', {}, 'a key', 'VALIDATION_ERROR', 'Idempotency-Key'],
    ['an unknown method', { method: 'PAYPAL' }, undefined, 'VALIDATION_ERROR', 'method'],
    [
      'an amount that is no number',
      { amount: 'ten', method: 'CASH' },
      undefined,
      'VALIDATION_ERROR',
      'amount',
    ],
    ['an outside refund without amount', { method: 'CASH' }, undefined, 'VALIDATION_ERROR', 'amount'],
    [
      'a transfer without reference',
      { amount: 1, method: 'BANK_TRANSFER' },
      undefined,
      'VALIDATION_ERROR',
      'reference',
    ],
    ['a reference on a card refund', { reference: 'X' }, undefined, 'VALIDATION_ERROR', 'reference'],
  ])('400 for %s, nothing written', async (_, body, key, code, path) => {
    const transfer = await registeredTransfer();
    const response = await refund(transfer, body, { key });
    expect(response.status).toBe(400);
    const problem = await bodyOf(response);
    expect(problem.code).toBe(code);
    expect(problem.errors.map((error) => error.path)).toContain(path);
    expect(await refundRowsOf(transfer)).toEqual([]);
  });
});
