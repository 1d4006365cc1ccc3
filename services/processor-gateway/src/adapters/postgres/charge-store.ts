import { type Executor, executePrepared, textArrayLiteral } from '@payrail/db';
import { and, asc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Charge, StoredCardDraft } from '../../domain/charge';
import type { DeclineCategory, ProcessorId } from '../../ports/card-processor';
import type { ChargeStore, OpenedStoredCardCharge } from '../../ports/charge-store';
import { charges, paymentMethods } from './schema';

type ChargeRow = typeof charges.$inferSelect;

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

const UNSETTLED = ['pending', 'unknown'] as const;

/**
 * New stored-card charges of a batch, inserted in one statement (the rule of `chargeStoredCard`'s opening
 * transaction: a key not seen before, a payment method of the merchant's, not removed, not blocked now).
 * Written by hand: the busiest write of an as-of run, and a JSON document is one parameter whatever the
 * batch's size (prepared once). The cards are read by key (`m.id = any(array(...))`): the planner takes a
 * JSON set for 100 rows and would otherwise hash-join it with every row of payment_methods.
 */
const INSERT_STORED_CARD_CHARGES = `
  with request as (
    select * from json_to_recordset($1::json) as r(
      id uuid, idempotency_key text, merchant_id uuid, installment_id bigint, attempt integer, link_id bigint,
      payment_method_id uuid, reference text, amount numeric, currency text, processor_calls integer,
      created_at timestamptz, next_check_at timestamptz)
  ), inserted as (
    insert into processor_gateway.charges (id, idempotency_key, merchant_id, kind, installment_id, attempt,
      link_id, payment_method_id, processor, reference, amount, currency, status, processor_calls,
      status_checks, created_at, updated_at, next_check_at)
    select r.id, r.idempotency_key, r.merchant_id, 'stored-card', r.installment_id, r.attempt, r.link_id,
      m.id, m.processor, r.reference, r.amount, r.currency, 'pending', r.processor_calls, 0, r.created_at,
      r.created_at, r.next_check_at
    from request r
    join processor_gateway.payment_methods m on m.id = r.payment_method_id and m.merchant_id = r.merchant_id
    where m.removed_at is null and (m.blocked_until is null or m.blocked_until <= $2::timestamptz)
      and m.id = any(array(select payment_method_id from request))
    on conflict (idempotency_key) do nothing
    returning id, payment_method_id, processor
  )
  select i.id::text as id, i.processor, m.customer_ref, m.card_ref
  from inserted i join processor_gateway.payment_methods m on m.id = i.payment_method_id
  where m.id = any(array(select payment_method_id from request))`;

/**
 * Every column `saveCharge` writes, from one JSON document of rows (`chargeRecord`). The charges are also
 * found by their ids (`$2`): joined only with the JSON set, which the planner takes for 100 rows, they were
 * hashed whole for each batch while the table was small or its statistics old (a new database).
 */
export const SAVE_CHARGES = `
  update processor_gateway.charges c set
    merchant_id = r.merchant_id, kind = r.kind, installment_id = r.installment_id, attempt = r.attempt,
    link_id = r.link_id, payment_method_id = r.payment_method_id, processor = r.processor,
    reference = r.reference, processor_reference = r.processor_reference, amount = r.amount,
    currency = r.currency, status = r.status, decline_code = r.decline_code,
    decline_category = r.decline_category, retryable = r.retryable, authorization_code = r.authorization_code,
    hosted_form = r.hosted_form, processor_calls = r.processor_calls, status_checks = r.status_checks,
    last_error = r.last_error, updated_at = r.updated_at, next_check_at = r.next_check_at,
    settled_at = r.settled_at
  from json_populate_recordset(null::processor_gateway.charges, $1::json) r
  where c.id = r.id and c.id = any($2::uuid[])`;

/** A charge as a row of `processor_gateway.charges` in JSON (column names; dates as ISO text). */
function chargeRecord(charge: Charge | StoredCardDraft): Record<string, unknown> {
  return {
    id: charge.id,
    idempotency_key: charge.idempotencyKey,
    merchant_id: charge.merchantId,
    kind: charge.kind,
    installment_id: charge.installmentId,
    attempt: charge.attempt,
    link_id: charge.linkId,
    payment_method_id: charge.paymentMethodId,
    processor: 'processor' in charge ? charge.processor : null,
    reference: charge.reference,
    processor_reference: charge.processorReference,
    amount: charge.amount,
    currency: charge.currency,
    status: charge.status,
    decline_code: charge.declineCode,
    decline_category: charge.declineCategory,
    retryable: charge.retryable,
    authorization_code: charge.authorizationCode,
    hosted_form: charge.hostedForm,
    processor_calls: charge.processorCalls,
    status_checks: charge.statusChecks,
    last_error: charge.lastError,
    created_at: charge.createdAt,
    updated_at: charge.updatedAt,
    next_check_at: charge.nextCheckAt,
    settled_at: charge.settledAt,
  };
}

/** Charges on PostgreSQL, bound to the database or to one transaction. */
export function postgresChargeStore(db: Executor): ChargeStore {
  return {
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
    async describeCharges(merchantId, chargeIds) {
      const ids = [...new Set(chargeIds)];
      if (ids.length === 0) return [];
      const rows = await db
        .select({
          chargeId: charges.id,
          status: charges.status,
          processor: charges.processor,
          amount: charges.amount,
          currency: charges.currency,
          settledAt: charges.settledAt,
          brand: paymentMethods.brand,
          last4: paymentMethods.last4,
        })
        .from(charges)
        .leftJoin(paymentMethods, eq(paymentMethods.id, charges.paymentMethodId))
        .where(and(eq(charges.merchantId, merchantId), inArray(charges.id, ids)));
      return rows.map((row) => ({ ...row, processor: row.processor as ProcessorId }));
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
    async insertStoredCardCharges(drafts, now) {
      if (drafts.length === 0) return [];
      const rows = await executePrepared<{
        id: string;
        processor: string;
        customer_ref: string;
        card_ref: string;
      }>(db, 'charges_insert_stored_card', INSERT_STORED_CARD_CHARGES, [
        JSON.stringify(drafts.map(chargeRecord)),
        now.toISOString(),
      ]);
      return rows.map(
        (row): OpenedStoredCardCharge => ({
          id: row.id,
          processor: row.processor as ProcessorId,
          customerRef: row.customer_ref,
          cardRef: row.card_ref,
        }),
      );
    },
    async lockCharges(chargeIds) {
      if (chargeIds.length === 0) return [];
      // One array parameter: the same statement text (prepared once per connection) whatever the batch's size.
      const rows = await db
        .select()
        .from(charges)
        .where(sql`${charges.id} = any(${textArrayLiteral(chargeIds)}::uuid[])`)
        .orderBy(asc(charges.id))
        .for('update');
      return rows.map(toCharge);
    },
    async saveCharges(list) {
      if (list.length === 0) return;
      // Uuids only: the array literal needs no quoting.
      await executePrepared(db, 'charges_save_many', SAVE_CHARGES, [
        JSON.stringify(list.map(chargeRecord)),
        `{${list.map((charge) => charge.id).join(',')}}`,
      ]);
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
  };
}
