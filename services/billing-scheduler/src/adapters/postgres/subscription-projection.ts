import type { Executor } from '@payrail/db';
import { eq, sql } from 'drizzle-orm';
import type { ProjectedSubscription, SubscriptionProjection } from '../../ports/subscription-projection';
import { subscriptions } from './schema';

function fromRow(row: typeof subscriptions.$inferSelect): ProjectedSubscription {
  return {
    subscriptionId: row.subscriptionId,
    merchantId: row.merchantId,
    status: row.status,
    timezone: row.timezone,
  };
}

export function postgresSubscriptionProjection(tx: Executor): SubscriptionProjection {
  return {
    async subscription(subscriptionId) {
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.subscriptionId, subscriptionId));
      return row && fromRow(row);
    },
    async lockSubscription(reported) {
      await tx
        .insert(subscriptions)
        .values({ ...reported, updatedAt: sql`now()` })
        .onConflictDoNothing({ target: subscriptions.subscriptionId });
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.subscriptionId, reported.subscriptionId))
        .for('update');
      if (!row) throw new Error(`subscription ${reported.subscriptionId} neither inserted nor found`);
      return fromRow(row);
    },
    async saveSubscription(subscription) {
      await tx
        .insert(subscriptions)
        .values({ ...subscription, updatedAt: sql`now()` })
        .onConflictDoUpdate({
          target: subscriptions.subscriptionId,
          set: { status: subscription.status, timezone: subscription.timezone, updatedAt: sql`now()` },
        });
    },
  };
}
