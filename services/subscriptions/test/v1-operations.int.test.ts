import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionsService } from '../src/service';
import {
  activate,
  activeSubscription,
  createSubscription,
  expectRefused,
  installmentsOfSubscription,
  linkPaid,
  merchantState,
  installmentSets,
  type Problem,
  publishAndWait,
  subscriptionEventData,
  subscriptionOfLink,
} from './support';

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-20T12:00:00Z')) });
});
afterAll(async () => svc?.stop());

type V1Body = {
  installments: Array<{ installmentId: number; paymentDate: string; amount: string; status: string }>;
};

async function call(method: string, path: string, merchant: MerchantContext | undefined, body: unknown) {
  return svc.request(method, path, { merchant, body });
}

const eventsFor = (type: string, subscriptionId: number) => subscriptionEventData(svc, type, subscriptionId);

describe('POST /api/subscriptions/cancel-by-amount', () => {
  it('cancels `quantity` pending installments of the amount, earliest first', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    const response = await call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
      customIdentifier: 'CI-1',
      amount: 150000,
      quantity: 2,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      installments: [
        {
          installmentId: installments[1]?.id,
          paymentDate: '2026-02-10',
          amount: '150000.00',
          status: 'cancelled',
        },
        {
          installmentId: installments[2]?.id,
          paymentDate: '2026-03-10',
          amount: '150000.00',
          status: 'cancelled',
        },
      ],
    });
    const after = await installmentsOfSubscription(svc, subscription.id);
    expect(after.map((i) => i.status)).toEqual(['paid', 'cancelled', 'cancelled', 'pending']);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('active');
    // One event for the operation, with both installments.
    expect(
      (await installmentSets(svc, 'installments.cancelled', subscription.id)).map((set) =>
        set.map((i) => [i.installmentId, i.status]),
      ),
    ).toEqual([
      [
        [installments[1]?.id, 'cancelled'],
        [installments[2]?.id, 'cancelled'],
      ],
    ]);
  });

  it('cancels all of that amount when quantity is absent; a STATIC subscription left with nothing is completed', async () => {
    const merchant = aMerchant();
    const { subscription } = await activeSubscription(svc, merchant);
    const response = await call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
      customIdentifier: 'CI-1',
      amount: '150000.00',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as V1Body).installments).toHaveLength(3);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('completed');
    expect(await eventsFor('subscription.completed', subscription.id)).toEqual([
      expect.objectContaining({ status: 'completed', subscriptionId: subscription.id }),
    ]);
  });

  it('409 when no pending installment has the amount (installment 1 is paid by the link), nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
          customIdentifier: 'CI-1',
          amount: 200000,
        }),
      { status: 409, code: 'NO_MATCHING_PENDING_INSTALLMENTS' },
    );
  });

  it('409 when quantity exceeds the pending installments of the amount, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
          customIdentifier: 'CI-1',
          amount: 150000,
          quantity: 4,
        }),
      { status: 409, code: 'NOT_ENOUGH_PENDING_INSTALLMENTS', paths: ['quantity'] },
    );
  });

  it('400 with the field path for bad input, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    const send = (body: unknown) => () => call('POST', '/api/subscriptions/cancel-by-amount', merchant, body);
    await expectRefused(svc, merchant, send({ customIdentifier: 'CI-1', amount: 150000.123 }), {
      status: 400,
      code: 'VALIDATION_ERROR',
      paths: ['amount'],
    });
    await expectRefused(svc, merchant, send({ customIdentifier: 'CI-1', amount: 150000, quantity: 0 }), {
      status: 400,
      code: 'VALIDATION_ERROR',
      paths: ['quantity'],
    });
    await expectRefused(svc, merchant, send({ customIdentifier: '', amount: 150000 }), {
      status: 400,
      code: 'VALIDATION_ERROR',
      paths: ['customIdentifier'],
    });
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant();
    await activeSubscription(svc, owner, { customIdentifier: 'SHARED-ID' });
    const other = aMerchant();
    const before = await merchantState(svc, owner.merchantId);
    await expectRefused(
      svc,
      other,
      () =>
        call('POST', '/api/subscriptions/cancel-by-amount', other, {
          customIdentifier: 'SHARED-ID',
          amount: 150000,
        }),
      { status: 404, code: 'SUBSCRIPTION_NOT_FOUND' },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });

  it('409 when the identifiers match two subscriptions; the second identifier chooses one', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant, { customIdentifier2: 'CONTRACT-A' });
    const { subscription: second } = await activeSubscription(svc, merchant, {
      customIdentifier2: 'CONTRACT-B',
    });
    await expectRefused(
      svc,
      merchant,
      () =>
        call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
          customIdentifier: 'CI-1',
          amount: 150000,
        }),
      { status: 409, code: 'MULTIPLE_SUBSCRIPTIONS_MATCH' },
    );
    const response = await call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
      customIdentifier: 'CI-1',
      customIdentifier2: 'CONTRACT-B',
      amount: 150000,
      quantity: 1,
    });
    expect(response.status).toBe(200);
    expect((await installmentsOfSubscription(svc, second.id)).map((i) => i.status)).toEqual([
      'paid',
      'cancelled',
      'pending',
      'pending',
    ]);
  });

  it('401 without the signed merchant context; 400 for malformed JSON', async () => {
    const unsigned = await svc.request('POST', '/api/subscriptions/cancel-by-amount', {
      body: { customIdentifier: 'CI-1', amount: 1 },
    });
    expect(unsigned.status).toBe(401);
    const malformed = await svc.request('POST', '/api/subscriptions/cancel-by-amount', {
      merchant: aMerchant(),
      rawBody: '{"customIdentifier": ',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Problem).code).toBe('MALFORMED_JSON');
  });
});

