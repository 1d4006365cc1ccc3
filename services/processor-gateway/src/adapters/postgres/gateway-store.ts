import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '@payrail/db';
import { enqueueEvent } from '@payrail/messaging';
import { and, asc, eq, gte, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Charge } from '../../domain/charge';
import type { PaymentMethod } from '../../domain/payment-method';
import { newProcessorReference } from '../../application/processor-references';
import type { DeclineCategory, ProcessorId } from '../../ports/card-processor';
import type { CardRegistration, GatewayStore } from '../../ports/gateway-store';
import { cardRegistrations, charges, outbox, paymentMethods, processorCustomers } from './schema';

type ChargeRow = typeof charges.$inferSelect;
type PaymentMethodRow = typeof paymentMethods.$inferSelect;
type RegistrationRow = typeof cardRegistrations.$inferSelect;

function toCharge(row: ChargeRow): Charge {
  return {
    ...row,
    processor: row.processor as ProcessorId,
    declineCategory: row.declineCategory as DeclineCategory | null,
    hostedForm: row.hostedForm ?? null,
  };
}

function chargeRow(charge: Charge): typeof charges.$inferInsert {
  const { ...row } = charge;
  return row;
}

function toPaymentMethod(row: PaymentMethodRow): PaymentMethod {
  return { ...row, processor: row.processor as ProcessorId };
}

function toRegistration(row: RegistrationRow): CardRegistration {
  return { ...row, processor: row.processor as ProcessorId };
}

const UNSETTLED = ['pending', 'unknown'] as const;

export function postgresGatewayStore(db: Executor): GatewayStore {
  const store: GatewayStore = {
    transaction(work) {
      return (db as Database).transaction((tx) => work(postgresGatewayStore(tx)));
    },

    async insertCharge(charge) {
      const inserted = await db
        .insert(charges)
        .values(chargeRow(charge))
        .onConflictDoNothing({ target: charges.idempotencyKey })
        .returning({ id: charges.id });
      return inserted.length > 0;
    },
    async findChargeByKey(idempotencyKey) {
      const [row] = await db.select().from(charges).where(eq(charges.idempotencyKey, idempotencyKey));
      return row && toCharge(row);
    },
    async findCharge(merchantId, chargeId) {
      const [row] = await db
        .select()
        .from(charges)
        .where(and(eq(charges.id, chargeId), eq(charges.merchantId, merchantId)));
      return row && toCharge(row);
    },
    async lockCharge(chargeId) {
      const [row] = await db.select().from(charges).where(eq(charges.id, chargeId)).for('update');
      return row && toCharge(row);
    },
    async lockChargeByReference(processor, reference) {
      const [row] = await db
        .select()
        .from(charges)
        .where(and(eq(charges.reference, reference), eq(charges.processor, processor)))
        .for('update');
      return row && toCharge(row);
    },
    async lockChargeByProcessorReference(processor, processorReference) {
      const [row] = await db
        .select()
        .from(charges)
        .where(and(eq(charges.processorReference, processorReference), eq(charges.processor, processor)))
        .for('update');
      return row && toCharge(row);
    },
    async findChargeByProcessorReference(merchantId, processor, processorReference) {
      const [row] = await db
        .select()
        .from(charges)
        .where(
          and(
            eq(charges.processorReference, processorReference),
            eq(charges.processor, processor),
            eq(charges.merchantId, merchantId),
          ),
        );
      return row && toCharge(row);
    },
    async saveCharge(charge) {
      const { id, idempotencyKey: _key, createdAt: _created, ...changes } = chargeRow(charge);
      await db
        .update(charges)
        .set(changes)
        .where(eq(charges.id, id as string));
    },
    async claimDueCharges(now, leaseUntil, limit) {
      const due = await db
        .select({ id: charges.id })
        .from(charges)
        .where(and(inArray(charges.status, [...UNSETTLED]), lte(charges.nextCheckAt, now)))
        .orderBy(asc(charges.nextCheckAt))
        .limit(limit)
        .for('update', { skipLocked: true });
      if (due.length === 0) return [];
      const rows = await db
        .update(charges)
        .set({ nextCheckAt: leaseUntil })
        .where(
          inArray(
            charges.id,
            due.map((row) => row.id),
          ),
        )
        .returning();
      return rows.map(toCharge).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },
    async countCardDeclines(paymentMethodId, since) {
      const [row] = await db
        .select({ count: sql<number>`count(*)::int` })
        .from(charges)
        .where(
          and(
            eq(charges.paymentMethodId, paymentMethodId),
            eq(charges.status, 'failed'),
            inArray(charges.declineCategory, ['soft', 'hard']),
            gte(charges.settledAt, since),
          ),
        );
      return row?.count ?? 0;
    },

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

    async processorCustomerRef(merchantId, customerId, processor, at) {
      const find = async () => {
        const [row] = await db
          .select({ customerRef: processorCustomers.customerRef })
          .from(processorCustomers)
          .where(
            and(
              eq(processorCustomers.merchantId, merchantId),
              eq(processorCustomers.customerId, customerId),
              eq(processorCustomers.processor, processor),
            ),
          );
        return row?.customerRef;
      };
      const existing = await find();
      if (existing) return existing;
      await db
        .insert(processorCustomers)
        .values({
          id: randomUUID(),
          merchantId,
          customerId,
          processor,
          customerRef: newProcessorReference(),
          createdAt: at,
        })
        .onConflictDoNothing();
      const created = await find();
      if (!created) throw new Error('processor customer neither inserted nor found');
      return created;
    },

    async insertRegistration(registration) {
      await db.insert(cardRegistrations).values(registration);
    },
    async lockRegistration(merchantId, registrationId) {
      const [row] = await db
        .select()
        .from(cardRegistrations)
        .where(and(eq(cardRegistrations.id, registrationId), eq(cardRegistrations.merchantId, merchantId)))
        .for('update');
      return row && toRegistration(row);
    },
    async saveRegistration(registration) {
      const { id, ...changes } = registration;
      await db.update(cardRegistrations).set(changes).where(eq(cardRegistrations.id, id));
    },

    async publish(events) {
      for (const event of events) await enqueueEvent(db, outbox, event);
    },
  };
  return store;
}
