import { type Executor, executePrepared, rowsOf } from '@payrail/db';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DateMatch } from '../../domain/bulk';
import { ConcurrentModification, InvoiceNumberTaken } from '../../domain/errors';
import type { Installment } from '../../domain/installment';
import type { Subscription } from '../../domain/subscription';
import type { InstallmentStore } from '../../ports/installment-store';
import { arrayLiteral, isUniqueViolation, json, toInstallment, toSubscription } from './rows';
import { installments, subscriptions } from './schema';

const INVOICE_UNIQUE = 'installments_subscription_invoice_unique';

/**
 * Every installment of the subscriptions a batch locked (about 22 rows a payment), read by hand: only what
 * an `Installment` holds, each column as text or a number whatever the driver (postgres.js or PGlite), so
 * that a row costs a few property reads rather than the query builder's mapping of eleven columns.
 */
const INSTALLMENTS_OF_SUBSCRIPTIONS = `
  select id, subscription_id::float8 as subscription_id, number, payment_date::text as payment_date,
         amount::text as amount, status, invoice_number,
         (extract(epoch from paid_at) * 1000)::float8 as paid_at_ms
  from subscriptions.installments
  where subscription_id = any($1::bigint[])
  order by subscription_id, number`;

interface InstallmentOfSubscription {
  id: number;
  subscription_id: number;
  number: number;
  payment_date: string;
  amount: string;
  status: Installment['status'];
  invoice_number: string | null;
  paid_at_ms: number | null;
}

