import { describe, expect, it } from 'vitest';
import { newProcessorReference } from '../src/application/processor-references';
import { settlementOfCharge, settlementOfStatus } from '../src/application/settlements';
import { blockAfterDecline, CARD_LOCK, countsTowardsCardLock, isBlocked } from '../src/domain/card-lock';
import { safeMask } from '../src/domain/payment-method';
import { installmentChargeKey, linkPaymentKey } from '../src/domain/references';

describe('what a processor answer means for a charge', () => {
  it('a lost reply is unknown, never a failure', () => {
    expect(settlementOfCharge({ kind: 'unknown', reason: 'timeout' })).toMatchObject({ status: 'unknown' });
  });

  it('soft declines and outages may be retried; hard declines and blocked cards may not', () => {
    const retryable = (category: 'soft' | 'hard' | 'card-blocked' | 'processor-down') =>
      (settlementOfCharge({ kind: 'declined', code: 'x', category }) as { retryable: boolean }).retryable;
    expect(retryable('soft')).toBe(true);
    expect(retryable('processor-down')).toBe(true);
    expect(retryable('hard')).toBe(false);
    expect(retryable('card-blocked')).toBe(false);
  });

  it('"not found" is not believed while the request may still be on its way', () => {
    expect(
      settlementOfStatus(
        { kind: 'stored-card' },
        { status: 'not-found' },
        { hostedExpired: false, notFoundIsFinal: false },
      ),
    ).toBeUndefined();
  });

  it('a stored-card charge the processor never saw failed retryably; a hosted one is just unpaid until it expires', () => {
    expect(
      settlementOfStatus(
        { kind: 'stored-card' },
        { status: 'not-found' },
        { hostedExpired: false, notFoundIsFinal: true },
      ),
    ).toMatchObject({
      status: 'failed',
      declineCode: 'NOT_PROCESSED',
      retryable: true,
    });
    expect(
      settlementOfStatus(
        { kind: 'hosted' },
        { status: 'not-found' },
        { hostedExpired: false, notFoundIsFinal: true },
      ),
    ).toBeUndefined();
    expect(
      settlementOfStatus(
        { kind: 'hosted' },
        { status: 'pending' },
        { hostedExpired: true, notFoundIsFinal: true },
      ),
    ).toMatchObject({
      status: 'failed',
      declineCode: 'ABANDONED',
    });
    expect(
      settlementOfStatus(
        { kind: 'stored-card' },
        { status: 'unreachable', reason: '503' },
        { hostedExpired: true, notFoundIsFinal: true },
      ),
    ).toBeUndefined();
  });
});

describe('card lock', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('blocks for 30 days at the 7th decline, not before', () => {
    expect(blockAfterDecline(6, now)).toBeUndefined();
    expect(blockAfterDecline(7, now)?.getTime()).toBe(now.getTime() + CARD_LOCK.blockMs);
    expect(isBlocked(new Date(now.getTime() + 1), now)).toBe(true);
    expect(isBlocked(now, now)).toBe(false);
    expect(isBlocked(null, now)).toBe(false);
  });
  it('counts only what the card said, not outages', () => {
    expect(countsTowardsCardLock('soft')).toBe(true);
    expect(countsTowardsCardLock('hard')).toBe(true);
    expect(countsTowardsCardLock('processor-down')).toBe(false);
    expect(countsTowardsCardLock('card-blocked')).toBe(false);
  });
});

describe('references and masks', () => {
  it('processor references are 12 digits, never a card-number-like run', () => {
    for (let i = 0; i < 1000; i += 1) expect(newProcessorReference()).toMatch(/^[1-9]\d{11}$/);
  });
  it('idempotency keys follow the documented shapes', () => {
    expect(installmentChargeKey(12, 3)).toBe('installment:12:attempt:3');
    expect(linkPaymentKey(7, 1)).toBe('link:7:payment:1');
  });
  it('keeps at most the first 6 and last 4 digits of whatever the processor calls masked', () => {
    expect(safeMask('4242424242424242', '4242')).toBe('424242******4242');
    expect(safeMask('424242******4242', '4242')).toBe('424242******4242');
    expect(safeMask('**** 4242', '4242')).toBe('**** 4242');
  });
});
