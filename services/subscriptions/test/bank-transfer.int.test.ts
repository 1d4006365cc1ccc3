import { randomUUID } from 'node:crypto';
import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankTransferSettlements, installments as installmentsTable } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import {
  activeSubscription,
  createSubscription,
  eventsOfType,
  installmentsOfSubscription,
  linkPaid,
  merchantState,
  newLinkId,
  type Problem,
  publishAndWait,
  subscriptionOfLink,
} from './support';

// The internal endpoint processor-gateway calls for `POST /api/bank-notification/add` naming an
// installment, on a real database with the real migrations.

const clock = testClock(new Date('2026-01-20T12:00:00Z'));
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock });
});
afterAll(async () => svc?.stop());

const SETTLE = '/internal/bank-transfers/settle';

const transfer = (overrides: Record<string, unknown>) => ({
  reference: `TRF-${randomUUID()}`,
  // processor-gateway's id of the transfer: the payment's txId.
  txId: randomUUID(),
  amount: '150000.00',
  currency: null,
  bankName: 'Banco Nacional',
  transferDate: '2026-11-21',
  note: 'At the branch',
  installmentId: null,
  customIdentifier: null,
  customIdentifier2: null,
  paymentDate: null,
  ...overrides,
});

function settle(merchant: MerchantContext | null, body: Record<string, unknown>) {
  return svc.request('POST', SETTLE, { body, merchant: merchant ?? undefined });
}

async function paidEvents(subscriptionId: number) {
  return (await eventsOfType(svc, 'installment.paid'))
    .map((event) => event.data as Record<string, unknown>)
    .filter((data) => data.subscriptionId === subscriptionId);
}

async function state(merchant: MerchantContext) {
  const settlements = await svc.database.db.select().from(bankTransferSettlements);
  return { ...(await merchantState(svc, merchant.merchantId)), settlements: settlements.length };
}

async function expectRefused(
  merchant: MerchantContext,
  body: Record<string, unknown>,
  expected: { status: number; code: string; paths?: string[] },
  as: MerchantContext | null = merchant,
) {
  const before = await state(merchant);
  const response = await settle(as, body);
  const problem = (await response.json()) as Problem;
  expect({ status: response.status, code: problem.code }).toEqual({
    status: expected.status,
    code: expected.code,
  });
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  if (expected.paths) expect(problem.errors.map((error) => error.path)).toEqual(expected.paths);
  expect(await state(merchant)).toEqual(before);
}

