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
