import type { Executor } from '@payrail/db';
import { eq } from 'drizzle-orm';
import type { DunningPolicyStore, StoredDunningPolicy } from '../../ports/dunning-policy-store';
import { dunningPolicies } from './schema';

export function postgresDunningPolicyStore(db: Executor): DunningPolicyStore {
  return {
    async policy(merchantId) {
      const [row] = await db.select().from(dunningPolicies).where(eq(dunningPolicies.merchantId, merchantId));
      return row && storedPolicy(row);
    },
    async savePolicy(merchantId, policy, at) {
      const [row] = await db
        .insert(dunningPolicies)
        .values({ merchantId, ...policy, updatedAt: at })
        .onConflictDoUpdate({ target: dunningPolicies.merchantId, set: { ...policy, updatedAt: at } })
        .returning();
      return storedPolicy(row as typeof dunningPolicies.$inferSelect);
    },
  };
}

function storedPolicy(row: typeof dunningPolicies.$inferSelect): StoredDunningPolicy {
  return {
    retryOffsetDays: row.retryOffsetDays,
    cancelAfterFailedInstallments: row.cancelAfterFailedInstallments,
    updatedAt: row.updatedAt,
  };
}
