import { describe, expect, it } from 'vitest';
import {
  INSTALLMENT_PAID_BY_CHARGE,
  INSTALLMENT_PAID_OTHERWISE,
  LINK_PAYMENT_FAILED,
  LINK_PAYMENT_SUCCEEDED,
  RECURRENT_LINK_CREATED,
  routingKeyOf,
} from '../src/index';

describe('routingKeyOf', () => {
  const linkCreated = (recurrence: unknown) => JSON.stringify({ type: 'link.created', data: { recurrence } });

  it('puts recurrent links apart from one-off ones', () => {
    expect(routingKeyOf('link.created', linkCreated({ type: 'DYNAMIC' }))).toBe(RECURRENT_LINK_CREATED);
    expect(routingKeyOf('link.created', linkCreated(null))).toBe('link.created.one-off');
  });

  it('is not misled by a label that spells out a one-off body', () => {
    const body = JSON.stringify({
      type: 'link.created',
      data: { label: '"recurrence":null', recurrence: { type: 'DYNAMIC' } },
    });
    expect(body).toContain('recurrence');
    expect(routingKeyOf('link.created', body)).toBe(RECURRENT_LINK_CREATED);
  });

  it("puts a pay page charge's payment apart from an installment's", () => {
    const payment = (type: string, idempotencyKey: string, label = 'Yoga') =>
      JSON.stringify({ id: 'e-1', type, v: 1, data: { idempotencyKey, label, chargeId: 'c-1' } });
    expect(routingKeyOf('payment.succeeded', payment('payment.succeeded', 'link:7:payment:1'))).toBe(
      LINK_PAYMENT_SUCCEEDED,
    );
    expect(routingKeyOf('payment.failed', payment('payment.failed', 'link:7:payment:2'))).toBe(
      LINK_PAYMENT_FAILED,
    );
    expect(routingKeyOf('payment.succeeded', payment('payment.succeeded', 'installment:9:attempt:1'))).toBe(
      'payment.succeeded.installment',
    );
    // Text that spells out a link's key inside a value is escaped: it never passes for the key itself.
    const spoofed = payment(
      'payment.failed',
      'installment:9:attempt:2',
      '"idempotencyKey":"link:1:payment:1"',
    );
    expect(spoofed).toContain('idempotencyKey');
    expect(routingKeyOf('payment.failed', spoofed)).toBe('payment.failed.installment');
    expect(routingKeyOf('payment.succeeded', payment('payment.succeeded', 'another:1'))).toBe(
      'payment.succeeded',
    );
  });

  it('keeps the type of every other event, and of a body it cannot read', () => {
    expect(routingKeyOf('link.paid', linkCreated({ type: 'STATIC' }))).toBe('link.paid');
    expect(routingKeyOf('link.created', 'not json')).toBe('link.created');
  });

  it('puts an installment paid by its automatic charge apart from one paid otherwise (link payment, transfer, older messages)', () => {
    const paid = (data: Record<string, unknown>) =>
      JSON.stringify({ id: 'e-3', type: 'installment.paid', v: 1, data: { installmentId: 9, ...data } });
    expect(routingKeyOf('installment.paid', paid({ method: 'CARD', chargeAttempt: 2 }))).toBe(
      INSTALLMENT_PAID_BY_CHARGE,
    );
    expect(routingKeyOf('installment.paid', paid({ method: 'BANK_TRANSFER', chargeAttempt: null }))).toBe(
      INSTALLMENT_PAID_OTHERWISE,
    );
    // Written before chargeAttempt existed: never by-charge, so billing-scheduler still projects it.
    expect(routingKeyOf('installment.paid', paid({ method: 'CARD' }))).toBe(INSTALLMENT_PAID_OTHERWISE);
    // A bank reference spelling out the field is escaped inside its string: it never passes for the field.
    const spoofed = paid({ bankReference: '"chargeAttempt":1', chargeAttempt: null });
    expect(spoofed).toContain('chargeAttempt');
    expect(routingKeyOf('installment.paid', spoofed)).toBe(INSTALLMENT_PAID_OTHERWISE);
    const hidden = paid({ bankReference: '"chargeAttempt":null', chargeAttempt: 2 });
    expect(routingKeyOf('installment.paid', hidden)).toBe(INSTALLMENT_PAID_BY_CHARGE);
  });
});
