// The processor's own rule (Bancard vPOS spec): a card is blocked at the merchant for 30 days after
// 7 declines within 24 hours, or 35 within 30 days.
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const CARD_LOCK_RULES = [
  { declines: 7, withinMs: DAY },
  { declines: 35, withinMs: 30 * DAY },
] as const;
export const CARD_LOCK_DURATION_MS = 30 * DAY;

export interface CardLockState {
  declines: Date[];
  blockedUntil?: Date;
}

export function isBlocked(state: CardLockState | undefined, now: Date): boolean {
  return state?.blockedUntil !== undefined && state.blockedUntil.getTime() > now.getTime();
}

/** Records a decline and blocks the card when a rule is reached. */
export function recordDecline(state: CardLockState, now: Date): CardLockState {
  const declines = [...state.declines, now].filter((at) => now.getTime() - at.getTime() < 30 * DAY);
  const reached = CARD_LOCK_RULES.some(
    (rule) => declines.filter((at) => now.getTime() - at.getTime() < rule.withinMs).length >= rule.declines,
  );
  return {
    declines,
    blockedUntil: reached ? new Date(now.getTime() + CARD_LOCK_DURATION_MS) : state.blockedUntil,
  };
}