describe('a bank transfer pays an installment (internal, for processor-gateway)', () => {
  it('by id: the installment becomes paid with installment.paid (BANK_TRANSFER) and is no longer pending', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant, {
      customIdentifier2: 'K-1',
    });
    const second = installments[1];
    if (!second) throw new Error('no installment 2');
    const body = transfer({ installmentId: second.id, currency: 'PYG' });
    const response = await settle(merchant, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      installmentId: second.id,
      subscriptionId: subscription.id,
      paymentDate: second.paymentDate,
      amount: '150000.00',
      currency: 'PYG',
      status: 'paid',
      paidAt: clock.now().toISOString(),
      customIdentifier: 'CI-1',
      customIdentifier2: 'K-1',
    });
    const after = await installmentsOfSubscription(svc, subscription.id);
    expect(after.map((i) => i.status)).toEqual(['paid', 'paid', 'pending', 'pending']);
    expect((await paidEvents(subscription.id)).find((e) => e.installmentId === second.id)).toMatchObject({
      installmentId: second.id,
      number: 2,
      status: 'paid',
      amount: '150000.00',
      method: 'BANK_TRANSFER',
      bankReference: body.reference,
      paidAt: clock.now().toISOString(),
      chargeAttempt: null,
      // The money movement as processor-gateway knows it, and the transfer as notified.
      txId: body.txId,
      bankTransfer: {
        reference: body.reference,
        bankName: 'Banco Nacional',
        transferDate: '2026-11-21',
        note: 'At the branch',
      },
    });
    // Never charged: the pending list (what a debit run works from) no longer has it.
    const listed = await svc.request('GET', '/api/subscriptions/installments?custom_identifier=CI-1', {
      merchant,
    });
    const ids = (
      (await listed.json()) as { installments: Array<{ installment_id: number }> }
    ).installments.map((i) => i.installment_id);
    expect(ids).toEqual([installments[2]?.id, installments[3]?.id]);
  });

  it('by identifiers and payment date', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant, {
      customIdentifier: 'M-7',
      customIdentifier2: 'C-7',
    });
    const third = installments[2];
    if (!third) throw new Error('no installment 3');
    const response = await settle(
      merchant,
      transfer({ customIdentifier: 'M-7', customIdentifier2: 'C-7', paymentDate: third.paymentDate }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ installmentId: third.id, status: 'paid' });
    const after = await installmentsOfSubscription(svc, subscription.id);
    expect(after.map((i) => i.status)).toEqual(['paid', 'pending', 'paid', 'pending']);
  });

  it('paying the last outstanding installment completes a STATIC subscription', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant, {
      recurrence: {
        type: 'STATIC',
        installmentAmount: '99000.50',
        totalPeriods: 2,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
      },
    });
    const last = installments[1];
    if (!last) throw new Error('no installment 2');
    const body = transfer({ customIdentifier: 'CI-1', paymentDate: last.paymentDate, amount: '99000.50' });
    const first = await settle(merchant, body);
    expect(first.status).toBe(200);
    expect((await subscriptionOfLink(svc, subscription.linkId))?.status).toBe('completed');
    const completed = (await eventsOfType(svc, 'subscription.completed')).filter(
      (event) => (event.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(completed).toHaveLength(1);
    // The same notification again, by identifiers, once the subscription is no longer open: the first result.
    const again = await settle(merchant, body);
    expect(again.status).toBe(200);
  });

  it('answers the same reference again with the first result, changing nothing', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    const body = transfer({ installmentId: installments[1]?.id });
    const first = await settle(merchant, body);
    const firstBody = await first.json();
    const before = await state(merchant);
    clock.advance(60_000);
    const again = await settle(merchant, body);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstBody);
    expect(await state(merchant)).toEqual(before);
    expect((await paidEvents(subscription.id)).filter((e) => e.method === 'BANK_TRANSFER')).toHaveLength(1);
  });

  it('pays once when the same reference arrives many times at once', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await activeSubscription(svc, merchant);
    const body = transfer({ installmentId: installments[3]?.id });
    const responses = await Promise.all(Array.from({ length: 12 }, () => settle(merchant, body)));
    const answers = await Promise.all(responses.map((response) => response.json()));
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect((await paidEvents(subscription.id)).filter((e) => e.method === 'BANK_TRANSFER')).toHaveLength(1);
  });

  it('a link paid by transfer (link.paid BANK_TRANSFER) activates the subscription; installment 1 says so', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant);
    const event = linkPaid(merchant, linkId);
    event.data = { ...event.data, method: 'BANK_TRANSFER', txId: 'BNF-001' };
    await publishAndWait(svc, event);
    expect((await subscriptionOfLink(svc, linkId))?.status).toBe('active');
    expect(await paidEvents(subscription.id)).toEqual([
      expect.objectContaining({ number: 1, method: 'BANK_TRANSFER', bankReference: 'BNF-001' }),
    ]);
  });

  it('a link paid by transfer before its link.created still says BANK_TRANSFER when it activates', async () => {
    const merchant = aMerchant();
    const linkId = newLinkId();
    const early = linkPaid(merchant, linkId);
    early.data = { ...early.data, method: 'BANK_TRANSFER', txId: 'BNF-EARLY' };
    await publishAndWait(svc, early);
    const { subscription } = await createSubscription(svc, merchant, { linkId });
    expect((await subscriptionOfLink(svc, linkId))?.status).toBe('active');
    expect(await paidEvents(subscription.id)).toEqual([
      expect.objectContaining({ number: 1, method: 'BANK_TRANSFER', bankReference: 'BNF-EARLY' }),
    ]);
  });

  describe('refusals change nothing', () => {
    it('404 for an unknown installment and for another merchant’s', async () => {
      const merchant = aMerchant();
      const { installments } = await activeSubscription(svc, merchant);
      await expectRefused(merchant, transfer({ installmentId: 2_000_000_000 }), {
        status: 404,
        code: 'INSTALLMENT_NOT_FOUND',
        paths: ['installmentId'],
      });
      await expectRefused(
        merchant,
        transfer({ installmentId: installments[1]?.id }),
        { status: 404, code: 'INSTALLMENT_NOT_FOUND' },
        aMerchant(),
      );
    });

    it('404 for unknown identifiers or a date without an installment', async () => {
      const merchant = aMerchant();
      await activeSubscription(svc, merchant, { customIdentifier: 'D-1' });
      await expectRefused(merchant, transfer({ customIdentifier: 'NOBODY', paymentDate: '2026-02-10' }), {
        status: 404,
        code: 'SUBSCRIPTION_NOT_FOUND',
      });
      await expectRefused(merchant, transfer({ customIdentifier: 'D-1', paymentDate: '2026-02-11' }), {
        status: 404,
        code: 'INSTALLMENT_NOT_FOUND',
        paths: ['paymentDate'],
      });
    });

    it('409 for an installment already paid (by another transfer)', async () => {
      const merchant = aMerchant();
      const { installments } = await activeSubscription(svc, merchant);
      expect((await settle(merchant, transfer({ installmentId: installments[1]?.id }))).status).toBe(200);
      await expectRefused(merchant, transfer({ installmentId: installments[1]?.id }), {
        status: 409,
        code: 'INSTALLMENT_ALREADY_PAID',
      });
    });

    it('409 for a cancelled installment', async () => {
      const merchant = aMerchant();
      const { installments } = await activeSubscription(svc, merchant);
      const cancelled = await svc.request(
        'POST',
        `/api/subscriptions/installments/${installments[2]?.id}/cancel`,
        {
          merchant,
        },
      );
      expect(cancelled.status).toBe(200);
      await expectRefused(merchant, transfer({ installmentId: installments[2]?.id }), {
        status: 409,
        code: 'INSTALLMENT_CANCELLED',
      });
    });

    it('409 for an installment whose charge is in progress', async () => {
      const merchant = aMerchant();
      const { installments } = await activeSubscription(svc, merchant);
      const id = installments[1]?.id as number;
      await svc.database.db
        .update(installmentsTable)
        .set({ status: 'processing' })
        .where(eq(installmentsTable.id, id));
      await expectRefused(merchant, transfer({ installmentId: id }), {
        status: 409,
        code: 'INSTALLMENT_NOT_PENDING',
      });
    });

    it('409 for installment 1 (the link is what a transfer pays) and before the subscription is active', async () => {
      const merchant = aMerchant();
      const pending = await createSubscription(svc, merchant);
      await expectRefused(
        merchant,
        transfer({ installmentId: pending.installments[0]?.id, amount: '200000.00' }),
        {
          status: 409,
          code: 'FIRST_INSTALLMENT_SETTLED_BY_LINK',
        },
      );
      await expectRefused(merchant, transfer({ installmentId: pending.installments[1]?.id }), {
        status: 409,
        code: 'SUBSCRIPTION_NOT_ACTIVE',
      });
    });

    it('422 for another amount or another currency', async () => {
      const merchant = aMerchant();
      const { installments } = await activeSubscription(svc, merchant);
      await expectRefused(merchant, transfer({ installmentId: installments[1]?.id, amount: '150000.01' }), {
        status: 422,
        code: 'AMOUNT_MISMATCH',
        paths: ['amount'],
      });
      // A fraction of a guaraní is never due: the refusal says why.
      const fractional = await settle(
        merchant,
        transfer({ installmentId: installments[1]?.id, amount: '150000.50' }),
      );
      expect(fractional.status).toBe(422);
      expect(((await fractional.json()) as { detail: string }).detail).toBe(
        'amount must be a whole number: PYG has no decimals',
      );
      await expectRefused(merchant, transfer({ installmentId: installments[1]?.id, currency: 'USD' }), {
        status: 422,
        code: 'CURRENCY_MISMATCH',
        paths: ['currency'],
      });
    });

    it('400 for a malformed body, 401 without the signed merchant context', async () => {
      const merchant = aMerchant();
      const { installments } = await activeSubscription(svc, merchant);
      await expectRefused(
        merchant,
        { ...transfer({ installmentId: installments[1]?.id }), amount: 1 },
        {
          status: 400,
          code: 'VALIDATION_ERROR',
        },
      );
      await expectRefused(
        merchant,
        transfer({ installmentId: installments[1]?.id }),
        {
          status: 401,
          code: 'UNAUTHORIZED',
        },
        null,
      );
    });
  });
});
