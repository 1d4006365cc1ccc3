import type { DatabaseHandle } from '@payrail/db';
import type { Logger } from '@payrail/observability';
import type { MerchantStore, TokenHolder } from '../../ports/merchant-store';
import { CREDENTIALS_CHANNEL } from './merchant-store';

export interface TokenCacheOptions {
  /** How long a live token's merchant is remembered; 0 turns the cache off. */
  ttlMs: number;
  /** Entries kept at most (the oldest go first). */
  maxEntries?: number;
  now?: () => number;
}

export interface CachedMerchantStore extends MerchantStore {
  /** LISTENs for credential changes; until it does, and whenever the LISTEN is lost, nothing is cached. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The token check without a database round trip per request: a live token's merchant is kept for
 * `ttlMs`. A revocation or a merchant change anywhere (this replica, another one, the admin CLI) NOTIFYs
 * in its own transaction, and every replica LISTENing drops its whole cache when the commit delivers it;
 * this replica's own writes drop it at once, before they answer. Unknown or revoked tokens are never
 * cached: a new token works on its first request.
 */
export function cachedMerchantStore(
  store: MerchantStore,
  database: Pick<DatabaseHandle, 'listen'>,
  logger: Logger,
  options: TokenCacheOptions,
): CachedMerchantStore {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { holder: TokenHolder; expiresAt: number }>();
  /** Bumped on every invalidation: a lookup that started before one must not store what it read. */
  let generation = 0;
  let listening = false;
  let unlisten: (() => Promise<void>) | undefined;

  const invalidate = () => {
    generation += 1;
    entries.clear();
  };

  const afterWrite =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        invalidate();
      }
    };

  return {
    ...store,
    async findByTokenHash(tokenHash) {
      const cached = entries.get(tokenHash);
      if (cached && listening && cached.expiresAt > now()) return cached.holder;
      if (cached) entries.delete(tokenHash);
      const startedAt = generation;
      const holder = await store.findByTokenHash(tokenHash);
      if (holder && listening && options.ttlMs > 0 && generation === startedAt) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(tokenHash, { holder, expiresAt: now() + options.ttlMs });
      }
      return holder;
    },
    ensureMerchantWithOnlyToken: afterWrite(store.ensureMerchantWithOnlyToken),
    update: afterWrite(store.update),
    revokeToken: afterWrite(store.revokeToken),
    async start() {
      if (options.ttlMs <= 0) return;
      try {
        unlisten = await database.listen(CREDENTIALS_CHANNEL, invalidate, () => {
          // First LISTEN or a reconnect: whatever was announced while it was down is unknown.
          invalidate();
          listening = true;
        });
      } catch (error) {
        logger.warn({ err: error }, 'token cache off: could not LISTEN for credential changes');
      }
    },
    async stop() {
      listening = false;
      invalidate();
      await unlisten?.().catch(() => undefined);
    },
  };
}
