import { describe, expect, expectTypeOf, it } from 'vitest';
import { JsonDecimal, stringifyWithDecimals, type WithDecimalsWritten } from '../src/index';

describe('the JSON number with two decimals', () => {
  it('is written as the bare number, with its zeros, wherever it stands', () => {
    const text = stringifyWithDecimals({
      amount: new JsonDecimal('150000.00'),
      nested: [{ amount: new JsonDecimal('0.50') }, { amount: new JsonDecimal('-3.10') }],
      big: new JsonDecimal('99999999999999999.10'),
      label: 'x',
    });
    expect(text).toBe(
      '{"amount":150000.00,"nested":[{"amount":0.50},{"amount":-3.10}],"big":99999999999999999.10,"label":"x"}',
    );
    expect(JSON.parse(text).nested[0].amount).toBe(0.5);
  });

  it('refuses anything but a decimal string with exactly two places', () => {
    for (const bad of ['1.5', '1', '1.000', '1e3', ' 1.00', '']) {
      expect(() => new JsonDecimal(bad), bad).toThrow(/two-decimal/);
    }
  });

  it('cannot be forged by text: a string that looks like an amount stays a string', () => {
    // What a JsonDecimal turns into before the writer replaces it, sent back as a plain string.
    const marked = JSON.parse(JSON.stringify(new JsonDecimal('1.00'))) as string;
    expect(marked).not.toBe('1.00');
    const text = stringifyWithDecimals({ label: '~000000000000~1.00~000000000000~', note: '1.00' });
    expect(JSON.parse(text)).toEqual({ label: '~000000000000~1.00~000000000000~', note: '1.00' });
    expect(stringifyWithDecimals({ echo: marked.replace(/[0-9a-f]{12}/g, 'ffffffffffff') })).toContain(
      '"echo":"~',
    );
  });

  it('writes everything else as JSON.stringify does', () => {
    const value = { a: [1, 'two', null, true], b: { c: 'é"\\' }, d: undefined };
    expect(stringifyWithDecimals(value)).toBe(JSON.stringify(value));
  });
});

describe('the type of what it writes', () => {
  it('is the value with each JsonDecimal a number, however deep', () => {
    const body = {
      amount: new JsonDecimal('1.00'),
      items: [{ amount: new JsonDecimal('2.00'), label: 'x' }],
      paid: null as JsonDecimal | null,
    };
    expectTypeOf<WithDecimalsWritten<typeof body>>().toEqualTypeOf<{
      amount: number;
      items: { amount: number; label: string }[];
      paid: number | null;
    }>();
    const written: WithDecimalsWritten<typeof body> = JSON.parse(stringifyWithDecimals(body));
    expect(written).toEqual({ amount: 1, items: [{ amount: 2, label: 'x' }], paid: null });
  });
});