describe('POST /api/subscriptions/cancel-by-invoice', () => {
  async function dynamicWithInvoices(merchant: MerchantContext) {
    const created = await createSubscription(svc, merchant, { recurrence: { type: 'DYNAMIC' } });
    await activate(svc, merchant, created.linkId);
    const response = await call('POST', '/api/subscriptions/installments', merchant, {
      custom_identifier: 'CI-1',
      installments: [
        { payment_date: '2026-02-15', amount: 87500, invoice_number: 'F-1' },
        { payment_date: '2026-03-15', amount: 91200, invoice_number: 'F-2' },
      ],
    });
    expect(response.status).toBe(201);
    return created.subscription;
  }

  it('cancels the pending installment carrying the invoice number', async () => {
    const merchant = aMerchant({ saasContract: true });
    const subscription = await dynamicWithInvoices(merchant);
    const response = await call('POST', '/api/subscriptions/cancel-by-invoice', merchant, {
      customIdentifier: 'CI-1',
      invoiceNumber: 'F-2',
    });
    expect(response.status).toBe(200);
    const [f1, f2] = (await installmentsOfSubscription(svc, subscription.id)).slice(1);
    expect(await response.json()).toEqual({
      installments: [
        { installmentId: f2?.id, paymentDate: '2026-03-15', amount: '91200.00', status: 'cancelled' },
      ],
    });
    expect([f1?.status, f2?.status]).toEqual(['pending', 'cancelled']);
    // DYNAMIC subscriptions stay active with nothing pending: invoices keep coming.
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('active');
  });

  it('409 for an invoice already cancelled, 404 for an unknown invoice, nothing changed', async () => {
    const merchant = aMerchant({ saasContract: true });
    await dynamicWithInvoices(merchant);
    const send = (invoiceNumber: string) => () =>
      call('POST', '/api/subscriptions/cancel-by-invoice', merchant, {
        customIdentifier: 'CI-1',
        invoiceNumber,
      });
    expect((await send('F-1')()).status).toBe(200);
    await expectRefused(svc, merchant, send('F-1'), { status: 409, code: 'INSTALLMENT_NOT_PENDING' });
    await expectRefused(svc, merchant, send('F-404'), {
      status: 404,
      code: 'INSTALLMENT_NOT_FOUND',
      paths: ['invoiceNumber'],
    });
  });

  it('422 for a STATIC subscription, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('POST', '/api/subscriptions/cancel-by-invoice', merchant, {
          customIdentifier: 'CI-1',
          invoiceNumber: 'F-1',
        }),
      { status: 422, code: 'SUBSCRIPTION_NOT_DYNAMIC', paths: ['invoiceNumber'] },
    );
  });

  it('400 with the field path, nothing changed', async () => {
    const merchant = aMerchant({ saasContract: true });
    await dynamicWithInvoices(merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('POST', '/api/subscriptions/cancel-by-invoice', merchant, {
          customIdentifier: 'CI-1',
          invoiceNumber: '',
        }),
      { status: 400, code: 'VALIDATION_ERROR', paths: ['invoiceNumber'] },
    );
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant({ saasContract: true });
    await dynamicWithInvoices(owner);
    const other = aMerchant({ saasContract: true });
    const before = await merchantState(svc, owner.merchantId);
    await expectRefused(
      svc,
      other,
      () =>
        call('POST', '/api/subscriptions/cancel-by-invoice', other, {
          customIdentifier: 'CI-1',
          invoiceNumber: 'F-1',
        }),
      { status: 404, code: 'SUBSCRIPTION_NOT_FOUND' },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});

describe('POST /api/subscriptions/cancel-all', () => {
  it('cancels the subscription and every pending installment, announcing each', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    const response = await call('POST', '/api/subscriptions/cancel-all', merchant, {
      customIdentifier: 'CI-1',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as V1Body).installments.map((i) => [i.installmentId, i.status])).toEqual(
      installments.slice(1).map((i) => [i.id, 'cancelled']),
    );
    const stored = await subscriptionOfLink(svc, subscription.linkId);
    expect(stored?.status).toBe('cancelled');
    expect(stored?.endedAt?.toISOString()).toBe('2026-01-20T12:00:00.000Z');
    expect((await installmentsOfSubscription(svc, subscription.id)).map((i) => i.status)).toEqual([
      'paid',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(await eventsFor('subscription.cancelled', subscription.id)).toHaveLength(1);
    expect(
      (await installmentSets(svc, 'installments.cancelled', subscription.id)).map((set) => set.length),
    ).toEqual([3]);
  });

  it('cancels installment 1 too while the link is unpaid; a later payment does not revive it', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant);
    const response = await call('POST', '/api/subscriptions/cancel-all', merchant, {
      customIdentifier: 'CI-1',
    });
    expect(((await response.json()) as V1Body).installments).toHaveLength(4);
    await publishAndWait(svc, linkPaid(merchant, linkId));
    expect((await subscriptionOfLink(svc, linkId))?.status).toBe('cancelled');
    expect(
      (await installmentsOfSubscription(svc, subscription.id)).every((i) => i.status === 'cancelled'),
    ).toBe(true);
  });

  it('a cancelled subscription is no longer found (404), nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    expect(
      (await call('POST', '/api/subscriptions/cancel-all', merchant, { customIdentifier: 'CI-1' })).status,
    ).toBe(200);
    await expectRefused(
      svc,
      merchant,
      () => call('POST', '/api/subscriptions/cancel-all', merchant, { customIdentifier: 'CI-1' }),
      {
        status: 404,
        code: 'SUBSCRIPTION_NOT_FOUND',
      },
    );
  });

  it('409 when two subscriptions match, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () => call('POST', '/api/subscriptions/cancel-all', merchant, { customIdentifier: 'CI-1' }),
      {
        status: 409,
        code: 'MULTIPLE_SUBSCRIPTIONS_MATCH',
      },
    );
  });

  it('400 with the field path, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () => call('POST', '/api/subscriptions/cancel-all', merchant, { customIdentifier: '' }),
      {
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['customIdentifier'],
      },
    );
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant();
    await activeSubscription(svc, owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant();
    await expectRefused(
      svc,
      other,
      () => call('POST', '/api/subscriptions/cancel-all', other, { customIdentifier: 'CI-1' }),
      {
        status: 404,
        code: 'SUBSCRIPTION_NOT_FOUND',
      },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});

