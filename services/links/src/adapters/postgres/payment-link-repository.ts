import type { Database, Executor } from '@payrail/db';
import { enqueueEvent } from '@payrail/messaging';
import { and, eq, sql } from 'drizzle-orm';
import { LinkStatus, type PaymentLink, type RecurrenceTerms } from '../../domain/payment-link';
import type { PaymentLinkRepository } from '../../ports/payment-link-repository';
import { bankTransferSettlements, customers, loginCodes, outbox, paymentLinks } from './schema';

type Row = typeof paymentLinks.$inferSelect;

export function toLink(row: Row): PaymentLink {
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
    customerId: row.customerId,
    paidAt: row.paidAt,
    paidChargeId: row.paidChargeId,
    lastDecline:
      row.lastDeclineCode && row.lastDeclineCategory
        ? { code: row.lastDeclineCode, category: row.lastDeclineCategory }
        : null,
  };
}

async function insertLink(tx: Executor, values: typeof paymentLinks.$inferInsert): Promise<PaymentLink> {
  const [row] = await tx.insert(paymentLinks).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return toLink(row);
}

export function postgresPaymentLinkRepository(db: Database): PaymentLinkRepository {
  return {
    async createWithEvent(draft, eventFor) {
      return db.transaction(async (tx) => {
        const link = await insertLink(tx, draft);
        await enqueueEvent(tx, outbox, eventFor(link));
        return link;
      });
    },

    async createForSignedInUser({ draft, user, loginCode }, eventFor) {
      return db.transaction(async (tx) => {
        // Insert-or-find in one statement: two first requests for one new e-mail still make one user.
        // The no-op update makes RETURNING give the existing row too; names of a known user are kept.
        const [customer] = await tx
          .insert(customers)
          .values({
            merchantId: draft.merchantId,
            email: user.email,
            emailKey: user.emailKey,
            firstName: user.firstName,
            lastName: user.lastName,
            status: 'active',
            createdAt: draft.createdAt,
            activatedAt: draft.createdAt,
          })
          .onConflictDoUpdate({
            target: [customers.merchantId, customers.emailKey],
            set: { emailKey: sql`excluded.email_key` },
          })
          .returning({ id: customers.id });
        if (!customer) throw new Error('customer upsert returned no row');
        const link = await insertLink(tx, { ...draft, customerId: customer.id });
        await tx.insert(loginCodes).values({
          codeHash: loginCode.codeHash,
          merchantId: draft.merchantId,
          customerId: customer.id,
          linkId: link.id,
          createdAt: draft.createdAt,
          expiresAt: loginCode.expiresAt,
        });
        await enqueueEvent(tx, outbox, eventFor(link));
        return { link, customerId: customer.id };
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

    async findBySlug(slug) {
      const [row] = await db.select().from(paymentLinks).where(eq(paymentLinks.slug, slug));
      return row ? toLink(row) : undefined;
    },

    async findTransferSettlement(merchantId, reference) {
      const [row] = await db
        .select()
        .from(bankTransferSettlements)
        .where(
          and(
            eq(bankTransferSettlements.merchantId, merchantId),
            eq(bankTransferSettlements.reference, reference),
          ),
        );
      return row;
    },

    async payByTransfer({ merchantId, linkId, reference, paidAt }, check, eventFor) {
      return db.transaction(async (tx) => {
        const [locked] = await tx
          .select()
          .from(paymentLinks)
          .where(and(eq(paymentLinks.id, linkId), eq(paymentLinks.merchantId, merchantId)))
          .for('update');
        if (!locked) return undefined;
        // A duplicate that waited for the lock finds what the first one did, instead of "already paid".
        const [settled] = await tx
          .select()
          .from(bankTransferSettlements)
          .where(
            and(
              eq(bankTransferSettlements.merchantId, merchantId),
              eq(bankTransferSettlements.reference, reference),
            ),
          );
        if (settled) {
          const [paidLink] = await tx.select().from(paymentLinks).where(eq(paymentLinks.id, settled.linkId));
          if (!paidLink) throw new Error(`link ${settled.linkId} of a settlement is gone`);
          return { link: toLink(paidLink), settlement: settled };
        }
        check(toLink(locked));
        const [paid] = await tx
          .update(paymentLinks)
          .set({ statusId: LinkStatus.PAID, paidAt })
          .where(eq(paymentLinks.id, linkId))
          .returning();
        if (!paid) throw new Error('update returned no row');
        const [settlement] = await tx
          .insert(bankTransferSettlements)
          .values({ merchantId, reference, linkId, amount: paid.amount, settledAt: paidAt })
          .returning();
        if (!settlement) throw new Error('insert returned no row');
        const link = toLink(paid);
        await enqueueEvent(tx, outbox, eventFor(link));
        return { link, settlement };
      });
    },
  };
}
