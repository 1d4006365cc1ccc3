import { createHash } from 'node:crypto';
import {
  decide,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecord,
  type StoredResponse,
} from '../domain/idempotency';
import type { IdempotencyClaim, IdempotencyStore } from '../ports/idempotency-store';
import type { Clock } from '@payrail/time';

export interface IdempotencyDeps {
  idempotency: IdempotencyStore;
  clock: Clock;
}

export type IdempotencyOutcome =
  | {
      kind: 'execute';
      /** Keeps the response for the key's lifetime. */
      finish(response: StoredResponse): Promise<void>;
      /** Frees the key: the request did not complete (a retry with the key should run it). */
      abandon(): Promise<void>;
    }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'unavailable' }
  | { kind: 'key-reused' }
  | { kind: 'in-progress' };

/**
 * "The same request": method, path and body. A JSON body is compared by content, not by bytes, so a
 * client that re-serialises the same object (other key order or spacing) is still recognised.
 */
export function requestFingerprint(method: string, path: string, body: Uint8Array): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}\n`);
  const text = Buffer.from(body).toString('utf8');
  try {
    hash.update(canonicalJson(JSON.parse(text)));
  } catch {
    hash.update(body);
  }
  return hash.digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Design 4, `Idempotency-Key`: the first request with a key runs and its response is kept 24 h; the
 * same request again gets that response without running; another request with the key is refused; a
 * duplicate while the first still runs gets a conflict. Claiming is insert-first on the (merchant, key)
 * primary key, so two concurrent requests cannot both run.
 */
export async function beginIdempotentRequest(
  deps: IdempotencyDeps,
  request: { merchantId: string; key: string; fingerprint: string },
): Promise<IdempotencyOutcome> {
  // A few rounds at most: a record can be freed, expire or be taken over between our insert and our read.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const now = deps.clock.now();
    const record: IdempotencyRecord = {
      ...request,
      state: 'in_progress',
      response: null,
      lockedAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    };
    if (await deps.idempotency.insert(record)) return execute(deps, record);
    const existing = await deps.idempotency.find(request.merchantId, request.key);
    if (!existing) continue;
    const decision = decide(existing, request.fingerprint, now);
    if (decision === 'replay' && existing.response) return { kind: 'replay', response: existing.response };
    if (decision === 'unavailable') return { kind: 'unavailable' };
    if (decision === 'key-reused') return { kind: 'key-reused' };
    if (decision === 'in-progress') return { kind: 'in-progress' };
    if (decision === 'reclaim' && (await deps.idempotency.replace(claimOf(existing), record)))
      return execute(deps, record);
  }
  return { kind: 'in-progress' };
}

function claimOf(record: IdempotencyRecord): IdempotencyClaim {
  return { merchantId: record.merchantId, key: record.key, lockedAt: record.lockedAt };
}

function execute(deps: IdempotencyDeps, record: IdempotencyRecord): IdempotencyOutcome {
  const claim = claimOf(record);
  return {
    kind: 'execute',
    finish: (response) => deps.idempotency.complete(claim, response),
    abandon: () => deps.idempotency.release(claim),
  };
}
