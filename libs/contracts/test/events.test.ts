import { describe, expect, it } from 'vitest';
import { ContractViolation, createEvent, parseEvent } from '../src/index';

const linkPaid = {
  linkId: 7,
  merchantId: '7d2f4a8e-8a55-4f0e-9b7b-0a3c1d2e3f40',
  amount: '150000.00',
  currency: 'PYG' as const,
  paidAt: '2026-11-22T10:00:00.000Z',
  txId: null,
  recurrent: false,
  method: 'CARD' as const,
  processor: null,
  paymentMethodId: null,
  chargeId: null,
  customerId: null,
  processorReference: null,
  authorizationCode: null,
  bankReference: null,
  bankTransfer: null,
};

describe('event contracts', () => {
  it('round-trips a valid event through publish and consume validation', () => {
    const event = createEvent('link.paid', linkPaid, new Date('2026-11-22T10:00:00Z'));
    expect(event.v).toBe(1);
    const parsed = parseEvent('link.paid', JSON.stringify(event));
    expect(parsed.data).toEqual(linkPaid);
    expect(parsed.id).toBe(event.id);
  });

  it('gives each event a time-ordered id (UUIDv7): ids made one after another sort in that order', () => {
    const ids = Array.from({ length: 500 }, () => createEvent('link.paid', linkPaid, new Date()).id);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The first 48 bits are the creation time in milliseconds.
    const createdAt = Number.parseInt(ids[0]?.replaceAll('-', '').slice(0, 12) ?? '', 16);
    expect(Math.abs(createdAt - Date.now())).toBeLessThan(60_000);
  });

  it('refuses to publish an invalid payload (a float amount)', () => {
    expect(() =>
      createEvent('link.paid', { ...linkPaid, amount: 150000.5 as unknown as string }, new Date()),
    ).toThrow(ContractViolation);
  });

  it('refuses a consumed message of another type, an unknown version or a broken body', () => {
    const event = createEvent('link.paid', linkPaid, new Date());
    expect(() => parseEvent('link.created', JSON.stringify(event))).toThrow(/expected link.created/);
    expect(() => parseEvent('link.paid', JSON.stringify({ ...event, v: 9 }))).toThrow(/Unknown version 9/);
    expect(() => parseEvent('link.paid', '{nope')).toThrow(/not JSON/);
  });

  it('refuses a date that is not on the calendar (one rule with the API and the domain, from libs/time)', () => {
    const linkCreated = {
      linkId: 7,
      merchantId: linkPaid.merchantId,
      slug: 'slug-7',
      label: 'Gym',
      amount: '150000.00',
      currency: 'PYG' as const,
      customIdentifier: 'CI-1',
      customIdentifier2: null,
      paymentMethods: ['PARAGUAY.PROCESSOR_A' as const],
      timezone: 'America/Asuncion',
      createdAt: '2026-02-27T10:00:00.000Z',
      createdOn: '2026-02-27',
      recurrence: null,
    };
    expect(createEvent('link.created', linkCreated, new Date()).data.createdOn).toBe('2026-02-27');
    expect(() =>
      createEvent('link.created', { ...linkCreated, createdOn: '2026-02-30' }, new Date()),
    ).toThrow(ContractViolation);
  });
});

describe('open-ended STATIC plans (totalPeriods null)', () => {
  const recurrence = {
    type: 'STATIC' as const,
    installmentAmount: '150000.00',
    totalPeriods: null,
    dayOfMonth: 5,
    monthForSecondInstallment: 1,
  };
  const linkCreated = {
    linkId: 8,
    merchantId: linkPaid.merchantId,
    slug: 'slug-8',
    label: 'Gym',
    amount: '150000.00',
    currency: 'PYG' as const,
    customIdentifier: null,
    customIdentifier2: null,
    paymentMethods: ['PARAGUAY.PROCESSOR_A' as const],
    timezone: 'America/Asuncion',
    createdAt: '2026-11-23T12:00:00.000Z',
    createdOn: '2026-11-23',
    recurrence,
  };

  it('link.created carries totalPeriods null; a message with a number (all older ones) still reads', () => {
    const event = createEvent('link.created', linkCreated, new Date());
    expect(parseEvent('link.created', JSON.stringify(event)).data.recurrence).toEqual(recurrence);
    const fixed = createEvent(
      'link.created',
      { ...linkCreated, recurrence: { ...recurrence, totalPeriods: 12 } },
      new Date(),
    );
    expect(parseEvent('link.created', JSON.stringify(fixed)).data.recurrence).toMatchObject({
      totalPeriods: 12,
    });
    const { totalPeriods: _, ...withoutTotal } = recurrence;
    expect(() =>
      createEvent('link.created', { ...linkCreated, recurrence: withoutTotal } as never, new Date()),
    ).toThrow(ContractViolation);
  });

  it('subscription.created says totalPeriods (null: open-ended); an older message without it still reads', () => {
    const created = {
      subscriptionId: 3,
      merchantId: linkPaid.merchantId,
      linkId: 8,
      type: 'STATIC' as const,
      status: 'pending' as const,
      customIdentifier: null,
      customIdentifier2: null,
      currency: 'PYG' as const,
      timezone: 'America/Asuncion',
      installments: [{ installmentId: 30, number: 1, paymentDate: '2026-11-23', amount: '150000.00' }],
    };
    const open = createEvent('subscription.created', { ...created, totalPeriods: null }, new Date());
    expect(parseEvent('subscription.created', JSON.stringify(open)).data.totalPeriods).toBeNull();
    const old = {
      id: 'e-2',
      type: 'subscription.created',
      v: 1,
      occurredAt: '2026-11-23T12:00:00Z',
      data: created,
    };
    expect(parseEvent('subscription.created', JSON.stringify(old)).data.totalPeriods).toBeUndefined();
  });
});

