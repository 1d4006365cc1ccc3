import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decimalsOf,
  fitsCurrency,
  formatAmount,
  formatMoney,
  InvalidAmount,
  isAmount,
  normalizeAmount,
  parseAmount,
} from '../src/index';

describe('money', () => {
  it.each([
    [150000, 15000000n],
    ['150000', 15000000n],
    [10.5, 1050n],
    ['10.05', 1005n],
    [0.1, 10n],
    ['-3.20', -320n],
  ])('parses %s', (input, minor) => {
    expect(parseAmount(input)).toBe(minor);
  });

  it.each([[10.123], ['10.123'], ['1e5'], [Number.NaN], [Number.POSITIVE_INFINITY], ['abc'], ['']])(
    'refuses %s',
    (input) => {
      expect(() => parseAmount(input)).toThrow(InvalidAmount);
      expect(isAmount(input)).toBe(false);
    },
  );

  it('formats with two decimals', () => {
    expect(formatAmount(15000000n)).toBe('150000.00');
    expect(formatAmount(5n)).toBe('0.05');
    expect(normalizeAmount(99.9)).toBe('99.90');
  });

  it('round-trips every cent amount through the wire format', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (minor) => {
        expect(parseAmount(formatAmount(minor))).toBe(minor);
      }),
    );
  });

  it('reads a JSON number with up to two decimals exactly as written', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 99 }), (whole, cents) => {
        const written = `${whole}.${String(cents).padStart(2, '0')}`;
        expect(parseAmount(JSON.parse(written) as number)).toBe(BigInt(whole) * 100n + BigInt(cents));
      }),
    );
  });
});

describe('amounts shown to people', () => {
  it.each([
    ['150000.00', 'PYG', 'es', 'Gs. 150.000'],
    [150000, 'PYG', 'en', 'Gs. 150,000'],
    ['150000.50', 'PYG', 'es', 'Gs. 150.000,50'],
    ['1234.5', 'USD', 'es', 'US$ 1.234,50'],
    ['1234567.89', 'EUR', 'en', '€1,234,567.89'],
    ['0.05', 'EUR', 'es', '0,05 €'],
  ] as const)('%s %s in %s is %s', (amount, currency, lang, expected) => {
    expect(formatMoney(amount, currency, lang)).toBe(expected);
  });
});

describe('the currencies minor units', () => {
  it('a PYG amount is whole guaraníes; USD and EUR keep two decimals', () => {
    expect(fitsCurrency(parseAmount('99000'), 'PYG')).toBe(true);
    expect(fitsCurrency(parseAmount(99000.5), 'PYG')).toBe(false);
    expect(fitsCurrency(parseAmount('99000.01'), 'PYG')).toBe(false);
    expect(fitsCurrency(parseAmount('99000.00'), 'PYG')).toBe(true);
    for (const currency of ['USD', 'EUR']) {
      expect(fitsCurrency(parseAmount('19.99'), currency)).toBe(true);
      expect(fitsCurrency(parseAmount(0.5), currency)).toBe(true);
    }
    expect(decimalsOf('PYG')).toBe(0);
    expect(decimalsOf('USD')).toBe(2);
  });
});
