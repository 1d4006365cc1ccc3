import type { Processor } from '@payrail/contracts';
import type { Executor } from '@payrail/db';
import { enqueueEvent } from '@payrail/messaging';
import { and, desc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { type LinkPayer, LinkStatus } from '../../domain/payment-link';
import type { LinkPayment, LinkPaymentRepository } from '../../ports/link-payment-repository';
import { toLink } from './payment-link-repository';
import { customers, linkPayments, outbox, paymentLinks } from './schema';

type Row = typeof linkPayments.$inferSelect;

function toAttempt(row: Row): LinkPayment {
  return { ...row, processor: row.processor as Processor };
}

const PAYABLE = [LinkStatus.PENDING, LinkStatus.LAST_ATTEMPT_REJECTED];

/** The service user who paid, as they are now (kept on the link: a later change does not rewrite who paid). */
async function payerOf(tx: Executor, customerId: number | null): Promise<LinkPayer | null> {
  if (customerId === null) return null;
  const [row] = await tx.select().from(customers).where(eq(customers.id, customerId));
  if (!row) return null;
  return {
    userId: row.id,
    email: row.email,
    documentNumber: row.documentNumber,
    firstName: row.firstName,
    lastName: row.lastName,
  };
}

export function postgresLinkPaymentRepository(db: Executor): LinkPaymentRepository {
  return {
    async startOrContinue(slug, at, decide) {
      return db.transaction(async (tx) => {
        const [locked] = await tx
          .select()
          .from(paymentLinks)
          .where(eq(paymentLinks.slug, slug))
          .for('update');
        if (!locked) return undefined;
        const link = toLink(locked);
        const [last] = await tx
          .select()
          .from(linkPayments)
          .where(eq(linkPayments.linkId, link.id))
          .orderBy(desc(linkPayments.paymentNumber))
          .limit(1);
        const open = last?.status === 'open' ? toAttempt(last) : undefined;
        const decision = decide(link, open);
        if (decision === 'continue') {
          if (!open) throw new Error('nothing open to continue');
          return { link, attempt: open };
        }
        if (open) {
          const [replaced] = await tx
            .update(linkPayments)
            .set({ ...decision, registrationId: null, processorReference: null, createdAt: at })
            .where(and(eq(linkPayments.linkId, link.id), eq(linkPayments.paymentNumber, open.paymentNumber)))
            .returning();
          if (!replaced) throw new Error('update returned no row');
          return { link, attempt: toAttempt(replaced) };
        }
        const [inserted] = await tx
          .insert(linkPayments)
          .values({
            ...decision,
            linkId: link.id,
            paymentNumber: (last?.paymentNumber ?? 0) + 1,
            status: 'open',
            createdAt: at,
          })
          .returning();
        if (!inserted) throw new Error('insert returned no row');
        return { link, attempt: toAttempt(inserted) };
      });
    },

    async find(linkId, paymentNumber) {
      const [row] = await db
        .select()
        .from(linkPayments)
        .where(and(eq(linkPayments.linkId, linkId), eq(linkPayments.paymentNumber, paymentNumber)));
      return row ? toAttempt(row) : undefined;
    },

    async findByProcessorReference(processor, reference) {
      const [row] = await db
        .select({ attempt: linkPayments, slug: paymentLinks.slug })
        .from(linkPayments)
        .innerJoin(paymentLinks, eq(paymentLinks.id, linkPayments.linkId))
        .where(and(eq(linkPayments.processor, processor), eq(linkPayments.processorReference, reference)))
        .orderBy(desc(linkPayments.createdAt))
        .limit(1);
      return row ? { attempt: toAttempt(row.attempt), slug: row.slug } : undefined;
    },

    async record(linkId, paymentNumber, patch) {
      await db
        .update(linkPayments)
        .set(patch)
        .where(and(eq(linkPayments.linkId, linkId), eq(linkPayments.paymentNumber, paymentNumber)));
    },

    async settle(linkId, paymentNumber, outcome, at, events) {
      return db.transaction(async (tx) => {
        const [lockedLink] = await tx
          .select()
          .from(paymentLinks)
          .where(eq(paymentLinks.id, linkId))
          .for('update');
        if (!lockedLink) return undefined;
        const [row] = await tx
          .select()
          .from(linkPayments)
          .where(and(eq(linkPayments.linkId, linkId), eq(linkPayments.paymentNumber, paymentNumber)))
          .for('update');
        if (!row) return undefined;
        const attempt = toAttempt(row);
        const link = toLink(lockedLink);
        if (attempt.status === 'succeeded' || (attempt.status === 'failed' && outcome.kind === 'failed')) {
          // The browser settled it first without the card: the payment event names it afterwards.
          const card = outcome.kind === 'succeeded' ? outcome.card : undefined;
          if (
            card?.last4 &&
            lockedLink.paidChargeId === outcome.chargeId &&
            lockedLink.paidCardLast4 === null
          ) {
            const [withCard] = await tx
              .update(paymentLinks)
              .set({ paidCardBrand: card.brand, paidCardLast4: card.last4 })
              .where(eq(paymentLinks.id, linkId))
              .returning();
            if (withCard) return { link: toLink(withCard), attempt, changed: false };
          }
          return { link, attempt, changed: false };
        }
        if (outcome.kind === 'succeeded') {
          const [settled] = await tx
            .update(linkPayments)
            .set({
              status: 'succeeded',
              chargeId: outcome.chargeId,
              paymentMethodId: outcome.paymentMethodId ?? attempt.paymentMethodId,
              declineCode: null,
              declineCategory: null,
              settledAt: at,
            })
            .where(and(eq(linkPayments.linkId, linkId), eq(linkPayments.paymentNumber, paymentNumber)))
            .returning();
          if (!settled) throw new Error('update returned no row');
          const settledAttempt = toAttempt(settled);
          if (link.statusId === LinkStatus.PAID) return { link, attempt: settledAttempt, changed: true };
          const [paidRow] = await tx
            .update(paymentLinks)
            .set({
              statusId: LinkStatus.PAID,
              paidAt: at,
              paidProcessor: settledAttempt.processor,
              paidPaymentMethodId: settledAttempt.paymentMethodId,
              paidChargeId: outcome.chargeId,
              paidCustomerId: settledAttempt.customerId,
              paidPaymentId: outcome.chargeId,
              paidMethod: 'CARD',
              paidCardBrand: outcome.card?.brand ?? null,
              paidCardLast4: outcome.card?.last4 ?? null,
              paidBy: await payerOf(tx, settledAttempt.customerId),
              lastDeclineCode: null,
              lastDeclineCategory: null,
            })
            .where(eq(paymentLinks.id, linkId))
            .returning();
          if (!paidRow) throw new Error('update returned no row');
          const paid = toLink(paidRow);
          await enqueueEvent(tx, outbox, events.paid(paid, settledAttempt));
          return { link: paid, attempt: settledAttempt, changed: true };
        }
        const [failedRow] = await tx
          .update(linkPayments)
          .set({
            status: 'failed',
            chargeId: outcome.chargeId ?? attempt.chargeId,
            declineCode: outcome.declineCode,
            declineCategory: outcome.category,
            settledAt: at,
          })
          .where(and(eq(linkPayments.linkId, linkId), eq(linkPayments.paymentNumber, paymentNumber)))
          .returning();
        if (!failedRow) throw new Error('update returned no row');
        const failedAttempt = toAttempt(failedRow);
        if (outcome.abandoned || !(PAYABLE as number[]).includes(link.statusId)) {
          return { link, attempt: failedAttempt, changed: true };
        }
        const [rejectedRow] = await tx
          .update(paymentLinks)
          .set({
            statusId: LinkStatus.LAST_ATTEMPT_REJECTED,
            lastDeclineCode: outcome.declineCode,
            lastDeclineCategory: outcome.category,
          })
          .where(eq(paymentLinks.id, linkId))
          .returning();
        if (!rejectedRow) throw new Error('update returned no row');
        const rejected = toLink(rejectedRow);
        const failedEvent = events.failed(rejected, failedAttempt);
        if (failedEvent) await enqueueEvent(tx, outbox, failedEvent);
        return { link: rejected, attempt: failedAttempt, changed: true };
      });
    },

    async recordRefunded(merchantId, linkId, refundedTotal) {
      const updated = await db
        .update(paymentLinks)
        .set({ refundedAmount: sql`greatest(${paymentLinks.refundedAmount}, ${refundedTotal}::numeric)` })
        .where(and(eq(paymentLinks.id, linkId), eq(paymentLinks.merchantId, merchantId)))
        .returning({ id: paymentLinks.id });
      return updated.length > 0;
    },

    async expireDue(at, limit, eventFor, linkId) {
      return db.transaction(async (tx) => {
        const due = await tx
          .select()
          .from(paymentLinks)
          .where(
            and(
              inArray(paymentLinks.statusId, PAYABLE),
              isNotNull(paymentLinks.expiresAt),
              lte(paymentLinks.expiresAt, at),
              linkId === undefined ? undefined : eq(paymentLinks.id, linkId),
            ),
          )
          .orderBy(paymentLinks.expiresAt)
          .limit(limit)
          .for('update', { skipLocked: true });
        const expired = [];
        for (const row of due) {
          const [updated] = await tx
            .update(paymentLinks)
            .set({ statusId: LinkStatus.EXPIRED, expiredAt: at })
            .where(eq(paymentLinks.id, row.id))
            .returning();
          if (!updated) continue;
          const link = toLink(updated);
          await enqueueEvent(tx, outbox, eventFor(link));
          expired.push(link);
        }
        return expired;
      });
    },
  };
}
