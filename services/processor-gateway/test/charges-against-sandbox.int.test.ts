import { createLogger } from '@payrail/observability';
import { aMerchant, type ServiceUnderTest, startService, waitFor } from '@payrail/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gatewayStores } from '../src/adapters/postgres/stores';
import { createProcessorA } from '../src/adapters/processors/processor-a';
import { createProcessorB } from '../src/adapters/processors/processor-b';
import type { ChargeJanitor } from '../src/application/charge-janitor';
import type { PaymentMethod } from '../src/domain/payment-method';
import type { ProcessorId } from '../src/ports/card-processor';
import { createProcessorGatewayService } from '../src/service';
import { chargeByKey, chargeRequested, paymentObserver, publish, saveCard, TEST_ENV } from './support';
import { type ContractSandbox, KEYS, startContractSandbox } from './contract-sandbox';

/**
 * The charge core with the real adapters against the real sandbox: the sandbox's ledger, not our own
 * tables, says what was charged.
 */
const logger = createLogger('processor-gateway', process.env.TEST_LOG_LEVEL ?? 'silent');
const merchant = aMerchant();
const observer = paymentObserver();
let sandbox: ContractSandbox;
let svc: ServiceUnderTest;
let janitor: ChargeJanitor | undefined;
let nextCustomerId = 700_000 + Math.floor(Math.random() * 100_000) * 10;

