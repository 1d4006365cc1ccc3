import { CARD_LOCK } from '@payrail/contracts';

// The processor's own rule (Bancard vPOS spec, `CARD_LOCK`): a card is blocked at the merchant for 30 days
// after 7 declines within 24 hours, or 35 within 30 days.
const CARD_LOCK_RULES = [CARD_LOCK, CARD_LOCK.monthly];

export interface CardLockState {
  declines: Date[];
  blockedUntil?: Date;
}

export function isBlocked(state: CardLockState | undefined, now: Date): boolean {
  return state?.blockedUntil !== undefined && state.blockedUntil.getTime() > now.getTime();
}

/** Records a decline and blocks the card when a rule is reached. */
export function recordDecline(state: CardLockState, now: Date): CardLockState {
  const declines = [...state.declines, now].filter(
    (at) => now.getTime() - at.getTime() < CARD_LOCK.monthly.windowMs,
  );
  const reached = CARD_LOCK_RULES.some(
    (rule) => declines.filter((at) => now.getTime() - at.getTime() < rule.windowMs).length >= rule.declines,
  );
  return {
    declines,
    blockedUntil: reached ? new Date(now.getTime() + CARD_LOCK.blockMs) : state.blockedUntil,
  };
}