/** The installments, reached through their subscriptions, on the executor given. */
export function postgresInstallmentStore(executor: Executor): InstallmentStore {
  /**
   * Locks the subscriptions of the installments (each only when its subscription is that merchant's) in one
   * statement, in id order (so batches never deadlock each other); the rows as locked.
   */
  const lockOwners = async (refs: Array<{ merchantId: string; installmentId: number }>) => {
    const asked = json(
      refs.map((ref) => ({ merchant_id: ref.merchantId, installment_id: ref.installmentId })),
    );
    // The installments by key as well: joined only with the JSON set (which the planner takes for 100
    // rows), the whole table looked cheaper to hash than 100 lookups while it was small.
    const ids = arrayLiteral([...new Set(refs.map((ref) => ref.installmentId))]);
    return executor
      .select()
      .from(subscriptions)
      .where(
        inArray(
          subscriptions.id,
          sql`(
            select i.subscription_id
            from ${installments} as i
            join json_to_recordset(${asked}::json) as x(merchant_id uuid, installment_id bigint)
              on x.installment_id = i.id
            join ${subscriptions} as owner on owner.id = i.subscription_id and owner.merchant_id = x.merchant_id
            where i.id = any(${ids}::int[]))`,
        ),
      )
      .orderBy(asc(subscriptions.id))
      .for('update');
  };
  const store: InstallmentStore = {
    async findInstallment(merchantId, installmentId) {
      // Scoped by merchant through the subscription: another merchant's installment is not found.
      const [owner] = await executor
        .select({ subscriptionId: installments.subscriptionId })
        .from(installments)
        .innerJoin(subscriptions, eq(subscriptions.id, installments.subscriptionId))
        .where(and(eq(installments.id, installmentId), eq(subscriptions.merchantId, merchantId)));
      if (!owner) return undefined;
      // Lock the subscription first, then read the installment: what is read is what the lock protects.
      const [subscription] = await executor
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.id, owner.subscriptionId))
        .for('update');
      const [installment] = await executor
        .select()
        .from(installments)
        .where(eq(installments.id, installmentId));
      if (!subscription || !installment) return undefined;
      return { subscription: toSubscription(subscription), installment: toInstallment(installment) };
    },

    async findInstallmentsForUpdate(refs) {
      const found = new Map<number, { subscription: Subscription; installment: Installment }>();
      if (refs.length === 0) return found;
      const lockedRows = await lockOwners(refs);
      if (lockedRows.length === 0) return found;
      const installmentRows = await executor
        .select()
        .from(installments)
        // Array parameters whatever the count: one statement text, prepared once.
        .where(
          sql`${installments.id} = any(${arrayLiteral(refs.map((ref) => ref.installmentId))}::int[])
            and ${installments.subscriptionId} = any(${arrayLiteral(lockedRows.map((row) => row.id))}::bigint[])`,
        );
      const subscriptionRows = lockedRows;
      const byId = new Map(subscriptionRows.map((row) => [row.id, toSubscription(row)]));
      for (const row of installmentRows) {
        const subscription = byId.get(row.subscriptionId);
        if (subscription) found.set(row.id, { subscription, installment: toInstallment(row) });
      }
      return found;
    },

    async lockSubscriptionsOfInstallments(refs) {
      if (refs.length === 0) return [];
      const locked = await lockOwners(refs);
      if (locked.length === 0) return [];
      // One array parameter whatever the count: one statement text, prepared once.
      const rows = await executePrepared<InstallmentOfSubscription>(
        executor,
        'installments_of_subscriptions',
        INSTALLMENTS_OF_SUBSCRIPTIONS,
        [arrayLiteral(locked.map((row) => row.id))],
      );
      const bySubscription = new Map<number, Installment[]>();
      for (const row of rows) {
        const subscriptionId = Number(row.subscription_id);
        let list = bySubscription.get(subscriptionId);
        if (!list) {
          list = [];
          bySubscription.set(subscriptionId, list);
        }
        list.push({
          id: Number(row.id),
          subscriptionId,
          number: Number(row.number),
          paymentDate: row.payment_date,
          amount: row.amount,
          status: row.status,
          invoiceNumber: row.invoice_number,
          paidAt: row.paid_at_ms === null ? null : new Date(Number(row.paid_at_ms)),
        });
      }
      return locked.map((row) => ({
        subscription: toSubscription(row),
        installments: bySubscription.get(row.id) ?? [],
      }));
    },

    async readInstallment(merchantId, installmentId) {
      const [row] = await executor
        .select({ subscription: subscriptions, installment: installments })
        .from(installments)
        .innerJoin(subscriptions, eq(subscriptions.id, installments.subscriptionId))
        .where(and(eq(installments.id, installmentId), eq(subscriptions.merchantId, merchantId)));
      return row
        ? { subscription: toSubscription(row.subscription), installment: toInstallment(row.installment) }
        : undefined;
    },

    async installmentsOf(subscriptionId) {
      const rows = await executor
        .select()
        .from(installments)
        .where(eq(installments.subscriptionId, subscriptionId))
        .orderBy(asc(installments.number));
      return rows.map(toInstallment);
    },

    async insertInstallments(subscriptionId, drafts, at) {
      try {
        return await store.insertInstallmentsOfMany(
          drafts.map((draft) => ({ ...draft, subscriptionId })),
          at,
        );
      } catch (error) {
        if (isUniqueViolation(error, INVOICE_UNIQUE)) {
          throw new InvoiceNumberTaken();
        }
        throw error;
      }
    },

    async insertInstallmentsOfMany(drafts, at) {
      if (drafts.length === 0) return [];
      const rows = drafts.map((draft) => ({
        subscription_id: draft.subscriptionId,
        number: draft.number,
        payment_date: draft.paymentDate,
        amount: draft.amount,
        status: draft.status,
        invoice_number: draft.invoiceNumber,
        paid_at: draft.paidAt?.toISOString() ?? null,
      }));
      // (subscription, number) is unique: a second writer of the same number fails here, storing nothing.
      const inserted = rowsOf<{ id: number; subscription_id: number; number: number }>(
        await executor.execute(sql`
          insert into ${installments}
            (subscription_id, number, payment_date, amount, status, invoice_number, paid_at, created_at, updated_at)
          select x.subscription_id, x.number, x.payment_date, x.amount, x.status, x.invoice_number, x.paid_at,
                 ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
          from json_to_recordset(${json(rows)}::json)
            as x(subscription_id bigint, number int, payment_date date, amount numeric, status text,
                 invoice_number text, paid_at timestamptz)
          returning id, subscription_id, number`),
      );
      const idOf = new Map(
        inserted.map((row) => [`${Number(row.subscription_id)}:${Number(row.number)}`, Number(row.id)]),
      );
      return drafts.map((draft) => ({
        ...draft,
        id: idOf.get(`${draft.subscriptionId}:${draft.number}`) as number,
      }));
    },

    async saveInstallments(changes, at, options) {
      if (changes.length === 0) return;
      const rows = changes.map(({ before, after }) => ({
        id: after.id,
        expected_status: before.status,
        amount: after.amount,
        payment_date: after.paymentDate,
        status: after.status,
        paid_at: after.paidAt?.toISOString() ?? null,
      }));
      const updated = rowsOf<{ id: number }>(
        await executor.execute(sql`
          update ${installments} as i
          set amount = x.amount, payment_date = x.payment_date, status = x.status, paid_at = x.paid_at,
              updated_at = ${at.toISOString()}::timestamptz${options?.clearNextAttempt ? sql`, next_attempt_on = null` : sql``}
          from json_to_recordset(${json(rows)}::json)
            as x(id int, expected_status text, amount numeric, payment_date date, status text, paid_at timestamptz)
          where i.id = x.id and i.status = x.expected_status
          returning i.id`),
      );
      if (updated.length !== changes.length) {
        // Another writer changed one of them since it was read: store nothing (the transaction rolls back).
        throw new ConcurrentModification('An installment changed meanwhile; try again');
      }
    },

    async updateAmountsOnDates(updates, at) {
      if (updates.length === 0) return [];
      // Four typed arrays: cheaper for the database to read than as many JSON records. Every element is
      // an integer, a validated yyyy-MM-dd or a two-decimal amount, so none needs quoting.
      const keys = arrayLiteral(updates.map((update) => update.key));
      const subscriptionIds = arrayLiteral(updates.map((update) => update.subscriptionId));
      const paymentDates = arrayLiteral(updates.map((update) => update.paymentDate));
      const amounts = arrayLiteral(updates.map((update) => update.amount));
      // One statement for the whole request: which installments each date matches (none, one, several
      // pending ones), the update of the dates that match exactly one pending installment from the 2nd on,
      // and the outcome of every date. `i.status = 'pending'` is checked again by the UPDATE itself.
      const rows = rowsOf<{
        k: number;
        pending_matches: number;
        all_matches: number;
        id: number | null;
        number: number | null;
        amount: string | null;
        invoice_number: string | null;
        previous_amount: string | null;
      }>(
        await executor.execute(sql`
          with req as (
            select * from unnest(${keys}::int[], ${subscriptionIds}::bigint[], ${paymentDates}::date[], ${amounts}::numeric[])
              as r(k, subscription_id, payment_date, amount)
          ),
          verdict as (
            select r.k, r.amount,
                   count(i.id) filter (where i.status = 'pending' and i.number >= 2)::int as pending_matches,
                   count(i.id)::int as all_matches,
                   min(i.id) filter (where i.status = 'pending' and i.number >= 2) as installment_id,
                   min(i.amount) filter (where i.status = 'pending' and i.number >= 2) as previous_amount
            from req r
            left join ${installments} i on i.subscription_id = r.subscription_id and i.payment_date = r.payment_date
            group by r.k, r.amount
          ),
          updated as (
            update ${installments} as i
            set amount = v.amount, updated_at = ${at.toISOString()}::timestamptz
            from verdict v
            where v.pending_matches = 1 and i.id = v.installment_id and i.status = 'pending'
            returning v.k, i.id, i.number, i.amount::text as amount, i.invoice_number,
                      v.previous_amount::text as previous_amount
          )
          select v.k, v.pending_matches, v.all_matches, u.id, u.number, u.amount, u.invoice_number, u.previous_amount
          from verdict v left join updated u on u.k = v.k`),
      );
      const byKey = new Map(updates.map((update) => [update.key, update]));
      return rows.map((row): DateMatch => {
        const key = Number(row.k);
        const match: DateMatch = {
          key,
          pendingMatches: Number(row.pending_matches),
          allMatches: Number(row.all_matches),
        };
        const update = byKey.get(key);
        if (row.id !== null && row.id !== undefined && update) {
          // The installment was matched by (subscription, date) and is pending: those come from the request.
          match.updated = {
            id: Number(row.id),
            subscriptionId: update.subscriptionId,
            number: Number(row.number),
            paymentDate: update.paymentDate,
            amount: row.amount as string,
            status: 'pending',
            invoiceNumber: row.invoice_number,
            paidAt: null,
          };
          match.previousAmount = row.previous_amount as string;
        }
        return match;
      });
    },
  };
  return store;
}
