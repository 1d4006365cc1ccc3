import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installments as installmentsTable } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import {
  activate,
  activeSubscription,
  createSubscription,
  eventsOfType,
  expectRefused,
  installmentsOfSubscription,
  installmentSets,
  merchantState,
  type Problem,
  subscriptionOfLink,
} from './support';

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-20T12:00:00Z')) });
});
afterAll(async () => svc?.stop());

async function eventsFor(type: string, subscriptionId: number) {
  return (await eventsOfType(svc, type))
    .map((e) => e.data as Record<string, unknown>)
    .filter((data) => data.subscriptionId === subscriptionId);
}

async function activeDynamic(merchant: MerchantContext) {
  const created = await createSubscription(svc, merchant, { recurrence: { type: 'DYNAMIC' } });
  await activate(svc, merchant, created.linkId);
  return created.subscription;
}

describe('GET /api/subscriptions/installments', () => {
  it('lists the pending installments, snake_case, amounts as numbers written with two decimals', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant, { customIdentifier2: 'C-2' });
    const response = await svc.request(
      'GET',
      '/api/subscriptions/installments?custom_identifier=CI-1&custom_identifier2=C-2',
      {
        merchant,
      },
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"amount":150000.00');
    expect(JSON.parse(text)).toEqual({
      installments: installments.slice(1).map((i) => ({
        installment_id: i.id,
        payment_date: i.paymentDate,
        amount: 150000,
        status: 'pending',
        number: i.number,
        last_attempt: null,
        next_attempt_on: null,
      })),
    });
  });

  it('lists installment 1 while the link is unpaid, and invoice numbers where there are some', async () => {
    const merchant = aMerchant({ saasContract: true });
    const { subscription } = await createSubscription(svc, merchant, {
      recurrence: { type: 'DYNAMIC' },
      amount: '99.90',
    });
    const pending = await svc.request('GET', '/api/subscriptions/installments?custom_identifier=CI-1', {
      merchant,
    });
    expect(await pending.text()).toContain('"amount":99.90');
    await activate(svc, merchant, subscription.linkId);
    await svc.request('POST', '/api/subscriptions/installments', {
      merchant,
      body: {
        custom_identifier: 'CI-1',
        installments: [{ payment_date: '2026-02-01', amount: '10050', invoice_number: 'F-7' }],
      },
    });
    const listed = await svc.request('GET', '/api/subscriptions/installments?custom_identifier=CI-1', {
      merchant,
    });
    expect(((await listed.json()) as { installments: unknown[] }).installments).toEqual([
      expect.objectContaining({
        payment_date: '2026-02-01',
        amount: 10050,
        number: 2,
        invoice_number: 'F-7',
      }),
    ]);
  });

  it('400 with the parameter path when no identifier is given', async () => {
    const response = await svc.request('GET', '/api/subscriptions/installments?other=X', {
      merchant: aMerchant(),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Problem).errors.map((e) => e.path)).toEqual(['custom_identifier']);
  });

  it('409 when two subscriptions match', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await activeSubscription(svc, merchant);
    const response = await svc.request('GET', '/api/subscriptions/installments?custom_identifier=CI-1', {
      merchant,
    });
    expect(response.status).toBe(409);
    const problem = (await response.json()) as Problem;
    expect(problem.code).toBe('MULTIPLE_SUBSCRIPTIONS_MATCH');
    // The fields it names as v2 spells them.
    expect(problem.detail).toBe(
      '2 subscriptions match the identifiers; give custom_identifier2 or pay_request_id to choose one',
    );
  });

  it("404 for another merchant's subscription", async () => {
    await activeSubscription(svc, aMerchant(), { customIdentifier: 'ONLY-MINE' });
    const response = await svc.request('GET', '/api/subscriptions/installments?custom_identifier=ONLY-MINE', {
      merchant: aMerchant(),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as Problem).code).toBe('SUBSCRIPTION_NOT_FOUND');
  });
});

