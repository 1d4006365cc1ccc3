import { describe, expect, it } from 'vitest';
import { CARD_ATTEMPT_CAP, CARD_LOCK } from '../src/index';

const HOUR = 3_600_000;

describe('the card lock and the daily attempt cap', () => {
  it('is the processors’ rule: 7 declines in 24 hours (or 35 in 30 days) block the card for 30 days', () => {
    expect(CARD_LOCK.declines).toBe(7);
    expect(CARD_LOCK.windowMs).toBe(24 * HOUR);
    expect(CARD_LOCK.blockMs).toBe(30 * 24 * HOUR);
    expect(CARD_LOCK.monthly).toEqual({ declines: 35, windowMs: 30 * 24 * HOUR });
  });

  it('keeps automatic debit one attempt short of the lock, in the same window', () => {
    expect(CARD_ATTEMPT_CAP.attempts).toBe(6);
    expect(CARD_ATTEMPT_CAP.attempts).toBeLessThan(CARD_LOCK.declines);
    expect(CARD_ATTEMPT_CAP.windowMs).toBe(CARD_LOCK.windowMs);
  });
});
