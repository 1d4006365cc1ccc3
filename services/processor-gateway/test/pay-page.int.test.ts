import { aMerchant, type ServiceUnderTest, startService, waitFor } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeCardProcessor } from './fake-card-processor';
import {
  chargeByKey,
  existingCharge,
  newCustomerId,
  paymentObserver,
  serviceWithFakes,
  TEST_ENV,
} from './support';

/** A time-ordered UUID (RFC 9562 version 7). */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The pay page's side of processor-gateway over internal HTTP (signed merchant context), the processors'
 * webhooks and the vault, on real PostgreSQL, against two in-memory processors.
 */
const a = new FakeCardProcessor('PARAGUAY.PROCESSOR_A');
const b = new FakeCardProcessor('PARAGUAY.PROCESSOR_B');
const { definition, janitor } = serviceWithFakes({ a, b });
const observer = paymentObserver();
const merchant = aMerchant();
const otherMerchant = aMerchant();
let svc: ServiceUnderTest;
let nextLink = 900_000 + Math.floor(Math.random() * 100_000);

beforeAll(async () => {
  svc = await startService(definition, { env: TEST_ENV });
  await svc.bus.subscribe(observer.subscription);
});
afterAll(async () => {
  await svc?.stop();
});

function hostedBody(overrides: Record<string, unknown> = {}) {
  nextLink += 1;
  return {
    linkId: nextLink,
    paymentNumber: 1,
    processor: 'PARAGUAY.PROCESSOR_A',
    amount: 150000,
    currency: 'PYG',
    description: 'Gym membership',
    returnUrl: 'http://pay.test/pay/abc/return',
    cancelUrl: 'http://pay.test/pay/abc',
    ...overrides,
  };
}

async function json(response: Response) {
  // biome-ignore lint/suspicious/noExplicitAny: the tests read loose JSON answers field by field
  return (await response.json()) as Record<string, any>;
}

async function settledEvents(key: string, count = 1) {
  await waitFor(() => observer.of(key).length >= count);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return observer.of(key);
}

/** Registers a card for a customer through the hosted registration form, as a person would. */
async function registerCard(
  customerId: number,
  processor: 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B',
  number: string,
  who = merchant,
) {
  const fake = processor === 'PARAGUAY.PROCESSOR_A' ? a : b;
  const opened = await svc.request('POST', '/internal/card-registrations', {
    merchant: who,
    body: { customerId, processor, returnUrl: 'http://pay.test/cards/return', email: 'ana@example.com' },
  });
  expect(opened.status).toBe(201);
  const { registrationId, form } = await json(opened);
  const registrationRef = String(form.url).split('/').at(-1) as string;
  fake.completeRegistrationForm(registrationRef, number);
  const completed = await svc.request('POST', `/internal/card-registrations/${registrationId}/complete`, {
    merchant: who,
  });
  expect(completed.status).toBe(200);
  return json(completed);
}

