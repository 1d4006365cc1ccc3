import { CARD_LOCK } from '@payrail/contracts';
import { describe, expect, it } from 'vitest';
import { newStoredCardCharge, type StoredCardChargeRequest } from '../src/application/charge-stored-card';
import { newProcessorReference } from '../src/application/processor-references';
import { DEFAULT_TIMINGS } from '../src/application/settle-charge';
import { settlementOfCharge, settlementOfStatus } from '../src/application/settlements';
import { blockAfterDecline, countsTowardsCardLock, isBlocked } from '../src/domain/card-lock';
import { safeMask } from '../src/domain/payment-method';

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
  it('a stored-card charge has a time-ordered id (UUIDv7): charges opened one after another sort in that order', () => {
    const request: StoredCardChargeRequest = {
      idempotencyKey: 'installment:1:attempt:1',
      merchantId: '7d2f4a8e-8a55-4f0e-9b7b-0a3c1d2e3f40',
      paymentMethodId: '0f5c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b',
      amount: '150000.00',
      currency: 'PYG',
      description: 'Cuota 2',
    };
    const on = {
      paymentMethodId: request.paymentMethodId,
      processorCalls: 0,
      now: new Date(),
      timings: DEFAULT_TIMINGS,
    };
    const ids = Array.from({ length: 200 }, () => newStoredCardCharge(request, on).id);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
  });
  it('keeps at most the first 6 and last 4 digits of whatever the processor calls masked', () => {
    expect(safeMask('4242424242424242', '4242')).toBe('424242******4242');
    expect(safeMask('424242******4242', '4242')).toBe('424242******4242');
    expect(safeMask('**** 4242', '4242')).toBe('**** 4242');
  });
});
