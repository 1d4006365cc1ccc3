import type { Database } from '@payrail/db';
import { enqueueEvent } from '@payrail/messaging';
import { and, eq } from 'drizzle-orm';
import type { PaymentLink, RecurrenceTerms } from '../../domain/payment-link';
import type { PaymentLinkRepository } from '../../ports/payment-link-repository';
import { outbox, paymentLinks } from './schema';

type Row = typeof paymentLinks.$inferSelect;

function toLink(row: Row): PaymentLink {
  return {
    id: row.id,
    merchantId: row.merchantId,
    slug: row.slug,
    label: row.label,
    amount: row.amount,
    currency: row.currency,
    handleValue: row.handleValue,
    handleLabel: row.handleLabel,
    customIdentifier: row.customIdentifier,
    customIdentifier2: row.customIdentifier2,
    singlePayment: row.singlePayment,
    creditAndDebitCard: row.creditAndDebitCard,
    recurrence: row.recurrence as RecurrenceTerms | null,
    payWaitHours: row.payWaitHours,
    expiresAt: row.expiresAt,
    redirectUrl: row.redirectUrl,
    noLoginRequired: row.noLoginRequired,
    documentNumber: row.documentNumber,
    paymentMethods: row.paymentMethods,
    statusId: row.statusId,
    createdAt: row.createdAt,
  };
}

export function postgresPaymentLinkRepository(db: Database): PaymentLinkRepository {
  return {
    async createWithEvent(draft, eventFor) {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(paymentLinks).values(draft).returning();
        if (!row) throw new Error('insert returned no row');
        const link = toLink(row);
        await enqueueEvent(tx, outbox, eventFor(link));
        return link;
      });
    },
    async findForMerchant(merchantId, id) {
      // Scoped by merchant: another merchant's link is simply not found (404, never 403).
      const [row] = await db
        .select()
        .from(paymentLinks)
        .where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, merchantId)));
      return row ? toLink(row) : undefined;
    },
  };
}
