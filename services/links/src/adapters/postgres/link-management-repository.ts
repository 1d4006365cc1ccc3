import type { EventEnvelope } from '@payrail/contracts';
import type { Executor } from '@payrail/db';
import { enqueueEvent } from '@payrail/messaging';
import { and, desc, eq, gt, gte, ilike, inArray, isNull, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import { LinkStatus, type PaymentLink } from '../../domain/payment-link';
import type { LinkFilter, LinkManagementRepository } from '../../ports/link-management-repository';
import { toLink } from './payment-link-repository';
import { outbox, paymentLinks } from './schema';

const PAYABLE = [LinkStatus.PENDING, LinkStatus.LAST_ATTEMPT_REJECTED];

/** The `status` filter as the reader sees statuses now (`statusAt`): expiry counts without being written. */
function statusCondition(status: LinkFilter['status'], now: Date): SQL | undefined {
  const notExpired = or(isNull(paymentLinks.expiresAt), gt(paymentLinks.expiresAt, now));
  switch (status) {
    case undefined:
      return undefined;
    case 'pending':
      return and(eq(paymentLinks.statusId, LinkStatus.PENDING), notExpired);
    case 'rejected':
      return and(eq(paymentLinks.statusId, LinkStatus.LAST_ATTEMPT_REJECTED), notExpired);
    case 'expired':
      return or(
        eq(paymentLinks.statusId, LinkStatus.EXPIRED),
        and(inArray(paymentLinks.statusId, PAYABLE), lte(paymentLinks.expiresAt, now)),
      );
    case 'cancelled':
      return eq(paymentLinks.statusId, LinkStatus.CANCELLED);
    case 'paid':
      return eq(paymentLinks.statusId, LinkStatus.PAID);
  }
}

/** `q`: the text anywhere in the label, the customer or an identifier (`%` and `_` taken literally). */
function searchCondition(search: string | undefined): SQL | undefined {
  if (search === undefined) return undefined;
  const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  return or(
    ilike(paymentLinks.label, pattern),
    ilike(paymentLinks.handleLabel, pattern),
    ilike(paymentLinks.handleValue, pattern),
    ilike(paymentLinks.customIdentifier, pattern),
    ilike(paymentLinks.customIdentifier2, pattern),
  );
}

/** Locks the merchant's link, decides, and cancels it with its event in the same transaction. */
async function cancelLocked(
  db: Executor,
  { merchantId, linkId }: { merchantId: string; linkId: number },
  decide: (link: PaymentLink) => boolean,
  eventFor: (link: PaymentLink) => EventEnvelope,
): Promise<PaymentLink | undefined> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(paymentLinks)
      .where(and(eq(paymentLinks.id, linkId), eq(paymentLinks.merchantId, merchantId)))
      .for('update');
    if (!locked || !decide(toLink(locked))) return undefined;
    const [row] = await tx
      .update(paymentLinks)
      .set({ statusId: LinkStatus.CANCELLED })
      .where(eq(paymentLinks.id, linkId))
      .returning();
    if (!row) throw new Error('update returned no row');
    const link = toLink(row);
    await enqueueEvent(tx, outbox, eventFor(link));
    return link;
  });
}

export function postgresLinkManagementRepository(db: Executor): LinkManagementRepository {
  return {
    async list(merchantId, filter, page, now) {
      const rows = await db
        .select()
        .from(paymentLinks)
        .where(
          and(
            // Scoped by merchant: another merchant's links never appear.
            eq(paymentLinks.merchantId, merchantId),
            statusCondition(filter.status, now),
            filter.customIdentifier === undefined
              ? undefined
              : eq(paymentLinks.customIdentifier, filter.customIdentifier),
            searchCondition(filter.search),
            filter.createdFrom === undefined ? undefined : gte(paymentLinks.createdAt, filter.createdFrom),
            filter.createdBefore === undefined ? undefined : lt(paymentLinks.createdAt, filter.createdBefore),
            page.beforeId === null ? undefined : lt(paymentLinks.id, page.beforeId),
          ),
        )
        .orderBy(desc(paymentLinks.id))
        .limit(page.limit);
      return rows.map(toLink);
    },

    async countByStatus(merchantId, now) {
      // One pass over the merchant's links: a payable one past its expiry counts as expired, as `list` reads it.
      const [row] = await db
        .select({
          pending: sql<number>`count(*) filter (where ${statusCondition('pending', now)})::int`,
          rejected: sql<number>`count(*) filter (where ${statusCondition('rejected', now)})::int`,
          expired: sql<number>`count(*) filter (where ${statusCondition('expired', now)})::int`,
          cancelled: sql<number>`count(*) filter (where ${statusCondition('cancelled', now)})::int`,
          paid: sql<number>`count(*) filter (where ${statusCondition('paid', now)})::int`,
        })
        .from(paymentLinks)
        .where(eq(paymentLinks.merchantId, merchantId));
      return {
        pending: row?.pending ?? 0,
        rejected: row?.rejected ?? 0,
        expired: row?.expired ?? 0,
        cancelled: row?.cancelled ?? 0,
        paid: row?.paid ?? 0,
      };
    },

    async cancel(request, check, eventFor) {
      return cancelLocked(
        db,
        request,
        (link) => {
          check(link);
          return true;
        },
        eventFor,
      );
    },

    async cancelIf(request, shouldCancel, eventFor) {
      return cancelLocked(db, request, shouldCancel, eventFor);
    },
  };
}
