import { randomUUID } from 'node:crypto';
import type { EventEnvelope, MerchantContext } from '@payrail/contracts';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankTransferSettlements, outbox, paymentLinks } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';

// The internal endpoint processor-gateway calls for `POST /api/bank-notification/add` with a payRequestId,
// on a real database with the real migrations.

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, { clock });
});
afterAll(async () => svc?.stop());

const SETTLE = '/internal/bank-transfers/settle';

const oneOff = {
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
};

const recurrent = {
  ...oneOff,
  singlePayment: false,
  recurrentPayment: true,
  installmentAmount: 100000,
  totalPeriods: 3,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
};

let referenceSeq = 0;
const newReference = () => `TRF-${Date.now()}-${++referenceSeq}`;

async function createLink(
  merchant: MerchantContext,
  body: Record<string, unknown> = oneOff,
): Promise<number> {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: number }).id;
}

function settle(merchant: MerchantContext | undefined, body: Record<string, unknown>) {
  return svc.request('POST', SETTLE, { body, merchant });
}

const transfer = (payRequestId: number, overrides: Record<string, unknown> = {}) => ({
  reference: newReference(),
  // processor-gateway's id of the transfer: the payment's txId.
  txId: randomUUID(),
  payRequestId,
  amount: '150000.00',
  currency: null,
  bankName: 'Banco Nacional',
  transferDate: '2026-11-21',
  note: null,
  ...overrides,
});

async function linkRow(id: number) {
  const [row] = await svc.database.db.select().from(paymentLinks).where(eq(paymentLinks.id, id));
  return row;
}

async function linkPaidEvents(linkId: number) {
  const rows = await svc.database.db
    .select()
    .from(outbox)
    .where(eq(outbox.type, 'link.paid'))
    .orderBy(asc(outbox.createdAt));
  return rows
    .map((row) => JSON.parse(row.body) as EventEnvelope<'link.paid'>)
    .filter((event) => event.data.linkId === linkId);
}

/** Everything a settlement could change: the merchant's links, the settlements and the outbox. */
async function state(merchantId: string) {
  const links = await svc.database.db
    .select()
    .from(paymentLinks)
    .where(eq(paymentLinks.merchantId, merchantId))
    .orderBy(asc(paymentLinks.id));
  const settlements = await svc.database.db.select().from(bankTransferSettlements);
  const events = await svc.database.db.select({ id: outbox.id }).from(outbox);
  return { links, settlements: settlements.length, outboxRows: events.length };
}

type Problem = { status: number; code: string; errors: Array<{ path: string }> };

async function expectRefused(
  merchant: MerchantContext,
  body: Record<string, unknown>,
  expected: { status: number; code: string; paths?: string[] },
  as: MerchantContext | null = merchant,
) {
  const before = await state(merchant.merchantId);
  const response = await settle(as ?? undefined, body);
  const problem = (await response.json()) as Problem;
  expect({ status: response.status, code: problem.code }).toEqual({
    status: expected.status,
    code: expected.code,
  });
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  if (expected.paths) expect(problem.errors.map((error) => error.path)).toEqual(expected.paths);
  expect(await state(merchant.merchantId)).toEqual(before);
}