describe('payment method of link.paid and installment.paid', () => {
  it('reads a link.paid written before `method` existed as a card payment', () => {
    const { method: _method, ...withoutMethod } = linkPaid;
    const old = { id: 'e-1', type: 'link.paid', v: 1, occurredAt: linkPaid.paidAt, data: withoutMethod };
    expect(parseEvent('link.paid', JSON.stringify(old)).data.method).toBe('CARD');
  });

  it('keeps BANK_TRANSFER and refuses an unknown method', () => {
    const event = createEvent('link.paid', { ...linkPaid, method: 'BANK_TRANSFER' }, new Date());
    expect(parseEvent('link.paid', JSON.stringify(event)).data.method).toBe('BANK_TRANSFER');
    expect(() =>
      createEvent('link.paid', { ...linkPaid, method: 'CASH' as unknown as 'CARD' }, new Date()),
    ).toThrow(ContractViolation);
  });

  it('reads an installment.paid written before paidCount/paidTotal/chargeAttempt/txId existed with them null, and keeps them when given', () => {
    const data = {
      merchantId: linkPaid.merchantId,
      subscriptionId: 3,
      installmentId: 9,
      number: 2,
      paymentDate: '2026-12-10',
      amount: '150000.00',
      currency: 'PYG' as const,
      status: 'paid' as const,
      invoiceNumber: null,
      timezone: 'America/Asuncion',
      paidAt: '2026-12-10T12:00:00.000Z',
      method: 'CARD' as const,
      bankReference: null,
    };
    const old = { id: 'e-2', type: 'installment.paid', v: 1, occurredAt: data.paidAt, data };
    expect(parseEvent('installment.paid', JSON.stringify(old)).data).toMatchObject({
      paidCount: null,
      paidTotal: null,
      chargeAttempt: null,
      txId: null,
    });
    const event = createEvent(
      'installment.paid',
      { ...data, paidCount: 2, paidTotal: '350000.00', chargeAttempt: 3, txId: 'AUTH-7' },
      new Date(),
    );
    expect(parseEvent('installment.paid', JSON.stringify(event)).data).toMatchObject({
      paidCount: 2,
      paidTotal: '350000.00',
      chargeAttempt: 3,
      txId: 'AUTH-7',
    });
    expect(() =>
      createEvent(
        'installment.paid',
        { ...data, paidCount: 2, paidTotal: 350000 as unknown as string, chargeAttempt: null, txId: null },
        new Date(),
      ),
    ).toThrow(ContractViolation);
  });

  it("reads messages written before the money movement's references existed with them null (still in queues)", () => {
    const {
      processorReference: _p,
      authorizationCode: _a,
      bankReference: _b,
      bankTransfer: _t,
      ...olderLinkPaid
    } = { ...linkPaid, method: 'BANK_TRANSFER' as const, txId: 'TRX-1' };
    const old = { id: 'e-3', type: 'link.paid', v: 1, occurredAt: linkPaid.paidAt, data: olderLinkPaid };
    expect(parseEvent('link.paid', JSON.stringify(old)).data).toMatchObject({
      txId: 'TRX-1',
      processorReference: null,
      authorizationCode: null,
      bankReference: null,
      bankTransfer: null,
    });
    const registered = {
      bankTransferId: 4,
      merchantId: linkPaid.merchantId,
      reference: 'TRX-1',
      bankName: 'Banco Nacional',
      amount: '150000.00',
      currency: 'PYG',
      transferDate: '2026-11-21',
      note: null,
      target: { type: 'PAY_REQUEST', linkId: 7 },
      registeredAt: '2026-11-22T10:00:00.000Z',
    };
    const olderRegistered = {
      id: 'e-4',
      type: 'bank-transfer.registered',
      v: 1,
      occurredAt: registered.registeredAt,
      data: registered,
    };
    expect(parseEvent('bank-transfer.registered', JSON.stringify(olderRegistered)).data.txId).toBeNull();
    // Given now: the transfer's id, and the transfer beside the payment.
    const txId = '0193a6f0-1b22-7e4a-8c55-3d2e1f0a9b87';
    const bankTransfer = {
      reference: 'TRX-1',
      bankName: 'Banco Nacional',
      transferDate: '2026-11-21',
      note: null,
    };
    const paid = createEvent(
      'link.paid',
      { ...olderLinkPaid, txId, bankReference: 'TRX-1', bankTransfer },
      new Date(),
    );
    expect(parseEvent('link.paid', JSON.stringify(paid)).data).toMatchObject({
      txId,
      bankReference: 'TRX-1',
      bankTransfer,
    });
    expect(() =>
      createEvent(
        'link.paid',
        { ...olderLinkPaid, bankTransfer: { ...bankTransfer, transferDate: '2026-02-30' } },
        new Date(),
      ),
    ).toThrow(ContractViolation);
  });
});