describe('PUT /api/subscriptions/modify-by-amount', () => {
  it('gives every pending installment of the amount the new amount', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    await call('POST', '/api/subscriptions/cancel-by-amount', merchant, {
      customIdentifier: 'CI-1',
      amount: 150000,
      quantity: 1,
    });
    const response = await call('PUT', '/api/subscriptions/modify-by-amount', merchant, {
      customIdentifier: 'CI-1',
      amount: '150000',
      newAmount: 165500,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      installments: [
        {
          installmentId: installments[2]?.id,
          paymentDate: '2026-03-10',
          amount: '165500.00',
          status: 'pending',
        },
        {
          installmentId: installments[3]?.id,
          paymentDate: '2026-04-10',
          amount: '165500.00',
          status: 'pending',
        },
      ],
    });
    expect((await installmentsOfSubscription(svc, subscription.id)).map((i) => i.amount)).toEqual([
      '200000.00',
      '150000.00',
      '165500.00',
      '165500.00',
    ]);
    expect(
      (await installmentSets(svc, 'installments.updated', subscription.id)).map((set) =>
        set.map((i) => [i.amount, i.changedFields]),
      ),
    ).toEqual([
      [
        ['165500.00', ['amount']],
        ['165500.00', ['amount']],
      ],
    ]);
  });

  it('409 when only paid or cancelled installments have the amount, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('PUT', '/api/subscriptions/modify-by-amount', merchant, {
          customIdentifier: 'CI-1',
          amount: 200000,
          newAmount: 1,
        }),
      { status: 409, code: 'NO_MATCHING_PENDING_INSTALLMENTS' },
    );
  });

  it('400 with the field path, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('PUT', '/api/subscriptions/modify-by-amount', merchant, {
          customIdentifier: 'CI-1',
          amount: 150000,
          newAmount: -5,
        }),
      { status: 400, code: 'VALIDATION_ERROR', paths: ['newAmount'] },
    );
    await expectRefused(
      svc,
      merchant,
      () =>
        call('PUT', '/api/subscriptions/modify-by-amount', merchant, {
          customIdentifier: 'CI-1',
          newAmount: 5,
        }),
      { status: 400, code: 'VALIDATION_ERROR', paths: ['amount'] },
    );
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant();
    await activeSubscription(svc, owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant();
    await expectRefused(
      svc,
      other,
      () =>
        call('PUT', '/api/subscriptions/modify-by-amount', other, {
          customIdentifier: 'CI-1',
          amount: 150000,
          newAmount: 1,
        }),
      { status: 404, code: 'SUBSCRIPTION_NOT_FOUND' },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});

