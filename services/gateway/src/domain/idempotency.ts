/** Design 4: the first response to a key is kept this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * A request still "in progress" after this long was abandoned (the gateway died mid-way): the same
 * request may then take the key over instead of being refused for the rest of the day.
 */
export const ABANDONED_AFTER_MS = 5 * 60_000;

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string;
}

export interface IdempotencyRecord {
  merchantId: string;
  key: string;
  /** Hash of method, path and (canonical) body: "the same request". */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  /** Null while in progress, or when a completed response can no longer be read (secret rotated). */
  response: StoredResponse | null;
  /** When the current holder claimed the key; also identifies that claim. */
  lockedAt: Date;
  expiresAt: Date;
}

export type IdempotencyDecision = 'reclaim' | 'replay' | 'unavailable' | 'key-reused' | 'in-progress';

/** What to do with a request whose key is already recorded. */
export function decide(record: IdempotencyRecord, fingerprint: string, now: Date): IdempotencyDecision {
  if (record.expiresAt.getTime() <= now.getTime()) return 'reclaim';
  if (record.fingerprint !== fingerprint) return 'key-reused';
  // Completed but unreadable: the request did run, so running it again would duplicate it.
  if (record.state === 'completed') return record.response ? 'replay' : 'unavailable';
  if (now.getTime() - record.lockedAt.getTime() >= ABANDONED_AFTER_MS) return 'reclaim';
  return 'in-progress';
}