beforeAll(async () => {
  sandbox = await startContractSandbox();
  const definition = createProcessorGatewayService({
    onCreated: (parts) => {
      janitor = parts.janitor;
    },
  });
  svc = await startService(definition, {
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
  await svc.bus.subscribe(observer.subscription);
});

afterAll(async () => {
  await svc?.stop();
  await sandbox?.stop();
});

beforeEach(async () => {
  await sandbox.reset();
  // The sandbox's webhooks go to the service's own webhook routes, as in every running mode.
  sandbox.receiveWith(async (processor, raw) => {
    const response = await svc.request('POST', `/webhooks/processor-${processor.toLowerCase()}`, {
      rawBody: raw.body,
    });
    return { status: response.status, body: await response.json() };
  });
});

/** A card registered on the sandbox's hosted form and saved in our vault, as a registration would. */
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
    registrationRef: String(Date.now()).slice(-12),
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

async function chargeInState(key: string, status: string) {
  return waitFor(async () => {
    const row = await chargeByKey(svc, key);
    return row?.status === status ? row : undefined;
  });
}

async function ledgerOf(reference: string) {
  return (await sandbox.ledger()).filter((entry) => entry.reference === reference && entry.kind === 'charge');
}

describe('charges through the real adapters, judged by the sandbox ledger', () => {
  it('PROCESSOR_A approved: succeeded, one ledger entry, one payment.succeeded', async () => {
    const card = await savedCard('PARAGUAY.PROCESSOR_A', '4242424242424242');
    const request = chargeRequested(card, { amount: '150000.00' });
    await publish(svc.bus, request);
    const row = await chargeInState(request.data.idempotencyKey, 'succeeded');
    expect(await ledgerOf(row.reference)).toMatchObject([
      { amount: '150000.00', resultCode: '00', last4: '4242' },
    ]);
    await waitFor(() => observer.of(request.data.idempotencyKey).length === 1);
    expect(observer.of(request.data.idempotencyKey).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('PROCESSOR_A lost reply (card 0259): unknown, the janitor finds it, one ledger entry, succeeded', async () => {
    const card = await savedCard('PARAGUAY.PROCESSOR_A', '4000000000000259');
    const request = chargeRequested(card);
    await publish(svc.bus, request);
    const unknown = await chargeInState(request.data.idempotencyKey, 'unknown');
    expect(observer.of(request.data.idempotencyKey)).toEqual([]);
    await janitor!.runOnce();
    const row = await chargeByKey(svc, request.data.idempotencyKey);
    expect(row?.status).toBe('succeeded');
    expect(await ledgerOf(unknown.reference)).toHaveLength(1);
    await janitor!.runOnce();
    expect(await ledgerOf(unknown.reference)).toHaveLength(1);
  });

  it('PROCESSOR_A outage: a retryable processor-down failure and no ledger entry', async () => {
    const card = await savedCard('PARAGUAY.PROCESSOR_A', '4242424242424242');
    await sandbox.fault('A', 'outage', 5);
    const request = chargeRequested(card);
    await publish(svc.bus, request);
    const row = await chargeInState(request.data.idempotencyKey, 'failed');
    expect(await ledgerOf(row.reference)).toEqual([]);
    await waitFor(() => observer.of(request.data.idempotencyKey).length === 1);
    expect(observer.of(request.data.idempotencyKey)[0]).toMatchObject({
      type: 'payment.failed',
      data: { retryable: true, category: 'processor-down' },
    });
  });

  it('PROCESSOR_A decline 51: failed soft and retryable; 54 hard and not retryable', async () => {
    const card = await savedCard('PARAGUAY.PROCESSOR_A', '4242424242424242');
    await sandbox.outcomes('A', '4242', ['51', '54']);
    const soft = chargeRequested(card);
    await publish(svc.bus, soft);
    await waitFor(() => observer.of(soft.data.idempotencyKey).length === 1);
    const hard = chargeRequested(card);
    await publish(svc.bus, hard);
    await waitFor(() => observer.of(hard.data.idempotencyKey).length === 1);
    expect(observer.of(soft.data.idempotencyKey)[0]?.data).toMatchObject({
      declineCode: '51',
      category: 'soft',
      retryable: true,
    });
    expect(observer.of(hard.data.idempotencyKey)[0]?.data).toMatchObject({
      declineCode: '54',
      category: 'hard',
      retryable: false,
    });
  });

  it('PROCESSOR_A hosted payment: the signed webhook reaches the service and settles the charge', async () => {
    const merchantContext = { ...merchant };
    const opened = await svc.request('POST', '/internal/payments/hosted', {
      merchant: merchantContext,
      body: {
        linkId: 4242,
        paymentNumber: 1,
        processor: 'PARAGUAY.PROCESSOR_A',
        amount: '150000.00',
        currency: 'PYG',
        description: 'Plan mensual',
        returnUrl: 'http://pay.test/return',
        cancelUrl: 'http://pay.test/cancel',
      },
    });
    expect(opened.status).toBe(201);
    const { chargeId, form } = (await opened.json()) as { chargeId: string; form: { processId: string } };
    await sandbox.complete({ processId: form.processId }, '4242424242424242');
    const paid = await waitFor(async () => {
      const response = await svc.request('GET', `/internal/payments/${chargeId}`, {
        merchant: merchantContext,
      });
      const view = (await response.json()) as { status: string };
      return view.status === 'succeeded' ? view : undefined;
    });
    expect(paid).toMatchObject({ status: 'succeeded', amount: '150000.00' });
    expect((await sandbox.deliveries()).map((d) => d.status)).toEqual([200]);
    expect((await sandbox.ledger()).filter((e) => e.kind === 'charge')).toHaveLength(1);
  });

  it('PROCESSOR_B: the charge is pending until B decides; its notification, verified by traer, settles it', async () => {
    const card = await savedCard('PARAGUAY.PROCESSOR_B', '4242424242424242');
    const request = chargeRequested(card, { amount: '150000.00' });
    await publish(svc.bus, request);
    const row = await chargeInState(request.data.idempotencyKey, 'succeeded');
    expect(await ledgerOf(row.reference)).toMatchObject([{ amount: '150000', resultCode: '00' }]);
    // B stops only when its resultado is echoed: one delivery, echoed.
    expect((await sandbox.deliveries()).map((d) => [d.status, d.echoed])).toEqual([[200, true]]);
  });

  it('PROCESSOR_B with the notification dropped: pending until the janitor settles it by traer', async () => {
    await sandbox.fault('B', 'drop-webhook');
    const card = await savedCard('PARAGUAY.PROCESSOR_B', '4242424242424242');
    const request = chargeRequested(card, { amount: '150000.00' });
    await publish(svc.bus, request);
    // Written pending before the call; the order hash arrives with B's answer.
    const pending = await waitFor(async () => {
      const row = await chargeByKey(svc, request.data.idempotencyKey);
      return row?.status === 'pending' && row.processorReference ? row : undefined;
    });
    await waitFor(async () => (await ledgerOf(pending.reference)).length === 1);
    await janitor!.runOnce();
    expect((await chargeByKey(svc, request.data.idempotencyKey))?.status).toBe('succeeded');
    expect(await ledgerOf(pending.reference)).toMatchObject([{ amount: '150000', resultCode: '00' }]);
  });

  it('PROCESSOR_A card lock: after 7 declines in 24 h, card-blocked without another charge at the processor', async () => {
    const card = await savedCard('PARAGUAY.PROCESSOR_A', '4242424242424242');
    await sandbox.outcomes(
      'A',
      '4242',
      Array.from({ length: 7 }, () => '51'),
    );
    for (let attempt = 1; attempt <= 7; attempt++) {
      const request = chargeRequested(card, { attempt });
      await publish(svc.bus, request);
      await waitFor(() => observer.of(request.data.idempotencyKey).length === 1);
    }
    const eighth = chargeRequested(card, { attempt: 8 });
    await publish(svc.bus, eighth);
    await waitFor(() => observer.of(eighth.data.idempotencyKey).length === 1);
    expect(observer.of(eighth.data.idempotencyKey)[0]?.data).toMatchObject({ category: 'card-blocked' });
    expect((await sandbox.ledger()).filter((entry) => entry.kind === 'charge')).toHaveLength(7);
  });
});
