import { randomUUID } from 'node:crypto';
import { type MerchantContext, merchantContextSchema } from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { and, eq, isNull } from 'drizzle-orm';
import type { MerchantStore } from '../../ports/merchant-store';
import { apiTokens, merchants } from './schema';

export function toMerchantContext(row: typeof merchants.$inferSelect): MerchantContext {
  return merchantContextSchema.parse({
    merchantId: row.id,
    name: row.name,
    instance: row.instance,
    currency: row.currency,
    saasContract: row.saasContract,
    noLoginEnabled: row.noLoginEnabled,
    callbackUrl: row.callbackUrl,
    timezone: row.timezone,
    processors: row.processors,
  });
}

export function postgresMerchantStore(db: Database): MerchantStore {
  return {
    async findByTokenHash(tokenHash) {
      const [row] = await db
        .select({ merchant: merchants })
        .from(apiTokens)
        .innerJoin(merchants, eq(merchants.id, apiTokens.merchantId))
        .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)));
      return row ? toMerchantContext(row.merchant) : undefined;
    },
    async ensureMerchantWithToken(merchant, tokenHash) {
      await db.transaction(async (tx) => {
        await tx
          .insert(merchants)
          .values({
            id: merchant.merchantId,
            name: merchant.name,
            instance: merchant.instance,
            currency: merchant.currency,
            saasContract: merchant.saasContract,
            noLoginEnabled: merchant.noLoginEnabled,
            callbackUrl: merchant.callbackUrl,
            timezone: merchant.timezone,
            processors: merchant.processors,
          })
          .onConflictDoNothing();
        await tx
          .insert(apiTokens)
          .values({ id: randomUUID(), merchantId: merchant.merchantId, tokenHash })
          .onConflictDoNothing();
      });
    },
  };
}
