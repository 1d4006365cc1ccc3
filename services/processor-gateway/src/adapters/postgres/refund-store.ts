import type { Executor } from '@payrail/db';
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { ProcessorId } from '../../domain/charge';
import { type Refund, type RefundablePayment, toMinor } from '../../domain/refund';
import type { RefundStore } from '../../ports/refund-store';
import { bankTransfers, charges, refunds } from './schema';

type RefundRow = typeof refunds.$inferSelect;
type ChargeRow = typeof charges.$inferSelect;
type TransferRow = typeof bankTransfers.$inferSelect;

const UNSETTLED = ['pending', 'unknown', 'scheduled'] as const;

function toRefund(row: RefundRow): Refund {
  return { ...row, processor: row.processor as ProcessorId | null };
}

/** A charge as a payment to refund: money was taken once it succeeded; a failed one was declined. */
function paymentOfCharge(row: ChargeRow): RefundablePayment {
  return {
    id: row.id,
    merchantId: row.merchantId,
    method: 'CARD',
    status: row.status === 'succeeded' ? 'succeeded' : row.status === 'failed' ? 'declined' : 'undecided',
    processor: row.processor as ProcessorId,
    amount: row.amount,
    currency: row.currency,
    paidAt: row.settledAt,
    reference: row.reference,
    processorReference: row.processorReference,
    linkId: row.linkId,
    installmentId: row.installmentId,
    subscriptionId: null,
  };
}

/** A registered transfer as a payment to refund: what it settled is in the answer it keeps. */
function paymentOfTransfer(row: TransferRow): RefundablePayment {
  const response = (row.response ?? {}) as {
    currency?: string;
    target?: { type?: string; payRequestId?: number; installmentId?: number };
  };
  const target = response.target ?? {};
  return {
    id: row.txId,
    merchantId: row.merchantId,
    method: 'BANK_TRANSFER',
    status: 'succeeded',
    processor: null,
    amount: row.amount,
    currency: response.currency ?? row.currency ?? '',
    paidAt: row.settledAt,
    reference: null,
    processorReference: null,
    linkId: target.type === 'PAY_REQUEST' ? (target.payRequestId ?? null) : null,
    installmentId: target.type === 'INSTALLMENT' ? (target.installmentId ?? null) : null,
    subscriptionId: null,
  };
}

/** Refunds and the payments they refund, on `executor` (the database, or one transaction). */
export function postgresRefundStore(db: Executor): RefundStore {
  async function paymentOf(merchantId: string, paymentId: string, lock: boolean) {
    const chargeQuery = db
      .select()
      .from(charges)
      .where(and(eq(charges.id, paymentId), eq(charges.merchantId, merchantId)));
    const [charge] = lock ? await chargeQuery.for('update') : await chargeQuery;
    if (charge) return paymentOfCharge(charge);
    // Only a registered transfer is a movement: a notification still being settled has announced nothing.
    const transferQuery = db
      .select()
      .from(bankTransfers)
      .where(
        and(
          eq(bankTransfers.txId, paymentId),
          eq(bankTransfers.merchantId, merchantId),
          eq(bankTransfers.status, 'settled'),
        ),
      );
    const [transfer] = lock ? await transferQuery.for('update') : await transferQuery;
    return transfer && paymentOfTransfer(transfer);
  }

  return {
    lockPayment: (merchantId, paymentId) => paymentOf(merchantId, paymentId, true),
    findPayment: (merchantId, paymentId) => paymentOf(merchantId, paymentId, false),

    async totalsOf(paymentId) {
      const [row] = await db
        .select({
          committed: sql<string>`coalesce(sum(${refunds.amount}) filter (where ${refunds.status} <> 'failed'), 0)::numeric(18, 2)::text`,
          succeeded: sql<string>`coalesce(sum(${refunds.amount}) filter (where ${refunds.status} = 'succeeded'), 0)::numeric(18, 2)::text`,
        })
        .from(refunds)
        .where(eq(refunds.paymentId, paymentId));
      return { committed: toMinor(row?.committed ?? '0.00'), succeeded: toMinor(row?.succeeded ?? '0.00') };
    },

    async findRefundByKey(merchantId, idempotencyKey) {
      const [row] = await db
        .select()
        .from(refunds)
        .where(and(eq(refunds.merchantId, merchantId), eq(refunds.idempotencyKey, idempotencyKey)));
      return row && toRefund(row);
    },

    async isRefund(merchantId, id) {
      const [row] = await db
        .select({ id: refunds.id })
        .from(refunds)
        .where(and(eq(refunds.id, id), eq(refunds.merchantId, merchantId)));
      return row !== undefined;
    },

    async findRefund(merchantId, paymentId, refundId) {
      const [row] = await db
        .select()
        .from(refunds)
        .where(
          and(eq(refunds.id, refundId), eq(refunds.merchantId, merchantId), eq(refunds.paymentId, paymentId)),
        );
      return row && toRefund(row);
    },

    async insertRefund(refund) {
      const inserted = await db
        .insert(refunds)
        .values(refund)
        .onConflictDoNothing({ target: [refunds.merchantId, refunds.idempotencyKey] })
        .returning({ id: refunds.id });
      return inserted.length === 1;
    },

    async lockRefund(refundId) {
      const [row] = await db.select().from(refunds).where(eq(refunds.id, refundId)).for('update');
      return row && toRefund(row);
    },

    async saveRefund(refund) {
      const { id, ...changes } = refund;
      await db.update(refunds).set(changes).where(eq(refunds.id, id));
    },

    async claimDueRefunds(now, leaseUntil, limit) {
      const due = await db
        .select({ id: refunds.id })
        .from(refunds)
        .where(and(inArray(refunds.status, [...UNSETTLED]), lte(refunds.nextCheckAt, now)))
        .orderBy(asc(refunds.nextCheckAt))
        .limit(limit)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];
      const rows = await db
        .update(refunds)
        .set({ nextCheckAt: leaseUntil })
        .where(
          inArray(
            refunds.id,
            due.map((row) => row.id),
          ),
        )
        .returning();
      return rows.map(toRefund).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },
  };
}
