import { aMerchant } from '@payrail/testing';
import { describe, expect, it } from 'vitest';
import { emailKey } from '../src/domain/customer';
import { MerchantRuleViolation } from '../src/domain/errors';
import { localDateTime } from '@payrail/time';
import { loginCodeExpiry } from '../src/domain/login-code';
import { checkMerchantRules, enabledProcessors, linkCurrency } from '../src/domain/merchant-rules';
import { expiryOf, LinkStatus, statusAt } from '../src/domain/payment-link';

const NOW = new Date('2026-11-22T12:00:00Z');
const oneOff = { recurrentPayment: false, recurrentPaymentType: 'STATIC' as const };

function violation(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof MerchantRuleViolation) return `${error.code}:${error.field}`;
    throw error;
  }
}

describe('merchant rules', () => {
  it('allows what the merchant has configured', () => {
    const merchant = aMerchant({
      noLoginEnabled: true,
      saasContract: true,
      callbackUrl: 'https://a.example/cb',
    });
    expect(
      violation(() =>
        checkMerchantRules(merchant, {
          recurrentPayment: true,
          recurrentPaymentType: 'DYNAMIC',
          noLoginRequired: true,
          redirectUrl: 'https://a.example/done?x=1',
          currency: 'pyg',
        }),
      ),
    ).toBeUndefined();
  });

  it.each([
    [{ ...oneOff, noLoginRequired: true }, 'NO_LOGIN_NOT_ENABLED:noLoginRequired'],
    [
      { recurrentPayment: true, recurrentPaymentType: 'DYNAMIC' as const },
      'SAAS_CONTRACT_REQUIRED:recurrentPaymentType',
    ],
    [{ ...oneOff, redirectUrl: 'https://a.example/done' }, 'CALLBACK_URL_NOT_CONFIGURED:redirectUrl'],
    [{ ...oneOff, currency: 'USD' }, 'CURRENCY_NOT_OFFERED:currency'],
  ])('refuses %j', (request, expected) => {
    expect(violation(() => checkMerchantRules(aMerchant(), request))).toBe(expected);
  });

  it('a DYNAMIC type on a one-off link asks nothing of the merchant', () => {
    expect(
      violation(() =>
        checkMerchantRules(aMerchant(), { recurrentPayment: false, recurrentPaymentType: 'DYNAMIC' }),
      ),
    ).toBeUndefined();
  });

  it('"" is no redirect at all', () => {
    expect(violation(() => checkMerchantRules(aMerchant(), { ...oneOff, redirectUrl: '' }))).toBeUndefined();
  });

  it('the link currency is the one asked for, else the merchant default', () => {
    const merchant = aMerchant({ instance: 'INTERNATIONAL', currency: 'USD' });
    expect(linkCurrency(merchant, ' eur ')).toBe('EUR');
    expect(linkCurrency(merchant, undefined)).toBe('USD');
    expect(linkCurrency(merchant, '')).toBe('USD');
  });

  it('enables the processors asked for that the merchant has, else all of them, in the merchant order', () => {
    const all = ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'];
    expect(enabledProcessors(all, ['PARAGUAY.PROCESSOR_B', 'PARAGUAY.PROCESSOR_A'])).toEqual(all);
    expect(enabledProcessors(all, ['PARAGUAY.PROCESSOR_B'])).toEqual(['PARAGUAY.PROCESSOR_B']);
    expect(enabledProcessors(['PARAGUAY.PROCESSOR_A'], ['PARAGUAY.PROCESSOR_B'])).toEqual([
      'PARAGUAY.PROCESSOR_A',
    ]);
    expect(enabledProcessors(all, [])).toEqual(all);
    expect(enabledProcessors(all, undefined)).toEqual(all);
  });
});

describe('link status and expiry', () => {
  it('0 hours is no expiry', () => {
    expect(expiryOf(NOW, 0)).toBeNull();
    expect(expiryOf(NOW, 3)?.toISOString()).toBe('2026-11-22T15:00:00.000Z');
  });

  it('a payable link is expired from its expiry instant on; paid and cancelled ones keep their status', () => {
    const expiresAt = new Date('2026-11-22T15:00:00Z');
    const at = (iso: string) => new Date(iso);
    expect(statusAt({ statusId: LinkStatus.PENDING, expiresAt }, at('2026-11-22T14:59:59Z'))).toBe(1);
    expect(statusAt({ statusId: LinkStatus.PENDING, expiresAt }, at('2026-11-22T15:00:00Z'))).toBe(6);
    expect(
      statusAt({ statusId: LinkStatus.LAST_ATTEMPT_REJECTED, expiresAt }, at('2026-11-23T00:00:00Z')),
    ).toBe(6);
    expect(statusAt({ statusId: LinkStatus.PAID, expiresAt }, at('2026-11-23T00:00:00Z'))).toBe(200);
    expect(statusAt({ statusId: LinkStatus.CANCELLED, expiresAt }, at('2026-11-23T00:00:00Z'))).toBe(7);
    expect(statusAt({ statusId: LinkStatus.PENDING, expiresAt: null }, at('2099-01-01T00:00:00Z'))).toBe(1);
  });
});

describe('login codes and customers', () => {
  it('a login code lives at most a day, and never longer than its link', () => {
    expect(loginCodeExpiry(NOW, null).toISOString()).toBe('2026-11-23T12:00:00.000Z');
    expect(loginCodeExpiry(NOW, new Date('2026-11-30T00:00:00Z')).toISOString()).toBe(
      '2026-11-23T12:00:00.000Z',
    );
    expect(loginCodeExpiry(NOW, new Date('2026-11-22T13:00:00Z')).toISOString()).toBe(
      '2026-11-22T13:00:00.000Z',
    );
  });

  it('matches e-mails regardless of case and surrounding spaces', () => {
    expect(emailKey(' Ana@Example.COM ')).toBe('ana@example.com');
  });
});

describe('local date-times (spec 2.3 expireTime)', () => {
  it("formats yyyy-MM-dd HH:mm:ss on the merchant's wall clock, across DST", () => {
    expect(localDateTime(new Date('2026-07-01T12:00:00Z'), 'America/New_York')).toBe('2026-07-01 08:00:00');
    expect(localDateTime(new Date('2026-12-01T12:00:00Z'), 'America/New_York')).toBe('2026-12-01 07:00:00');
    expect(localDateTime(new Date('2026-12-31T23:30:05Z'), 'UTC')).toBe('2026-12-31 23:30:05');
    expect(localDateTime(new Date('2027-01-01T02:00:00Z'), 'America/Asuncion')).toMatch(
      /^2026-12-31 2\d:00:00$/,
    );
  });
});
