import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  installmentChargeKey,
  linkPaymentKey,
  parseInstallmentChargeKey,
  parseLinkPaymentKey,
  routingKeyOf,
} from '../src/index';

describe('the charge idempotency key', () => {
  it('is written as the services and the events have always written it', () => {
    expect(installmentChargeKey(12, 3)).toBe('installment:12:attempt:3');
    expect(linkPaymentKey(7, 1)).toBe('link:7:payment:1');
  });

  it('reads back what it wrote, for every id and attempt', () => {
    const id = fc.integer({ min: 1, max: 2 ** 31 - 1 });
    const attempt = fc.integer({ min: 1, max: 999_999 });
    fc.assert(
      fc.property(id, attempt, (installmentId, n) => {
        expect(parseInstallmentChargeKey(installmentChargeKey(installmentId, n))).toEqual({
          installmentId,
          attempt: n,
        });
        expect(parseLinkPaymentKey(linkPaymentKey(installmentId, n))).toEqual({
          linkId: installmentId,
          paymentNumber: n,
        });
      }),
    );
  });

  it("does not take one kind's key for the other's, nor anything around a key", () => {
    expect(parseInstallmentChargeKey('link:71:payment:1')).toBeUndefined();
    expect(parseLinkPaymentKey('installment:71:attempt:3')).toBeUndefined();
    for (const key of ['installment:71:attempt:3x', ' installment:71:attempt:3', 'installment::attempt:3']) {
      expect(parseInstallmentChargeKey(key)).toBeUndefined();
    }
    for (const key of ['link:7:payment:1 ', 'link:-7:payment:1', 'link:7:payment:', 'link:9']) {
      expect(parseLinkPaymentKey(key)).toBeUndefined();
    }
  });

  it("reads a link's key only where its numbers are exact (an id of 15 digits, an attempt of 6)", () => {
    expect(parseLinkPaymentKey('link:999999999999999:payment:999999')).toEqual({
      linkId: 999_999_999_999_999,
      paymentNumber: 999_999,
    });
    expect(parseLinkPaymentKey('link:1000000000000000:payment:1')).toBeUndefined();
    expect(parseLinkPaymentKey('link:1:payment:1000000')).toBeUndefined();
  });

  it('routes a payment by the kind its key names', () => {
    const body = (key: string) => JSON.stringify({ type: 'payment.failed', data: { idempotencyKey: key } });
    expect(routingKeyOf('payment.failed', body(linkPaymentKey(7, 2)))).toBe('payment.failed.link');
    expect(routingKeyOf('payment.failed', body(installmentChargeKey(9, 1)))).toBe(
      'payment.failed.installment',
    );
  });
});
