import { type MerchantContext, merchantContextSchema } from '@payrail/contracts';
import type { Database, Executor } from '@payrail/db';
import { eq, sql } from 'drizzle-orm';
import type { MerchantProfiles } from '../../ports/merchant-profiles';
import { merchantProfiles } from './schema';

export function postgresMerchantProfiles(db: Database): MerchantProfiles {
  // What this process last stored per merchant: an unchanged context costs no write.
  const known = new Map<string, string>();
  // The verified context of an unchanged signed payload is the very same object (libs/http keeps it): no
  // serialising it again on every request.
  const lastSeen = new Map<string, MerchantContext>();
  return {
    async remember(merchant, at) {
      if (lastSeen.get(merchant.merchantId) === merchant) return;
      const serialized = JSON.stringify(merchant);
      if (known.get(merchant.merchantId) === serialized) {
        lastSeen.set(merchant.merchantId, merchant);
        return;
      }
      await db
        .insert(merchantProfiles)
        .values({ merchantId: merchant.merchantId, context: merchant, updatedAt: at })
        .onConflictDoUpdate({
          target: merchantProfiles.merchantId,
          set: { context: merchant, updatedAt: at },
          // Another instance may have stored a newer one meanwhile: never go back in time.
          setWhere: sql`${merchantProfiles.updatedAt} <= ${at.toISOString()}`,
        });
      known.set(merchant.merchantId, serialized);
      lastSeen.set(merchant.merchantId, merchant);
    },

    find: merchantProfileReader(db).find,
  };
}

/**
 * Reads a merchant's stored context from its JSON text (`context::text`), checked against the contract. The
 * text is read from the database on every request; only its parsing is skipped when it is the very text
 * this process parsed last for that merchant (the pay page reads the same merchant's profile for each of
 * its links). The context handed out is then the same frozen object.
 */
export function storedContextReader(maxMerchants = 1_000) {
  const parsed = new Map<string, { text: string; context: MerchantContext | undefined }>();
  return (merchantId: string, text: string | null): MerchantContext | undefined => {
    if (text === null) return undefined;
    const known = parsed.get(merchantId);
    if (known?.text === text) return known.context;
    let context: MerchantContext | undefined;
    try {
      const result = merchantContextSchema.safeParse(JSON.parse(text));
      context = result.success ? deepFreeze(result.data) : undefined;
    } catch {
      context = undefined;
    }
    if (parsed.size >= maxMerchants) parsed.clear();
    parsed.set(merchantId, { text, context });
    return context;
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * The merchant's stored context read through one executor: a consumer's transaction reads it on its own
 * connection (a read through the pool from inside a transaction waits forever where there is one connection,
 * as in the embedded system's PGlite, and holds two where there is a pool).
 */
export function merchantProfileReader(executor: Executor): Pick<MerchantProfiles, 'find'> {
  return {
    async find(merchantId) {
      const [row] = await executor
        .select()
        .from(merchantProfiles)
        .where(eq(merchantProfiles.merchantId, merchantId));
      if (!row) return undefined;
      const parsed = merchantContextSchema.safeParse(row.context);
      return parsed.success ? parsed.data : undefined;
    },
  };
}
