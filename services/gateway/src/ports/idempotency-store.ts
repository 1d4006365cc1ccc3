import type { IdempotencyRecord, StoredResponse } from '../domain/idempotency';

/** One claim on a key: the `lockedAt` of the record its holder wrote. */
export interface IdempotencyClaim {
  merchantId: string;
  key: string;
  lockedAt: Date;
}

export interface IdempotencyStore {
  /** Inserts an in-progress record; false when (merchant, key) already exists. Safe under concurrency. */
  insert(record: IdempotencyRecord): Promise<boolean>;
  find(merchantId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Overwrites `previous` with `record` only if it is still that claim (compare-and-set). */
  replace(previous: IdempotencyClaim, record: IdempotencyRecord): Promise<boolean>;
  /** Stores the response, if the claim is still the holder's. */
  complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void>;
  /** Forgets the key (the request failed in a way a retry may fix), if the claim is still the holder's. */
  release(claim: IdempotencyClaim): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}