describe('PATCH /api/subscriptions/installments/{id}', () => {
  it('changes amount and date of a pending installment and announces both', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    const target = installments[2];
    const response = await svc.request('PATCH', `/api/subscriptions/installments/${target?.id}`, {
      merchant,
      body: { amount: 155000, payment_date: '2026-03-12' },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"amount":155000.00');
    expect(JSON.parse(text)).toEqual({
      installment_id: target?.id,
      payment_date: '2026-03-12',
      amount: 155000,
      status: 'pending',
      number: 3,
    });
    const stored = (await installmentsOfSubscription(svc, subscription.id))[2];
    expect([stored?.amount, stored?.paymentDate]).toEqual(['155000.00', '2026-03-12']);
    expect(await installmentSets(svc, 'installments.updated', subscription.id)).toEqual([
      [
        {
          installmentId: target?.id,
          number: 3,
          amount: '155000.00',
          paymentDate: '2026-03-12',
          status: 'pending',
          invoiceNumber: null,
          changedFields: ['amount', 'paymentDate'],
        },
      ],
    ]);
    expect(await eventsFor('installments.updated', subscription.id)).toEqual([
      expect.objectContaining({
        merchantId: merchant.merchantId,
        status: 'active',
        currency: 'PYG',
        timezone: 'America/Asuncion',
      }),
    ]);
  });

  it('409 for installment 1 (settled by the link) and for a cancelled installment, nothing changed', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        svc.request('PATCH', `/api/subscriptions/installments/${installments[0]?.id}`, {
          merchant,
          body: { amount: 1 },
        }),
      { status: 409, code: 'FIRST_INSTALLMENT_SETTLED_BY_LINK' },
    );
    await svc.request('POST', `/api/subscriptions/installments/${installments[1]?.id}/cancel`, { merchant });
    await expectRefused(
      svc,
      merchant,
      () =>
        svc.request('PATCH', `/api/subscriptions/installments/${installments[1]?.id}`, {
          merchant,
          body: { amount: 1 },
        }),
      { status: 409, code: 'INSTALLMENT_NOT_PENDING' },
    );
  });

  it('400 with the field path for bad input, 422 for a date in the past, nothing changed', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant);
    const path = `/api/subscriptions/installments/${installments[1]?.id}`;
    await expectRefused(
      svc,
      merchant,
      () => svc.request('PATCH', path, { merchant, body: { payment_date: '2026-02-30' } }),
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['payment_date'],
      },
    );
    await expectRefused(svc, merchant, () => svc.request('PATCH', path, { merchant, body: { amount: 0 } }), {
      status: 400,
      code: 'VALIDATION_ERROR',
      paths: ['amount'],
    });
    await expectRefused(svc, merchant, () => svc.request('PATCH', path, { merchant, body: {} }), {
      status: 400,
      code: 'VALIDATION_ERROR',
      paths: ['(body)'],
    });
    await expectRefused(
      svc,
      merchant,
      () => svc.request('PATCH', '/api/subscriptions/installments/abc', { merchant, body: { amount: 1 } }),
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['id'],
      },
    );
    // The test clock says 2026-01-20 in Asunción.
    await expectRefused(
      svc,
      merchant,
      () => svc.request('PATCH', path, { merchant, body: { payment_date: '2026-01-19' } }),
      {
        status: 422,
        code: 'PAYMENT_DATE_IN_PAST',
        paths: ['payment_date'],
      },
    );
  });

  it("404 for another merchant's installment, nothing changed", async () => {
    const owner = aMerchant();
    const { installments } = await activeSubscription(svc, owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant();
    await expectRefused(
      svc,
      other,
      () =>
        svc.request('PATCH', `/api/subscriptions/installments/${installments[1]?.id}`, {
          merchant: other,
          body: { amount: 1 },
        }),
      { status: 404, code: 'INSTALLMENT_NOT_FOUND' },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});

describe('POST /api/subscriptions/installments/{id}/cancel', () => {
  it('cancels a pending installment; cancelling the last one completes a STATIC subscription', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    for (const installment of installments.slice(1)) {
      const response = await svc.request('POST', `/api/subscriptions/installments/${installment.id}/cancel`, {
        merchant,
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        installment_id: installment.id,
        payment_date: installment.paymentDate,
        amount: 150000,
        status: 'cancelled',
        number: installment.number,
      });
      const expected = installment === installments[3] ? 'completed' : 'active';
      expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe(expected);
    }
    expect(
      (await installmentSets(svc, 'installments.cancelled', subscription.id)).map((set) => set.length),
    ).toEqual([1, 1, 1]);
    expect(await eventsFor('subscription.completed', subscription.id)).toHaveLength(1);
  });

  it('two simultaneous cancels of one installment: one succeeds, the other is refused, one event', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    const path = `/api/subscriptions/installments/${installments[2]?.id}/cancel`;
    const responses = await Promise.all([
      svc.request('POST', path, { merchant }),
      svc.request('POST', path, { merchant }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await installmentSets(svc, 'installments.cancelled', subscription.id)).length).toBe(1);
  });

  it('409 for a paid installment, nothing changed', async () => {
    const merchant = aMerchant();
    const { installments } = await activeSubscription(svc, merchant);
    // A charge (a later issue) settles installment 2.
    await svc.database.db
      .update(installmentsTable)
      .set({ status: 'paid' })
      .where(eq(installmentsTable.id, installments[1]?.id as number));
    await expectRefused(
      svc,
      merchant,
      () =>
        svc.request('POST', `/api/subscriptions/installments/${installments[1]?.id}/cancel`, { merchant }),
      { status: 409, code: 'INSTALLMENT_NOT_PENDING' },
    );
    await expectRefused(
      svc,
      merchant,
      () =>
        svc.request('POST', `/api/subscriptions/installments/${installments[0]?.id}/cancel`, { merchant }),
      { status: 409, code: 'FIRST_INSTALLMENT_SETTLED_BY_LINK' },
    );
  });

  it('400 with the path for a bad id, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () => svc.request('POST', '/api/subscriptions/installments/0/cancel', { merchant }),
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['id'],
      },
    );
  });

  it("404 for another merchant's installment, nothing changed", async () => {
    const owner = aMerchant();
    const { installments } = await activeSubscription(svc, owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant();
    await expectRefused(
      svc,
      other,
      () =>
        svc.request('POST', `/api/subscriptions/installments/${installments[1]?.id}/cancel`, {
          merchant: other,
        }),
      { status: 404, code: 'INSTALLMENT_NOT_FOUND' },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});

describe('POST /api/subscriptions/installments', () => {
  it('adds invoice installments to an active DYNAMIC subscription, numbered after the last, each announced', async () => {
    const merchant = aMerchant({ saasContract: true });
    const subscription = await activeDynamic(merchant);
    const response = await svc.request('POST', '/api/subscriptions/installments', {
      merchant,
      body: {
        custom_identifier: 'CI-1',
        installments: [
          { payment_date: '2026-02-15', amount: 87500, invoice_number: 'F-1' },
          { payment_date: '2026-03-15', amount: '91200', invoice_number: 'F-2' },
        ],
      },
    });
    expect(response.status).toBe(201);
    const stored = await installmentsOfSubscription(svc, subscription.id);
    expect(await response.json()).toEqual({
      installments: [
        {
          installment_id: stored[1]?.id,
          payment_date: '2026-02-15',
          amount: 87500,
          status: 'pending',
          number: 2,
          invoice_number: 'F-1',
        },
        {
          installment_id: stored[2]?.id,
          payment_date: '2026-03-15',
          amount: 91200,
          status: 'pending',
          number: 3,
          invoice_number: 'F-2',
        },
      ],
    });
    expect(stored.map((i) => [i.number, i.amount, i.status, i.invoiceNumber])).toEqual([
      [1, '200000.00', 'paid', null],
      [2, '87500.00', 'pending', 'F-1'],
      [3, '91200.00', 'pending', 'F-2'],
    ]);
    expect(
      (await installmentSets(svc, 'installments.scheduled', subscription.id)).map((set) =>
        set.map((i) => [i.number, i.amount, i.invoiceNumber, i.status]),
      ),
    ).toEqual([
      [
        [2, '87500.00', 'F-1', 'pending'],
        [3, '91200.00', 'F-2', 'pending'],
      ],
    ]);
  });

  it('adds to a STATIC subscription without invoice numbers, counting the periods', async () => {
    const merchant = aMerchant();
    const { subscription } = await activeSubscription(svc, merchant);
    const response = await svc.request('POST', '/api/subscriptions/installments', {
      merchant,
      body: { custom_identifier: 'CI-1', installments: [{ payment_date: '2026-05-10', amount: 150000 }] },
    });
    expect(response.status).toBe(201);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.totalPeriods).toBe(5);
    expect((await installmentsOfSubscription(svc, subscription.id)).at(-1)).toMatchObject({
      number: 5,
      paymentDate: '2026-05-10',
    });
  });

  it('409 before the first payment and for an invoice number already used, nothing changed', async () => {
    const merchant = aMerchant({ saasContract: true });
    await createSubscription(svc, merchant, {
      recurrence: { type: 'DYNAMIC' },
      customIdentifier: 'NOT-PAID',
    });
    await expectRefused(
      svc,
      merchant,
      () =>
        svc.request('POST', '/api/subscriptions/installments', {
          merchant,
          body: {
            custom_identifier: 'NOT-PAID',
            installments: [{ payment_date: '2026-02-15', amount: 1, invoice_number: 'F-1' }],
          },
        }),
      { status: 409, code: 'SUBSCRIPTION_NOT_ACTIVE' },
    );
    await activeDynamic(merchant);
    const add = (invoice: string) => () =>
      svc.request('POST', '/api/subscriptions/installments', {
        merchant,
        body: {
          custom_identifier: 'CI-1',
          installments: [
            { payment_date: '2026-02-15', amount: 1, invoice_number: 'F-NEW' },
            { payment_date: '2026-02-16', amount: 1, invoice_number: invoice },
          ],
        },
      });
    expect((await add('F-1')()).status).toBe(201);
    await expectRefused(svc, merchant, add('F-1'), {
      status: 409,
      code: 'INVOICE_NUMBER_TAKEN',
      paths: ['installments.0.invoice_number'],
    });
  });

  it('400 with the field path, 422 for DYNAMIC without invoice number or a past date, nothing changed', async () => {
    const merchant = aMerchant({ saasContract: true });
    await activeDynamic(merchant);
    const add = (installments: unknown[]) => () =>
      svc.request('POST', '/api/subscriptions/installments', {
        merchant,
        body: { custom_identifier: 'CI-1', installments },
      });
    await expectRefused(
      svc,
      merchant,
      add([{ payment_date: '2026-02-15', amount: '1.999', invoice_number: 'F-1' }]),
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['installments.0.amount'],
      },
    );
    await expectRefused(
      svc,
      merchant,
      add([
        { payment_date: '2026-02-15', amount: 1, invoice_number: 'F-1' },
        { payment_date: '2026-02-16', amount: 1, invoice_number: 'F-1' },
      ]),
      { status: 400, code: 'VALIDATION_ERROR', paths: ['installments.1.invoice_number'] },
    );
    await expectRefused(
      svc,
      merchant,
      add(
        Array.from({ length: 61 }, (_, k) => ({
          payment_date: '2026-02-15',
          amount: 1,
          invoice_number: `F-${k}`,
        })),
      ),
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['installments'],
      },
    );
    await expectRefused(
      svc,
      merchant,
      add([
        { payment_date: '2026-02-15', amount: 1, invoice_number: 'F-1' },
        { payment_date: '2026-02-16', amount: 1 },
      ]),
      { status: 422, code: 'INVOICE_NUMBER_REQUIRED', paths: ['installments.1.invoice_number'] },
    );
    await expectRefused(
      svc,
      merchant,
      add([{ payment_date: '2026-01-19', amount: 1, invoice_number: 'F-1' }]),
      {
        status: 422,
        code: 'PAYMENT_DATE_IN_PAST',
        paths: ['installments.0.payment_date'],
      },
    );
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant({ saasContract: true });
    await activeDynamic(owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant({ saasContract: true });
    await expectRefused(
      svc,
      other,
      () =>
        svc.request('POST', '/api/subscriptions/installments', {
          merchant: other,
          body: {
            custom_identifier: 'CI-1',
            installments: [{ payment_date: '2026-02-15', amount: 1, invoice_number: 'F-1' }],
          },
        }),
      { status: 404, code: 'SUBSCRIPTION_NOT_FOUND' },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});