describe('hosted payment and its confirmation', () => {
  it('opens the form, gives the same form for the same attempt, and settles on a verified webhook once', async () => {
    const body = hostedBody();
    const opened = await svc.request('POST', '/internal/payments/hosted', { merchant, body });
    expect(opened.status).toBe(201);
    const first = await json(opened);
    expect(first).toMatchObject({
      status: 'pending',
      idempotencyKey: `link:${body.linkId}:payment:1`,
      amount: '150000.00',
      form: { kind: 'iframe' },
    });
    const again = await json(await svc.request('POST', '/internal/payments/hosted', { merchant, body }));
    expect(again.form).toEqual(first.form);
    expect(again.chargeId).toBe(first.chargeId);
    // The charge id is the money movement's txId wherever it is announced: time-ordered, as every charge's.
    expect(first.chargeId).toMatch(UUID_V7);

    const row = await existingCharge(svc, first.idempotencyKey);
    a.payHosted(row.reference);

    // A forged confirmation is refused and changes nothing.
    const forged = a.webhookFor(row.reference, 'not-a-signature');
    const refused = await svc.request('POST', '/webhooks/processor-a', {
      rawBody: forged.body,
      headers: forged.headers,
    });
    expect(refused.status).toBe(401);
    expect((await existingCharge(svc, first.idempotencyKey)).status).toBe('pending');

    const hook = a.webhookFor(row.reference);
    const answered = await svc.request('POST', '/webhooks/processor-a', {
      rawBody: hook.body,
      headers: hook.headers,
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ status: 'success' });
    expect((await existingCharge(svc, first.idempotencyKey)).status).toBe('succeeded');

    // The same confirmation again (a duplicate) is answered and changes nothing.
    const duplicate = await svc.request('POST', '/webhooks/processor-a', {
      rawBody: hook.body,
      headers: hook.headers,
    });
    expect(duplicate.status).toBe(200);
    const events = await settledEvents(first.idempotencyKey);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'payment.succeeded',
      // What the processor knows the charge by: the reference we sent it.
      data: {
        linkId: body.linkId,
        paymentMethodId: null,
        chargeId: first.chargeId,
        processorReference: row.reference,
        // A hosted form's card is not in the vault: unknown.
        cardBrand: null,
        cardLast4: null,
      },
    });
    // The pay page reads the same from the charge.
    const view = await json(await svc.request('GET', `/internal/payments/${first.chargeId}`, { merchant }));
    expect(view).toMatchObject({ processorReference: row.reference, authorizationCode: expect.any(String) });

    // The attempt is used up: opening it again is a conflict, not a second payment.
    const reused = await svc.request('POST', '/internal/payments/hosted', { merchant, body });
    expect(reused.status).toBe(409);
    const status = await json(
      await svc.request('GET', `/internal/links/${body.linkId}/payments/1`, { merchant }),
    );
    expect(status).toMatchObject({ status: 'succeeded', chargeId: first.chargeId });
    expect(
      (await svc.request('GET', `/internal/payments/${first.chargeId}`, { merchant: otherMerchant })).status,
    ).toBe(404);
  });

  it('a confirmation that never arrives is settled by the janitor from the status query', async () => {
    const body = hostedBody({ processor: 'PARAGUAY.PROCESSOR_B' });
    const opened = await json(await svc.request('POST', '/internal/payments/hosted', { merchant, body }));
    expect(opened.form).toMatchObject({ kind: 'redirect' });
    const row = await existingCharge(svc, opened.idempotencyKey);
    await janitor().runOnce();
    expect((await existingCharge(svc, opened.idempotencyKey)).status).toBe('pending');
    b.payHosted(row.reference);
    await janitor().runOnce();
    expect((await existingCharge(svc, opened.idempotencyKey)).status).toBe('succeeded');
    expect((await settledEvents(opened.idempotencyKey)).map((e) => e.type)).toEqual(['payment.succeeded']);
  });

  it('a confirmation naming the order only by the processor hash settles it, and the page finds it by that hash', async () => {
    const body = hostedBody({ processor: 'PARAGUAY.PROCESSOR_B' });
    const opened = await json(await svc.request('POST', '/internal/payments/hosted', { merchant, body }));
    const row = await existingCharge(svc, opened.idempotencyKey);
    expect(row.processorReference).toBe(opened.form.hash);
    b.payHosted(row.reference);
    const hook = b.webhookFor(row.reference, undefined, 'hash');
    const answered = await svc.request('POST', '/webhooks/processor-b', {
      rawBody: hook.body,
      headers: hook.headers,
    });
    expect(answered.status).toBe(200);
    expect((await existingCharge(svc, opened.idempotencyKey)).status).toBe('succeeded');
    const found = await svc.request(
      'GET',
      `/internal/processors/PARAGUAY.PROCESSOR_B/payments/${opened.form.hash}`,
      {
        merchant,
      },
    );
    expect(await json(found)).toMatchObject({ chargeId: opened.chargeId, status: 'succeeded' });
    const foreign = await svc.request(
      'GET',
      `/internal/processors/PARAGUAY.PROCESSOR_B/payments/${opened.form.hash}`,
      {
        merchant: otherMerchant,
      },
    );
    expect(foreign.status).toBe(404);
  });

  it('a declined hosted payment is a failed payment with the decline code', async () => {
    const body = hostedBody();
    const opened = await json(await svc.request('POST', '/internal/payments/hosted', { merchant, body }));
    const row = await existingCharge(svc, opened.idempotencyKey);
    a.payHosted(row.reference, '05');
    const hook = a.webhookFor(row.reference);
    await svc.request('POST', '/webhooks/processor-a', { rawBody: hook.body, headers: hook.headers });
    const [event] = await settledEvents(opened.idempotencyKey);
    expect(event).toMatchObject({
      type: 'payment.failed',
      data: { declineCode: '05', category: 'soft', retryable: true },
    });
  });

  it('refuses what it cannot do, saying why, and stores nothing half-way', async () => {
    const noContext = await svc.request('POST', '/internal/payments/hosted', { body: hostedBody() });
    expect(noContext.status).toBe(401);
    const onlyA = aMerchant({ processors: ['PARAGUAY.PROCESSOR_A'] });
    const notEnabled = hostedBody({ processor: 'PARAGUAY.PROCESSOR_B' });
    const refused = await svc.request('POST', '/internal/payments/hosted', {
      merchant: onlyA,
      body: notEnabled,
    });
    expect(refused.status).toBe(422);
    expect(await json(refused)).toMatchObject({ code: 'PROCESSOR_NOT_ENABLED' });
    expect(await chargeByKey(svc, `link:${notEnabled.linkId}:payment:1`)).toBeUndefined();
    const bad = await svc.request('POST', '/internal/payments/hosted', {
      merchant,
      body: hostedBody({ amount: '10.001', returnUrl: 'javascript:alert(1)' }),
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'amount',
      'returnUrl',
    ]);

    a.inject('outage');
    const down = hostedBody();
    const unavailable = await svc.request('POST', '/internal/payments/hosted', { merchant, body: down });
    expect(unavailable.status).toBe(503);
    expect(await json(unavailable)).toMatchObject({ code: 'PROCESSOR_UNAVAILABLE' });
  });
});

