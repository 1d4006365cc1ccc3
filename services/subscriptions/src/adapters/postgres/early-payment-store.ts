import type { Executor } from '@payrail/db';
import { and, eq, sql } from 'drizzle-orm';
import type { EarlyPaymentDetails, EarlyPaymentStore } from '../../ports/early-payment-store';
import { earlyLinkPayments } from './schema';

/** Early link payments and the link's lock (advisory, transaction-scoped), on the executor given. */
export function postgresEarlyPaymentStore(executor: Executor): EarlyPaymentStore {
  return {
    async lockLink(merchantId, linkId) {
      await executor.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`link:${merchantId}:${linkId}`}, 0))`,
      );
    },

    async recordEarlyPayment(payment) {
      const { card, details, ...rest } = payment;
      await executor
        .insert(earlyLinkPayments)
        .values({
          ...rest,
          details: details as unknown as Record<string, unknown> | null,
          paymentMethodId: card?.paymentMethodId ?? null,
          processor: card?.processor ?? null,
          customerId: card?.customerId ?? null,
        })
        .onConflictDoNothing();
    },

    async takeEarlyPayment(merchantId, linkId) {
      const [row] = await executor
        .delete(earlyLinkPayments)
        .where(and(eq(earlyLinkPayments.linkId, linkId), eq(earlyLinkPayments.merchantId, merchantId)))
        .returning();
      return row
        ? {
            linkId: row.linkId,
            merchantId: row.merchantId,
            amount: row.amount,
            paidAt: row.paidAt,
            method: row.method,
            txId: row.txId,
            details: (row.details as EarlyPaymentDetails | null) ?? null,
            card: row.paymentMethodId
              ? { paymentMethodId: row.paymentMethodId, processor: row.processor, customerId: row.customerId }
              : null,
          }
        : undefined;
    },
  };
}
