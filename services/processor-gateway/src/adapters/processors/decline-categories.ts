import type { Decline, DeclineCategory } from '../../ports/card-processor';

/**
 * The one table that turns a processor's refusal into what the charge core and dunning need. Both
 * processors answer with the same ISO-style response codes (PROCESSOR_B settles on PROCESSOR_A-like rails),
 * so one table serves both; error keys that are not response codes are listed below it.
 *
 * | code | meaning                         | category       | why                                             |
 * |------|---------------------------------|----------------|-------------------------------------------------|
 * | 05   | do not honour                   | soft           | the issuer's generic "not now"; often passes later |
 * | 51   | insufficient funds              | soft           | passes once the account is funded               |
 * | 61   | over the amount limit           | soft           | limits reset                                    |
 * | 94   | duplicate transmission          | soft           | a fresh attempt (new reference) is not a duplicate |
 * | 96   | issuer or switch down           | soft           | a system fault at the issuer, not about the card |
 * | 12   | invalid transaction             | hard           | the same request will be refused again          |
 * | 14   | invalid card number             | hard           | the card will never work                        |
 * | 33   | expired card (pick up)          | hard           | needs a new card                                |
 * | 54   | expired card                    | hard           | needs a new card                                |
 * | 57   | not permitted to the cardholder | hard           | the card does not allow this kind of payment    |
 * | any other code                         | hard           | retrying what we do not understand counts towards the card lock (7 declines in 24 h) |
 *
 * | error key / status          | category       |
 * |-----------------------------|----------------|
 * | `CardBlockedError`          | card-blocked   |
 * | HTTP 503 (outage)           | processor-down |
 * | connection refused          | processor-down (the request never left us) |
 */
const CATEGORY_BY_RESPONSE_CODE: Readonly<Record<string, DeclineCategory>> = {
  '05': 'soft',
  '51': 'soft',
  '61': 'soft',
  '94': 'soft',
  '96': 'soft',
  '12': 'hard',
  '14': 'hard',
  '33': 'hard',
  '54': 'hard',
  '57': 'hard',
};

export const CARD_BLOCKED_KEY = 'CardBlockedError';
export const OUTAGE_CODE = '503';

export function categoryOfResponseCode(code: string): DeclineCategory {
  return CATEGORY_BY_RESPONSE_CODE[code] ?? 'hard';
}

export function declineFromResponseCode(code: string, message?: string): Decline {
  return { code, category: categoryOfResponseCode(code), ...(message ? { message } : {}) };
}

export function cardBlocked(message?: string): Decline {
  return { code: CARD_BLOCKED_KEY, category: 'card-blocked', ...(message ? { message } : {}) };
}

export function processorDown(message?: string, code = OUTAGE_CODE): Decline {
  return { code, category: 'processor-down', ...(message ? { message } : {}) };
}
