import type { Executor } from '@payrail/db';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { CardStore } from '../../ports/card-store';
import { arrayLiteral } from './rows';
import { chargeAttempts } from './schema';

/** The cards' attempts and locks (advisory, transaction-scoped), on the executor given. */
export function postgresCardStore(executor: Executor): CardStore {
  return {
    async lockCard(paymentMethodId) {
      // A transaction-scoped advisory lock named by the card: two installments of different subscriptions on
      // one card cannot both see 5 attempts and both make the 6th and 7th.
      await executor.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`card:${paymentMethodId}`}, 0))`,
      );
    },

    async lockCards(paymentMethodIds) {
      const keys = [...new Set(paymentMethodIds)].sort().map((id) => `card:${id}`);
      if (keys.length === 0) return;
      // One after the other in the array's (sorted) order: two batches sharing cards take them alike.
      await executor.execute(sql`
        select pg_advisory_xact_lock(hashtextextended(k.key, 0))
        from unnest(${arrayLiteral(keys)}::text[]) with ordinality as k(key, n)
        order by k.n`);
    },

    async cardAttemptsSince(paymentMethodId, since) {
      const rows = await executor
        .select({ requestedAt: chargeAttempts.requestedAt })
        .from(chargeAttempts)
        .where(
          and(eq(chargeAttempts.paymentMethodId, paymentMethodId), gt(chargeAttempts.requestedAt, since)),
        )
        .orderBy(asc(chargeAttempts.requestedAt));
      return rows.map((row) => row.requestedAt);
    },

    async cardsAttemptsSince(paymentMethodIds, since) {
      const byCard = new Map<string, Date[]>();
      const cards = [...new Set(paymentMethodIds)];
      if (cards.length === 0) return byCard;
      const rows = await executor
        .select({ paymentMethodId: chargeAttempts.paymentMethodId, requestedAt: chargeAttempts.requestedAt })
        .from(chargeAttempts)
        .where(
          and(
            sql`${chargeAttempts.paymentMethodId} = any(${arrayLiteral(cards)}::uuid[])`,
            gt(chargeAttempts.requestedAt, since),
          ),
        )
        .orderBy(asc(chargeAttempts.requestedAt));
      for (const row of rows) {
        const times = byCard.get(row.paymentMethodId) ?? [];
        times.push(row.requestedAt);
        byCard.set(row.paymentMethodId, times);
      }
      return byCard;
    },
  };
}
