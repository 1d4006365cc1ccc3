import { CARD_LOCK } from '@payrail/contracts';

/**
 * The processors block a card at the merchant for 30 days after 7 declines in 24 hours (`CARD_LOCK`). We
 * count the declines ourselves and stop calling before the processor has to refuse us: a blocked card's
 * further attempts would only add declines and risk the merchant's standing.
 */

/** Declines that count: the card itself said no. Outages and our own lost requests are not the card's. */
export function countsTowardsCardLock(category: string | null): boolean {
  return category === 'soft' || category === 'hard';
}

/** When the block ends, if `declinesInWindow` (this one included) reach the limit. */
export function blockAfterDecline(declinesInWindow: number, now: Date): Date | undefined {
  if (declinesInWindow < CARD_LOCK.declines) return undefined;
  return new Date(now.getTime() + CARD_LOCK.blockMs);
}

export function isBlocked(blockedUntil: Date | null, now: Date): boolean {
  return blockedUntil !== null && blockedUntil.getTime() > now.getTime();
}

/** The decline code we answer with when our own counter blocks the card (the processor's own key). */
export const CARD_BLOCKED_CODE = 'CardBlockedError';