describe('PUT /api/subscriptions/modify-all', () => {
  it('gives every pending installment from the 2nd on the new amount, and the subscription its new installment amount', async () => {
    const merchant = aMerchant();
    const { subscription } = await activeSubscription(svc, merchant);
    const response = await call('PUT', '/api/subscriptions/modify-all', merchant, {
      customIdentifier: 'CI-1',
      newAmount: 170000,
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as V1Body).installments.map((i) => [i.paymentDate, i.amount, i.status]),
    ).toEqual([
      ['2026-02-10', '170000.00', 'pending'],
      ['2026-03-10', '170000.00', 'pending'],
      ['2026-04-10', '170000.00', 'pending'],
    ]);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.installmentAmount).toBe('170000.00');
    expect((await installmentsOfSubscription(svc, subscription.id))[0]?.amount).toBe('200000.00');
  });

  it('409 when nothing is pending (an active DYNAMIC subscription without invoices), nothing changed', async () => {
    const merchant = aMerchant({ saasContract: true });
    const created = await createSubscription(svc, merchant, { recurrence: { type: 'DYNAMIC' } });
    await activate(svc, merchant, created.linkId);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('PUT', '/api/subscriptions/modify-all', merchant, { customIdentifier: 'CI-1', newAmount: 1 }),
      { status: 409, code: 'NO_MATCHING_PENDING_INSTALLMENTS' },
    );
  });

  it('400 with the field path, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('PUT', '/api/subscriptions/modify-all', merchant, {
          customIdentifier: 'CI-1',
          newAmount: 'lots',
        }),
      { status: 400, code: 'VALIDATION_ERROR', paths: ['newAmount'] },
    );
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant();
    await activeSubscription(svc, owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant();
    await expectRefused(
      svc,
      other,
      () => call('PUT', '/api/subscriptions/modify-all', other, { customIdentifier: 'CI-1', newAmount: 1 }),
      {
        status: 404,
        code: 'SUBSCRIPTION_NOT_FOUND',
      },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});

