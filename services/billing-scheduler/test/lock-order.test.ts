import { describe, expect, it } from 'vitest';
import { installmentOf, numberInData } from '../src/adapters/messaging/lock-order';

describe('the lock order of a batch', () => {
  it('reads the installment from data.installmentId or from the charge key, 0 when there is none', () => {
    expect(installmentOf(JSON.stringify({ data: { installmentId: 42, attempt: 1 } }))).toBe(42);
    expect(installmentOf(JSON.stringify({ data: { idempotencyKey: 'installment:7:attempt:3' } }))).toBe(7);
    expect(installmentOf(JSON.stringify({ data: { idempotencyKey: 'link:9' } }))).toBe(0);
    expect(installmentOf('not json')).toBe(0);
  });

  it('reads a number in data, 0 when absent or not a number', () => {
    expect(numberInData(JSON.stringify({ data: { subscriptionId: 5 } }), 'subscriptionId')).toBe(5);
    expect(numberInData(JSON.stringify({ data: { subscriptionId: '5' } }), 'subscriptionId')).toBe(0);
    expect(numberInData(JSON.stringify({}), 'subscriptionId')).toBe(0);
  });
});
