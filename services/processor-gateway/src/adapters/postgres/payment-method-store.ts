import type { Executor } from '@payrail/db';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { PaymentMethod } from '../../domain/payment-method';
import type { ProcessorId } from '../../ports/card-processor';
import type { PaymentMethodStore } from '../../ports/payment-method-store';
import { paymentMethods } from './schema';

type PaymentMethodRow = typeof paymentMethods.$inferSelect;

function toPaymentMethod(row: PaymentMethodRow): PaymentMethod {
  return { ...row, processor: row.processor as ProcessorId };
}

/** The card vault on PostgreSQL, bound to the database or to one transaction. */
export function postgresPaymentMethodStore(db: Executor): PaymentMethodStore {
  return {
    async findPaymentMethod(merchantId, paymentMethodId) {
      const [row] = await db
        .select()
        .from(paymentMethods)
        .where(and(eq(paymentMethods.id, paymentMethodId), eq(paymentMethods.merchantId, merchantId)));
      return row && toPaymentMethod(row);
    },
    async lockPaymentMethod(paymentMethodId) {
      const [row] = await db
        .select()
        .from(paymentMethods)
        .where(eq(paymentMethods.id, paymentMethodId))
        .for('update');
      return row && toPaymentMethod(row);
    },
    async listPaymentMethods(merchantId, customerId) {
      const rows = await db
        .select()
        .from(paymentMethods)
        .where(
          and(
            eq(paymentMethods.merchantId, merchantId),
            eq(paymentMethods.customerId, customerId),
            isNull(paymentMethods.removedAt),
          ),
        )
        .orderBy(asc(paymentMethods.createdAt), asc(paymentMethods.id));
      return rows.map(toPaymentMethod);
    },
    async saveNewPaymentMethod(method) {
      const inserted = await db.insert(paymentMethods).values(method).onConflictDoNothing().returning();
      if (inserted[0]) return { method: toPaymentMethod(inserted[0]), created: true };
      const [existing] = await db
        .select()
        .from(paymentMethods)
        .where(
          and(
            eq(paymentMethods.processor, method.processor),
            eq(paymentMethods.customerRef, method.customerRef),
            eq(paymentMethods.cardRef, method.cardRef),
            isNull(paymentMethods.removedAt),
          ),
        );
      if (!existing) throw new Error('payment method neither inserted nor found');
      return { method: toPaymentMethod(existing), created: false };
    },
    async savePaymentMethod(method) {
      const { id, createdAt: _created, ...changes } = method;
      await db.update(paymentMethods).set(changes).where(eq(paymentMethods.id, id));
    },
  };
}