describe('the vault', () => {
  it('saves registered cards, lists them across both processors, and removes one at the processor first', async () => {
    const customerId = newCustomerId();
    const atA = await registerCard(customerId, 'PARAGUAY.PROCESSOR_A', '4242424242424242');
    expect(atA.saved).toHaveLength(1);
    expect(atA.saved[0]).toMatchObject({
      last4: '4242',
      maskedNumber: '424242******4242',
      brand: 'VISA',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const atB = await registerCard(customerId, 'PARAGUAY.PROCESSOR_B', '5555555555554444');
    expect(atB.saved[0]).toMatchObject({ last4: '4444', processor: 'PARAGUAY.PROCESSOR_B' });

    const listed = await json(
      await svc.request('GET', `/internal/customers/${customerId}/payment-methods`, { merchant }),
    );
    expect(listed.paymentMethods.map((m: { last4: string }) => m.last4)).toEqual(['4242', '4444']);
    // Another merchant sees none of them, and cannot remove them.
    const foreign = await json(
      await svc.request('GET', `/internal/customers/${customerId}/payment-methods`, {
        merchant: otherMerchant,
      }),
    );
    expect(foreign.paymentMethods).toEqual([]);
    const cardA = atA.saved[0].paymentMethodId as string;
    expect(
      (
        await svc.request('DELETE', `/internal/customers/${customerId}/payment-methods/${cardA}`, {
          merchant: otherMerchant,
        })
      ).status,
    ).toBe(404);

    const customerRefA = await customerRefOf(cardA);
    expect(await a.listCards(customerRefA)).toHaveLength(1);
    // The processor cannot be asked: 503, and the card is still saved on both sides.
    a.inject('outage');
    const unavailable = await svc.request(
      'DELETE',
      `/internal/customers/${customerId}/payment-methods/${cardA}`,
      {
        merchant,
      },
    );
    expect(unavailable.status).toBe(503);
    expect(await a.listCards(customerRefA)).toHaveLength(1);
    const still = await json(
      await svc.request('GET', `/internal/customers/${customerId}/payment-methods`, { merchant }),
    );
    expect(still.paymentMethods).toHaveLength(2);
    const removed = await svc.request(
      'DELETE',
      `/internal/customers/${customerId}/payment-methods/${cardA}`,
      { merchant },
    );
    expect(removed.status).toBe(204);
    const after = await json(
      await svc.request('GET', `/internal/customers/${customerId}/payment-methods`, { merchant }),
    );
    expect(after.paymentMethods.map((m: { last4: string }) => m.last4)).toEqual(['4444']);
    expect(await a.listCards(customerRefA)).toEqual([]);
    await waitFor(() =>
      observer.seen.some((m) => m.type === 'payment-method.removed' && m.body.includes(cardA)),
    );
    expect(
      observer.seen.filter((m) => m.type === 'payment-method.saved' && m.body.includes(cardA)),
    ).toHaveLength(1);
  });

  it("charges a saved card for the pay page once per attempt, and only the customer's own card", async () => {
    const customerId = newCustomerId();
    const { saved } = await registerCard(customerId, 'PARAGUAY.PROCESSOR_A', '4242424242424242');
    const paymentMethodId = saved[0].paymentMethodId as string;
    nextLink += 1;
    const body = {
      linkId: nextLink,
      paymentNumber: 1,
      customerId,
      paymentMethodId,
      amount: '99000',
      currency: 'PYG',
    };
    const charged = await svc.request('POST', '/internal/payments/saved-card', { merchant, body });
    expect(charged.status).toBe(201);
    const savedCardCharge = await json(charged);
    expect(savedCardCharge).toMatchObject({ status: 'succeeded', amount: '99000.00', paymentMethodId });
    expect(savedCardCharge.chargeId).toMatch(UUID_V7);
    // payment.succeeded names the vault card (brand and last 4, no more): the link's retrieval shows them.
    const [succeeded] = await settledEvents(`link:${nextLink}:payment:1`);
    expect(succeeded).toMatchObject({
      type: 'payment.succeeded',
      data: {
        chargeId: savedCardCharge.chargeId,
        paymentMethodId,
        cardBrand: saved[0].brand,
        cardLast4: '4242',
      },
    });
    expect(saved[0].brand).toEqual(expect.any(String));
    const again = await svc.request('POST', '/internal/payments/saved-card', { merchant, body });
    expect(again.status).toBe(200);
    const row = await existingCharge(svc, `link:${nextLink}:payment:1`);
    expect(a.chargeCalls.filter((call) => call.reference === row.reference)).toHaveLength(1);

    const someoneElse = await svc.request('POST', '/internal/payments/saved-card', {
      merchant,
      body: { ...body, paymentNumber: 2, customerId: newCustomerId() },
    });
    expect(someoneElse.status).toBe(404);
    const otherShop = await svc.request('POST', '/internal/payments/saved-card', {
      merchant: otherMerchant,
      body: { ...body, paymentNumber: 3 },
    });
    expect(otherShop.status).toBe(404);

    // The customer's receipts: the charge with its card's brand and last 4; nothing for another merchant.
    const described = await svc.request('POST', '/internal/payments/describe', {
      merchant,
      body: { chargeIds: [savedCardCharge.chargeId] },
    });
    expect(described.status).toBe(200);
    expect((await json(described)).payments).toEqual([
      expect.objectContaining({
        chargeId: savedCardCharge.chargeId,
        status: 'succeeded',
        amount: '99000.00',
        currency: 'PYG',
        last4: expect.stringMatching(/^\d{4}$/),
        brand: expect.any(String),
      }),
    ]);
    const elsewhere = await svc.request('POST', '/internal/payments/describe', {
      merchant: otherMerchant,
      body: { chargeIds: [savedCardCharge.chargeId] },
    });
    expect((await json(elsewhere)).payments).toEqual([]);
  });
});

describe('refusals, each answered with its problem (status, code, detail, errors)', () => {
  /** The problem document but for what changes with every request. */
  async function problemOf(response: Response) {
    const { status, code, detail, errors } = await json(response);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    return { httpStatus: response.status, status, code, detail, errors };
  }
  const notFound = (detail: string) => ({
    httpStatus: 404,
    status: 404,
    code: 'NOT_FOUND',
    detail,
    errors: [],
  });

  it('answers the pay page with the problems it has always answered', async () => {
    const onlyA = aMerchant({ processors: ['PARAGUAY.PROCESSOR_A'] });
    expect(
      await problemOf(
        await svc.request('POST', '/internal/payments/hosted', {
          merchant: onlyA,
          body: hostedBody({ processor: 'PARAGUAY.PROCESSOR_B' }),
        }),
      ),
    ).toEqual({
      httpStatus: 422,
      status: 422,
      code: 'PROCESSOR_NOT_ENABLED',
      detail: 'PARAGUAY.PROCESSOR_B is not enabled for this merchant',
      errors: [{ path: 'processor', message: 'not enabled for this merchant' }],
    });

    a.inject('outage');
    expect(
      await problemOf(
        await svc.request('POST', '/internal/payments/hosted', { merchant, body: hostedBody() }),
      ),
    ).toEqual({
      httpStatus: 503,
      status: 503,
      code: 'PROCESSOR_UNAVAILABLE',
      detail: 'The processor did not answer as expected (503); nothing was charged',
      errors: [],
    });

    // A paid hosted attempt cannot be opened again, nor paid with a saved card.
    const body = hostedBody();
    const opened = await json(await svc.request('POST', '/internal/payments/hosted', { merchant, body }));
    a.payHosted((await existingCharge(svc, opened.idempotencyKey)).reference);
    await janitor().runOnce();
    expect(
      await problemOf(await svc.request('POST', '/internal/payments/hosted', { merchant, body })),
    ).toEqual({
      httpStatus: 409,
      status: 409,
      code: 'PAYMENT_ATTEMPT_USED',
      detail: `Payment attempt 1 of link ${body.linkId} was already made`,
      errors: [],
    });
    const customerId = newCustomerId();
    const { saved } = await registerCard(customerId, 'PARAGUAY.PROCESSOR_A', '4242424242424242');
    const savedCard = {
      linkId: body.linkId,
      paymentNumber: 1,
      customerId,
      paymentMethodId: saved[0].paymentMethodId as string,
      amount: '150000',
      currency: 'PYG',
    };
    expect(
      await problemOf(
        await svc.request('POST', '/internal/payments/saved-card', { merchant, body: savedCard }),
      ),
    ).toEqual({
      httpStatus: 409,
      status: 409,
      code: 'PAYMENT_ATTEMPT_USED',
      detail: 'This payment attempt was already made',
      errors: [],
    });
    expect(
      await problemOf(
        await svc.request('POST', '/internal/payments/saved-card', {
          merchant,
          body: { ...savedCard, paymentNumber: 2, paymentMethodId: '0190a4c2-7d5e-7c3b-8a1f-3e2d1c0b9a87' },
        }),
      ),
    ).toEqual(notFound('Payment method not found'));

    const get = (path: string) => svc.request('GET', path, { merchant });
    expect(await problemOf(await get('/internal/payments/not-a-uuid'))).toEqual(
      notFound('Payment not found'),
    );
    expect(await problemOf(await get('/internal/links/0/payments/1'))).toEqual(notFound('Payment not found'));
    expect(await problemOf(await get(`/internal/links/${body.linkId}/payments/9`))).toEqual(
      notFound('Payment not found'),
    );
    expect(await problemOf(await get('/internal/processors/PARAGUAY.NOPE/payments/1'))).toEqual(
      notFound('Payment not found'),
    );
    expect(await problemOf(await get('/internal/customers/abc/payment-methods'))).toEqual(
      notFound('Customer not found'),
    );
    expect(
      await problemOf(
        await svc.request('DELETE', `/internal/customers/abc/payment-methods/${savedCard.paymentMethodId}`, {
          merchant,
        }),
      ),
    ).toEqual(notFound('Payment method not found'));
    expect(
      await problemOf(
        await svc.request('DELETE', `/internal/customers/${customerId}/payment-methods/not-a-uuid`, {
          merchant,
        }),
      ),
    ).toEqual(notFound('Payment method not found'));
    for (const registrationId of ['not-a-uuid', '0190a4c2-7d5e-7c3b-8a1f-3e2d1c0b9a87']) {
      expect(
        await problemOf(
          await svc.request('POST', `/internal/card-registrations/${registrationId}/complete`, { merchant }),
        ),
      ).toEqual(notFound('Card registration not found'));
    }
  });
});

async function customerRefOf(paymentMethodId: string): Promise<string> {
  const rows = await svc.database.db.execute(
    sql`select customer_ref from processor_gateway.payment_methods where id = ${paymentMethodId}`,
  );
  return (rows as unknown as Array<{ customer_ref: string }>)[0]?.customer_ref ?? '';
}

describe('no card number anywhere', () => {
  it('the schema has no column for one, and no table holds a 13 to 19 digit run after cards and payments', async () => {
    // A processor that shows the whole number in its "masked" field must not make us keep it.
    b.leakFullNumberInMask = true;
    try {
      const customerId = newCustomerId();
      const { saved } = await registerCard(customerId, 'PARAGUAY.PROCESSOR_B', '4000000000000077');
      expect(saved[0].maskedNumber).toBe('400000******0077');
    } finally {
      b.leakFullNumberInMask = false;
    }
    const columns = (await svc.database.db.execute(
      sql`select table_name, column_name, data_type from information_schema.columns where table_schema = 'processor_gateway'`,
    )) as unknown as Array<{ table_name: string; column_name: string; data_type: string }>;
    // A bare `number` is suspicious where it can hold digits as text; an integer (an installment's number in
    // the ledger) cannot keep a 16-digit card number with its leading zeros and is what it says.
    const suspicious = columns.filter(
      ({ column_name, data_type }) =>
        /^(pan|cvv|cvc|cvv2|card_number|card_no)$/.test(column_name) ||
        (column_name === 'number' && !/^(integer|smallint)$/.test(data_type)),
    );
    expect(suspicious).toEqual([]);

    const tables = [...new Set(columns.map((column) => column.table_name))];
    expect(tables).toEqual(
      expect.arrayContaining(['charges', 'payment_methods', 'outbox', 'card_registrations']),
    );
    const runs: string[] = [];
    const scanned: string[] = [];
    for (const table of tables) {
      const rows = (await svc.database.db.execute(
        sql.raw(`select t::text as line from processor_gateway."${table}" t`),
      )) as unknown as Array<{ line: string }>;
      if (rows.length > 0) scanned.push(table);
      for (const { line } of rows)
        for (const match of line.match(/\d{13,19}/g) ?? []) runs.push(`${table}: ${match}`);
    }
    expect(scanned).toEqual(
      expect.arrayContaining([
        'charges',
        'payment_methods',
        'outbox',
        'card_registrations',
        'processor_customers',
      ]),
    );
    expect(runs).toEqual([]);
    const eventRuns = observer.seen.flatMap((message) => message.body.match(/\d{13,19}/g) ?? []);
    expect(eventRuns).toEqual([]);
  });
});