describe('PUT /api/subscriptions/modify-dates', () => {
  it('moves each pending installment to the day in its own month', async () => {
    const merchant = aMerchant();
    const { subscription } = await activeSubscription(svc, merchant);
    const response = await call('PUT', '/api/subscriptions/modify-dates', merchant, {
      customIdentifier: 'CI-1',
      dayOfMonth: 5,
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as V1Body).installments.map((i) => i.paymentDate)).toEqual([
      '2026-02-05',
      '2026-03-05',
      '2026-04-05',
    ]);
    expect((await installmentsOfSubscription(svc, subscription.id)).map((i) => i.paymentDate)).toEqual([
      '2026-01-15',
      '2026-02-05',
      '2026-03-05',
      '2026-04-05',
    ]);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.dayOfMonth).toBe(5);
    expect(
      (await installmentSets(svc, 'installments.updated', subscription.id)).map((set) =>
        set.map((i) => i.changedFields),
      ),
    ).toEqual([[['paymentDate'], ['paymentDate'], ['paymentDate']]]);
  });

  it('409 when nothing is pending, nothing changed', async () => {
    const merchant = aMerchant({ saasContract: true });
    const created = await createSubscription(svc, merchant, { recurrence: { type: 'DYNAMIC' } });
    await activate(svc, merchant, created.linkId);
    await expectRefused(
      svc,
      merchant,
      () =>
        call('PUT', '/api/subscriptions/modify-dates', merchant, { customIdentifier: 'CI-1', dayOfMonth: 3 }),
      { status: 409, code: 'NO_MATCHING_PENDING_INSTALLMENTS' },
    );
  });

  it('400 with the field path for a day outside 1..28, nothing changed', async () => {
    const merchant = aMerchant();
    await activeSubscription(svc, merchant);
    for (const dayOfMonth of [29, 0, '5']) {
      await expectRefused(
        svc,
        merchant,
        () =>
          call('PUT', '/api/subscriptions/modify-dates', merchant, { customIdentifier: 'CI-1', dayOfMonth }),
        { status: 400, code: 'VALIDATION_ERROR', paths: ['dayOfMonth'] },
      );
    }
  });

  it("404 for another merchant's subscription, nothing changed", async () => {
    const owner = aMerchant();
    await activeSubscription(svc, owner);
    const before = await merchantState(svc, owner.merchantId);
    const other = aMerchant();
    await expectRefused(
      svc,
      other,
      () =>
        call('PUT', '/api/subscriptions/modify-dates', other, { customIdentifier: 'CI-1', dayOfMonth: 3 }),
      {
        status: 404,
        code: 'SUBSCRIPTION_NOT_FOUND',
      },
    );
    expect(await merchantState(svc, owner.merchantId)).toEqual(before);
  });
});
