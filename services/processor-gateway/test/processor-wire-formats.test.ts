import { describe, expect, it } from 'vitest';
import { categoryOfResponseCode } from '../src/adapters/processors/decline-categories';
import {
  amountForProcessorA,
  amountForProcessorB,
  amountFromProcessor,
} from '../src/adapters/processors/processor-amounts';
import { parseExpiry } from '../src/adapters/processors/wire-json';

describe('amounts on the wire', () => {
  it('PROCESSOR_A: always two decimals', () => {
    expect(amountForProcessorA('150000.00')).toBe('150000.00');
    expect(amountForProcessorA('150000')).toBe('150000.00');
    expect(amountForProcessorA('10.5')).toBe('10.50');
    // Beyond 2^53 a float would already have lost the last digits.
    expect(amountForProcessorA('90071992547409931.07')).toBe('90071992547409931.07');
  });

  it('PROCESSOR_B: whole units only; cents are refused, never rounded', () => {
    expect(amountForProcessorB('150000.00')).toBe('150000');
    expect(amountForProcessorB('1000')).toBe('1000');
    expect(amountForProcessorB('150000.50')).toBeUndefined();
    expect(amountForProcessorB('0.01')).toBeUndefined();
  });

  it('back from the processors to two-decimal strings', () => {
    expect(amountFromProcessor(150000)).toBe('150000.00');
    expect(amountFromProcessor('150000.00')).toBe('150000.00');
    expect(amountFromProcessor('abc')).toBeUndefined();
    expect(amountFromProcessor(null)).toBeUndefined();
  });
});

describe('decline categories', () => {
  it.each([
    ['05', 'soft'],
    ['51', 'soft'],
    ['61', 'soft'],
    ['94', 'soft'],
    ['96', 'soft'],
    ['12', 'hard'],
    ['14', 'hard'],
    ['33', 'hard'],
    ['54', 'hard'],
    ['57', 'hard'],
    ['99', 'hard'],
  ])('%s is %s', (code, category) => {
    expect(categoryOfResponseCode(code)).toBe(category);
  });
});

describe('processor formats', () => {
  it('expiry MM/YY', () => {
    expect(parseExpiry('08/29')).toEqual({ expiryMonth: 8, expiryYear: 2029 });
    expect(parseExpiry('12/2030')).toEqual({ expiryMonth: 12, expiryYear: 2030 });
    expect(parseExpiry('13/29')).toBeUndefined();
    expect(parseExpiry('0829')).toBeUndefined();
  });
});