describe('a bank transfer pays a link (internal, for processor-gateway)', () => {
  it("marks a pending link paid with its link.paid (BANK_TRANSFER, processor-gateway's transfer id as txId), in one go", async () => {
    const merchant = aMerchant();
    const id = await createLink(merchant);
    const body = transfer(id, { currency: 'PYG' });
    const response = await settle(merchant, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      payRequestId: id,
      statusId: 200,
      amount: '150000.00',
      currency: 'PYG',
      paidAt: clock.now().toISOString(),
    });
    const row = await linkRow(id);
    expect(row?.statusId).toBe(200);
    expect(row?.paidAt?.toISOString()).toBe(clock.now().toISOString());
    const events = await linkPaidEvents(id);
    expect(events.map((event) => event.data)).toEqual([
      {
        linkId: id,
        merchantId: merchant.merchantId,
        amount: '150000.00',
        currency: 'PYG',
        paidAt: clock.now().toISOString(),
        // The money movement as processor-gateway knows it; the bank's reference beside it.
        txId: body.txId,
        recurrent: false,
        method: 'BANK_TRANSFER',
        // A transfer has no processor, card, charge or known customer.
        processor: null,
        paymentMethodId: null,
        chargeId: null,
        customerId: null,
        processorReference: null,
        authorizationCode: null,
        bankReference: body.reference,
        bankTransfer: {
          reference: body.reference,
          bankName: 'Banco Nacional',
          transferDate: '2026-11-21',
          note: null,
        },
      },
    ]);
    const detail = await svc.request('GET', `/api/payrequests/${id}`, { merchant });
    const paid = (await detail.json()) as { paidAt: string };
    expect(paid).toMatchObject({
      id,
      statusId: 200,
      paid: true,
      // The transfer's movement in processor-gateway: the txId of its webhooks and of the ledger.
      paymentId: body.txId,
      method: 'BANK_TRANSFER',
      processor: null,
      cardBrand: null,
      cardLast4: null,
      paidBy: null,
    });
    expect(new Date(paid.paidAt).toISOString()).toBe(clock.now().toISOString());
    expect(paid.paidAt).toMatch(/[+-]\d{2}:\d{2}$/);
  });

  it('says a recurrent link is recurrent, so subscriptions activates its subscription', async () => {
    const merchant = aMerchant();
    const id = await createLink(merchant, recurrent);
    expect((await settle(merchant, transfer(id))).status).toBe(200);
    expect((await linkPaidEvents(id))[0]?.data).toMatchObject({ recurrent: true, method: 'BANK_TRANSFER' });
  });

  it('pays a link whose last card attempt was rejected (statusId 5: still payable)', async () => {
    const merchant = aMerchant();
    const id = await createLink(merchant);
    await svc.database.db.update(paymentLinks).set({ statusId: 5 }).where(eq(paymentLinks.id, id));
    expect((await settle(merchant, transfer(id))).status).toBe(200);
    expect((await linkRow(id))?.statusId).toBe(200);
  });

  it('answers the same reference again with the first result, changing nothing', async () => {
    const merchant = aMerchant();
    const id = await createLink(merchant);
    const body = transfer(id);
    const first = await settle(merchant, body);
    const firstBody = await first.json();
    const before = await state(merchant.merchantId);
    clock.advance(60_000);
    const again = await settle(merchant, body);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstBody);
    expect(await state(merchant.merchantId)).toEqual(before);
    expect(await linkPaidEvents(id)).toHaveLength(1);
  });

  it('pays once when the same reference arrives many times at once', async () => {
    const merchant = aMerchant();
    const id = await createLink(merchant);
    const body = transfer(id);
    const responses = await Promise.all(Array.from({ length: 12 }, () => settle(merchant, body)));
    const answers = await Promise.all(responses.map((response) => response.json()));
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(await linkPaidEvents(id)).toHaveLength(1);
    const settlements = await svc.database.db
      .select()
      .from(bankTransferSettlements)
      .where(eq(bankTransferSettlements.linkId, id));
    expect(settlements).toHaveLength(1);
  });

  describe('refusals change nothing', () => {
    it('404 for an unknown link', async () => {
      const merchant = aMerchant();
      await createLink(merchant);
      await expectRefused(merchant, transfer(999_999_999), {
        status: 404,
        code: 'PAYMENT_LINK_NOT_FOUND',
        paths: ['payRequestId'],
      });
    });

    it("404 for another merchant's link", async () => {
      const owner = aMerchant();
      const id = await createLink(owner);
      await expectRefused(owner, transfer(id), { status: 404, code: 'PAYMENT_LINK_NOT_FOUND' }, aMerchant());
      expect((await linkRow(id))?.statusId).toBe(1);
    });

    it('409 for a link already paid (by another transfer)', async () => {
      const merchant = aMerchant();
      const id = await createLink(merchant);
      expect((await settle(merchant, transfer(id))).status).toBe(200);
      await expectRefused(merchant, transfer(id), { status: 409, code: 'PAYMENT_LINK_ALREADY_PAID' });
    });

    it('409 for a cancelled link', async () => {
      const merchant = aMerchant();
      const id = await createLink(merchant);
      await svc.database.db.update(paymentLinks).set({ statusId: 7 }).where(eq(paymentLinks.id, id));
      await expectRefused(merchant, transfer(id), { status: 409, code: 'PAYMENT_LINK_CANCELLED' });
    });

    it('409 for a link whose validity has passed', async () => {
      const merchant = aMerchant();
      const id = await createLink(merchant, { ...oneOff, payWaitHours: 1 });
      clock.advance(2 * 3_600_000);
      await expectRefused(merchant, transfer(id), { status: 409, code: 'PAYMENT_LINK_EXPIRED' });
    });

    it('422 for another amount, even by a cent', async () => {
      const merchant = aMerchant();
      const id = await createLink(merchant);
      await expectRefused(merchant, transfer(id, { amount: '149999.99' }), {
        status: 422,
        code: 'AMOUNT_MISMATCH',
        paths: ['amount'],
      });
      await expectRefused(merchant, transfer(id, { amount: '300000.00' }), {
        status: 422,
        code: 'AMOUNT_MISMATCH',
      });
      // A fraction of a guaraní is never due: the refusal says why.
      const fractional = await settle(merchant, transfer(id, { amount: '150000.50' }));
      expect(fractional.status).toBe(422);
      expect(((await fractional.json()) as { detail: string }).detail).toBe(
        'amount must be a whole number: PYG has no decimals',
      );
    });

    it('422 for another currency', async () => {
      const merchant = aMerchant();
      const id = await createLink(merchant);
      await expectRefused(merchant, transfer(id, { currency: 'USD' }), {
        status: 422,
        code: 'CURRENCY_MISMATCH',
        paths: ['currency'],
      });
    });

    it('400 for a malformed body, 401 without the signed merchant context', async () => {
      const merchant = aMerchant();
      const id = await createLink(merchant);
      await expectRefused(
        merchant,
        { ...transfer(id), amount: 150000 },
        { status: 400, code: 'VALIDATION_ERROR' },
      );
      await expectRefused(merchant, transfer(id), { status: 401, code: 'UNAUTHORIZED' }, null);
      expect((await linkRow(id))?.statusId).toBe(1);
    });
  });
});
