import { type MerchantContext, merchantContextSchema } from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { enqueueEvent } from '@payrail/messaging';
import { and, asc, eq, lt } from 'drizzle-orm';
import { v7 as timeOrderedUuid } from 'uuid';
import type { BankTransfer, TransferNotification } from '../../domain/bank-transfer';
import type { BankTransferStore } from '../../ports/bank-transfer-store';
import { bankTransfers, outbox } from './schema';

type Row = typeof bankTransfers.$inferSelect;

function toTransfer(row: Row): BankTransfer {
  return {
    id: row.id,
    txId: row.txId,
    merchantId: row.merchantId,
    status: row.status,
    fingerprint: row.fingerprint,
    notification: row.request as unknown as TransferNotification,
    createdAt: row.createdAt,
    settledAt: row.settledAt,
  };
}

function merchantOf(row: Row): MerchantContext {
  return merchantContextSchema.parse(row.merchant);
}

export function postgresBankTransferStore(db: Database): BankTransferStore {
  const store: BankTransferStore = {
    async claim({ merchant, fingerprint, notification, at }) {
      const [inserted] = await db
        .insert(bankTransfers)
        .values({
          // Time-ordered, as charge ids: the id of the money movement if this claim settles.
          txId: timeOrderedUuid(),
          merchantId: merchant.merchantId,
          reference: notification.reference,
          fingerprint,
          status: 'pending',
          targetType: notification.target.type,
          amount: notification.amount,
          currency: notification.currency,
          bankName: notification.bankName,
          transferDate: notification.transferDate,
          note: notification.note,
          request: notification as unknown as Record<string, unknown>,
          merchant: merchant as unknown as Record<string, unknown>,
          createdAt: at,
        })
        // The unique (merchant, reference) decides between concurrent notifications of one transfer.
        .onConflictDoNothing({ target: [bankTransfers.merchantId, bankTransfers.reference] })
        .returning();
      if (inserted) return { transfer: toTransfer(inserted), merchant, claimed: true };
      const [existing] = await db
        .select()
        .from(bankTransfers)
        .where(
          and(
            eq(bankTransfers.merchantId, merchant.merchantId),
            eq(bankTransfers.reference, notification.reference),
          ),
        );
      // Released (refused) between our insert and this read: the caller claims again.
      if (!existing) return store.claim({ merchant, fingerprint, notification, at });
      return { transfer: toTransfer(existing), merchant: merchantOf(existing), claimed: false };
    },

    async markSettled(id, { response, at, event }) {
      return db.transaction(async (tx) => {
        const [settled] = await tx
          .update(bankTransfers)
          .set({ status: 'settled', response, settledAt: at })
          .where(and(eq(bankTransfers.id, id), eq(bankTransfers.status, 'pending')))
          .returning();
        if (settled) {
          await enqueueEvent(tx, outbox, event(toTransfer(settled)));
          return response;
        }
        // Another request driving the same transfer settled it first: its answer is the answer.
        const [first] = await tx.select().from(bankTransfers).where(eq(bankTransfers.id, id));
        if (!first?.response) throw new Error(`bank transfer ${id} is neither pending nor settled`);
        return first.response;
      });
    },

    async responseOf(id) {
      const [row] = await db
        .select({ response: bankTransfers.response })
        .from(bankTransfers)
        .where(eq(bankTransfers.id, id));
      return row?.response ?? undefined;
    },

    async release(id) {
      await db
        .delete(bankTransfers)
        .where(and(eq(bankTransfers.id, id), eq(bankTransfers.status, 'pending')));
    },

    async stalePending(olderThan, limit) {
      const rows = await db
        .select()
        .from(bankTransfers)
        .where(and(eq(bankTransfers.status, 'pending'), lt(bankTransfers.createdAt, olderThan)))
        .orderBy(asc(bankTransfers.createdAt))
        .limit(limit);
      return rows.map((row) => ({ transfer: toTransfer(row), merchant: merchantOf(row) }));
    },
  };
  return store;
}
