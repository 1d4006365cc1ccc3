import type { EventEnvelope } from '@payrail/contracts';
import { type Executor, executePrepared, rowsOf } from '@payrail/db';
import { enqueueEvents, outboxTraceHeaders } from '@payrail/messaging';
import { and, asc, eq, gt, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { DateMatch } from '../../domain/bulk';
import { type AttemptStatus, type ChargeAttempt, chargeKey } from '../../domain/debit';
import { ConcurrentModification, InvoiceNumberTaken } from '../../domain/errors';
import type { SubscriptionCriteria } from '../../domain/identifiers';
import type { Installment } from '../../domain/installment';
import type { Subscription } from '../../domain/subscription';
import type { EarlyPaymentDetails, SubscriptionStore } from '../../ports/subscription-store';
import {
  bankTransferSettlements,
  chargeAttempts,
  earlyLinkPayments,
  installments,
  outbox,
  subscriptions,
} from './schema';

type SubscriptionRow = typeof subscriptions.$inferSelect;
type InstallmentRow = typeof installments.$inferSelect;
type AttemptRow = typeof chargeAttempts.$inferSelect;

function toAttempt(row: AttemptRow): ChargeAttempt {
  return {
    installmentId: row.installmentId,
    subscriptionId: row.subscriptionId,
    merchantId: row.merchantId,
    attempt: row.attempt,
    idempotencyKey: row.idempotencyKey,
    runId: row.runId,
    paymentMethodId: row.paymentMethodId,
    processor: row.processor,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    requestedAt: row.requestedAt,
    settledAt: row.settledAt,
    chargeId: row.chargeId,
    declineCode: row.declineCode,
    category: row.category,
    nextAttemptOn: row.nextAttemptOn,
  };
}

/** Subscriptions the merchant still manages: past due ones too (their other installments are still collected). */
const OPEN_STATUSES = ['pending', 'active', 'past_due'] as const;
const INVOICE_UNIQUE = 'installments_subscription_invoice_unique';

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    merchantId: row.merchantId,
    linkId: row.linkId,
    type: row.type,
    status: row.status,
    customIdentifier: row.customIdentifier,
    customIdentifier2: row.customIdentifier2,
    currency: row.currency,
    firstAmount: row.firstAmount,
    installmentAmount: row.installmentAmount,
    totalPeriods: row.totalPeriods,
    dayOfMonth: row.dayOfMonth,
    monthForSecondInstallment: row.monthForSecondInstallment,
    periodsScheduled: row.periodsScheduled,
    timezone: row.timezone,
    createdOn: row.createdOn,
    createdAt: row.createdAt,
    activatedAt: row.activatedAt,
    endedAt: row.endedAt,
    paymentMethodId: row.paymentMethodId,
    processor: row.processor,
    customerId: row.customerId,
  };
}

function toInstallment(row: InstallmentRow): Installment {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    number: row.number,
    paymentDate: row.paymentDate,
    amount: row.amount,
    status: row.status,
    invoiceNumber: row.invoiceNumber,
    paidAt: row.paidAt,
  };
}

function criteriaCondition(merchantId: string, criteria: SubscriptionCriteria): SQL | undefined {
  return and(
    eq(subscriptions.merchantId, merchantId),
    inArray(subscriptions.status, [...OPEN_STATUSES]),
    criteria.customIdentifier === null
      ? undefined
      : eq(subscriptions.customIdentifier, criteria.customIdentifier),
    criteria.customIdentifier2 === null
      ? undefined
      : eq(subscriptions.customIdentifier2, criteria.customIdentifier2),
    criteria.linkId === null ? undefined : eq(subscriptions.linkId, criteria.linkId),
  );
}

/** JSON as one query parameter: set-based statements read it with `json_to_recordset`, whatever the row count. */
function json(rows: unknown[]): string {
  return JSON.stringify(rows);
}

function arrayLiteral(values: Array<number | string>): string {
  return `{${values.join(',')}}`;
}

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

/** A batch's new attempts in one statement of one text, whatever their number (prepared once). */
const INSERT_ATTEMPTS = `
  insert into subscriptions.charge_attempts (installment_id, subscription_id, merchant_id, attempt,
    idempotency_key, run_id, payment_method_id, processor, amount, currency, status, requested_at, settled_at,
    charge_id, decline_code, category, next_attempt_on)
  select installment_id, subscription_id, merchant_id, attempt, idempotency_key, run_id, payment_method_id,
         processor, amount, currency, status, requested_at, settled_at, charge_id, decline_code, category,
         next_attempt_on
  from json_to_recordset($1::json) as x(installment_id int, subscription_id bigint, merchant_id uuid,
    attempt int, idempotency_key text, run_id uuid, payment_method_id uuid, processor text, amount numeric,
    currency text, status text, requested_at timestamptz, settled_at timestamptz, charge_id uuid,
    decline_code text, category text, next_attempt_on date)`;

function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause) {
    const candidate = current as {
      code?: unknown;
      constraint_name?: unknown;
      constraint?: unknown;
      message?: unknown;
    };
    if (candidate.code === '23505') {
      return (
        candidate.constraint_name === constraint ||
        candidate.constraint === constraint ||
        String(candidate.message).includes(constraint)
      );
    }
  }
  return false;
}

export function postgresSubscriptionStore(executor: Executor): SubscriptionStore {
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
  const store: SubscriptionStore = {
    transaction(work) {
      // Inside a transaction already (a consumer's inbox transaction), this is a savepoint.
      return executor.transaction((tx) => work(postgresSubscriptionStore(tx)));
    },

    async insertSubscription(subscription) {
      const [row] = await executor
        .insert(subscriptions)
        .values({ ...subscription, updatedAt: subscription.createdAt })
        .onConflictDoNothing({ target: subscriptions.linkId })
        .returning();
      return row ? toSubscription(row) : undefined;
    },

    async saveSubscription(subscription) {
      await executor
        .update(subscriptions)
        .set({
          status: subscription.status,
          installmentAmount: subscription.installmentAmount,
          totalPeriods: subscription.totalPeriods,
          dayOfMonth: subscription.dayOfMonth,
          periodsScheduled: subscription.periodsScheduled,
          activatedAt: subscription.activatedAt,
          endedAt: subscription.endedAt,
          paymentMethodId: subscription.paymentMethodId,
          processor: subscription.processor,
          customerId: subscription.customerId,
          updatedAt: sql`now()`,
        })
        .where(eq(subscriptions.id, subscription.id));
    },

    async saveSubscriptions(list) {
      if (list.length === 0) return;
      const rows = list.map((subscription) => ({
        id: subscription.id,
        status: subscription.status,
        installment_amount: subscription.installmentAmount,
        total_periods: subscription.totalPeriods,
        day_of_month: subscription.dayOfMonth,
        periods_scheduled: subscription.periodsScheduled,
        activated_at: subscription.activatedAt?.toISOString() ?? null,
        ended_at: subscription.endedAt?.toISOString() ?? null,
        payment_method_id: subscription.paymentMethodId,
        processor: subscription.processor,
        customer_id: subscription.customerId,
      }));
      // The columns saveSubscription sets, for every subscription at once.
      await executor.execute(sql`
        update ${subscriptions} as s
        set status = x.status, installment_amount = x.installment_amount, total_periods = x.total_periods,
            day_of_month = x.day_of_month, periods_scheduled = x.periods_scheduled,
            activated_at = x.activated_at, ended_at = x.ended_at,
            payment_method_id = x.payment_method_id, processor = x.processor, customer_id = x.customer_id,
            updated_at = now()
        from json_to_recordset(${json(rows)}::json)
          as x(id bigint, status text, installment_amount numeric, total_periods int, day_of_month int,
               periods_scheduled int, activated_at timestamptz, ended_at timestamptz, payment_method_id uuid,
               processor text, customer_id bigint)
        where s.id = x.id`);
    },

    async findByLink(merchantId, linkId) {
      const [row] = await executor
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.linkId, linkId), eq(subscriptions.merchantId, merchantId)))
        .for('update');
      return row ? toSubscription(row) : undefined;
    },

    async findOpenByCriteria(merchantId, criteria, { lock }) {
      const query = executor
        .select()
        .from(subscriptions)
        .where(criteriaCondition(merchantId, criteria))
        .orderBy(asc(subscriptions.id));
      const rows = lock ? await query.for('update') : await query;
      return rows.map(toSubscription);
    },

    async findSubscription(merchantId, subscriptionId) {
      const [row] = await executor
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.id, subscriptionId), eq(subscriptions.merchantId, merchantId)));
      return row ? toSubscription(row) : undefined;
    },

    async listSubscriptions(merchantId, filter, page) {
      const rows = await executor
        .select()
        .from(subscriptions)
        .where(
          and(
            eq(subscriptions.merchantId, merchantId),
            filter.customIdentifier === undefined
              ? undefined
              : eq(subscriptions.customIdentifier, filter.customIdentifier),
            filter.customIdentifier2 === undefined
              ? undefined
              : eq(subscriptions.customIdentifier2, filter.customIdentifier2),
            filter.linkId === undefined ? undefined : eq(subscriptions.linkId, filter.linkId),
            filter.status === undefined ? undefined : eq(subscriptions.status, filter.status),
            page.afterId === null ? undefined : gt(subscriptions.id, page.afterId),
          ),
        )
        .orderBy(asc(subscriptions.id))
        .limit(page.limit);
      return rows.map(toSubscription);
    },

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

    async findOpenByCriteriaBulk(merchantId, criteria) {
      const found = new Map<number, Subscription[]>();
      if (criteria.size === 0) return found;
      const request = [...criteria].map(([key, c]) => ({
        k: key,
        ci: c.customIdentifier,
        ci2: c.customIdentifier2,
        li: c.linkId,
      }));
      // One statement for every operation; rows locked in id order, so concurrent bulks cannot deadlock.
      const pairs = rowsOf<{ k: number; id: string }>(
        await executor.execute(sql`
          select r.k, s.id::text as id
          from json_to_recordset(${json(request)}::json) as r(k int, ci text, ci2 text, li bigint)
          join ${subscriptions} s
            on s.merchant_id = ${merchantId}
           and s.status in ('pending', 'active', 'past_due')
           and (r.ci is null or s.custom_identifier = r.ci)
           and (r.ci2 is null or s.custom_identifier2 = r.ci2)
           and (r.li is null or s.link_id = r.li)
          order by s.id
          for update of s`),
      );
      if (pairs.length === 0) return found;
      const ids = [...new Set(pairs.map((pair) => Number(pair.id)))];
      const rows = await executor.select().from(subscriptions).where(inArray(subscriptions.id, ids));
      const byId = new Map(rows.map((row) => [row.id, toSubscription(row)]));
      for (const pair of pairs) {
        const subscription = byId.get(Number(pair.id));
        if (!subscription) continue;
        const list = found.get(Number(pair.k)) ?? [];
        list.push(subscription);
        found.set(Number(pair.k), list);
      }
      return found;
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

    async lockLink(merchantId, linkId) {
      await executor.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`link:${merchantId}:${linkId}`}, 0))`,
      );
    },

    async recordEarlyPayment(payment) {
      const { card, details, ...rest } = payment;
      await executor
        .insert(earlyLinkPayments)
        .values({
          ...rest,
          details: details as unknown as Record<string, unknown> | null,
          paymentMethodId: card?.paymentMethodId ?? null,
          processor: card?.processor ?? null,
          customerId: card?.customerId ?? null,
        })
        .onConflictDoNothing();
    },

    async takeEarlyPayment(merchantId, linkId) {
      const [row] = await executor
        .delete(earlyLinkPayments)
        .where(and(eq(earlyLinkPayments.linkId, linkId), eq(earlyLinkPayments.merchantId, merchantId)))
        .returning();
      return row
        ? {
            linkId: row.linkId,
            merchantId: row.merchantId,
            amount: row.amount,
            paidAt: row.paidAt,
            method: row.method,
            txId: row.txId,
            details: (row.details as EarlyPaymentDetails | null) ?? null,
            card: row.paymentMethodId
              ? { paymentMethodId: row.paymentMethodId, processor: row.processor, customerId: row.customerId }
              : null,
          }
        : undefined;
    },

    async findTransferSettlement(merchantId, reference) {
      const [row] = await executor
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

    async recordTransferSettlement(settlement) {
      try {
        await executor.insert(bankTransferSettlements).values(settlement);
      } catch (error) {
        // Only a request racing with the same reference for another installment gets here (the lock on the
        // subscription orders two for the same one): the first wins, this one stores nothing.
        if (isUniqueViolation(error, 'bank_transfer_settlements_merchant_id_reference_pk')) {
          throw new ConcurrentModification('The bank reference was used meanwhile; try again');
        }
        throw error;
      }
    },

    async lockCard(paymentMethodId) {
      // A transaction-scoped advisory lock named by the card: two installments of different subscriptions on
      // one card cannot both see 5 attempts and both make the 6th and 7th.
      await executor.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`card:${paymentMethodId}`}, 0))`,
      );
    },

    async lockCards(paymentMethodIds) {
      const keys = [...new Set(paymentMethodIds)].sort().map((id) => `card:${id}`);
      if (keys.length === 0) return;
      // One after the other in the array's (sorted) order: two batches sharing cards take them alike.
      await executor.execute(sql`
        select pg_advisory_xact_lock(hashtextextended(k.key, 0))
        from unnest(${arrayLiteral(keys)}::text[]) with ordinality as k(key, n)
        order by k.n`);
    },

    async cardsAttemptsSince(paymentMethodIds, since) {
      const byCard = new Map<string, Date[]>();
      const cards = [...new Set(paymentMethodIds)];
      if (cards.length === 0) return byCard;
      const rows = await executor
        .select({ paymentMethodId: chargeAttempts.paymentMethodId, requestedAt: chargeAttempts.requestedAt })
        .from(chargeAttempts)
        .where(
          and(
            sql`${chargeAttempts.paymentMethodId} = any(${arrayLiteral(cards)}::uuid[])`,
            gt(chargeAttempts.requestedAt, since),
          ),
        )
        .orderBy(asc(chargeAttempts.requestedAt));
      for (const row of rows) {
        const times = byCard.get(row.paymentMethodId) ?? [];
        times.push(row.requestedAt);
        byCard.set(row.paymentMethodId, times);
      }
      return byCard;
    },

    async attemptNumbersOf(installmentIds) {
      const byInstallment = new Map<number, Set<number>>();
      if (installmentIds.length === 0) return byInstallment;
      const rows = await executor
        .select({ installmentId: chargeAttempts.installmentId, attempt: chargeAttempts.attempt })
        .from(chargeAttempts)
        .where(
          sql`${chargeAttempts.installmentId} = any(${arrayLiteral([...new Set(installmentIds)])}::int[])`,
        );
      for (const row of rows) {
        const numbers = byInstallment.get(row.installmentId) ?? new Set<number>();
        numbers.add(row.attempt);
        byInstallment.set(row.installmentId, numbers);
      }
      return byInstallment;
    },

    async recordAttempts(attempts) {
      if (attempts.length === 0) return;
      await executePrepared(executor, 'charge_attempts_insert_many', INSERT_ATTEMPTS, [
        JSON.stringify(
          attempts.map((attempt) => ({
            installment_id: attempt.installmentId,
            subscription_id: attempt.subscriptionId,
            merchant_id: attempt.merchantId,
            attempt: attempt.attempt,
            idempotency_key: attempt.idempotencyKey,
            run_id: attempt.runId,
            payment_method_id: attempt.paymentMethodId,
            processor: attempt.processor,
            amount: attempt.amount,
            currency: attempt.currency,
            status: attempt.status,
            requested_at: attempt.requestedAt,
            settled_at: attempt.settledAt,
            charge_id: attempt.chargeId,
            decline_code: attempt.declineCode,
            category: attempt.category,
            next_attempt_on: attempt.nextAttemptOn,
          })),
        ),
      ]);
    },

    async cardAttemptsSince(paymentMethodId, since) {
      const rows = await executor
        .select({ requestedAt: chargeAttempts.requestedAt })
        .from(chargeAttempts)
        .where(
          and(eq(chargeAttempts.paymentMethodId, paymentMethodId), gt(chargeAttempts.requestedAt, since)),
        )
        .orderBy(asc(chargeAttempts.requestedAt));
      return rows.map((row) => row.requestedAt);
    },

    async findAttempt(installmentId, attempt) {
      const [row] = await executor
        .select()
        .from(chargeAttempts)
        .where(and(eq(chargeAttempts.installmentId, installmentId), eq(chargeAttempts.attempt, attempt)));
      return row ? toAttempt(row) : undefined;
    },

    async latestAttemptNumber(installmentId) {
      const [row] = await executor
        .select({ latest: sql<number | null>`max(${chargeAttempts.attempt})` })
        .from(chargeAttempts)
        .where(eq(chargeAttempts.installmentId, installmentId));
      return Number(row?.latest ?? 0);
    },

    async recordAttempt(attempt) {
      await executor.insert(chargeAttempts).values(attempt);
    },

    async attemptStatuses(asked) {
      const statuses = new Map<string, AttemptStatus>();
      if (asked.length === 0) return statuses;
      const installmentIds = arrayLiteral(asked.map((a) => a.installmentId));
      const rows = await executor
        .select({
          installmentId: chargeAttempts.installmentId,
          attempt: chargeAttempts.attempt,
          status: chargeAttempts.status,
        })
        .from(chargeAttempts)
        .where(
          // Also by the installments' ids alone: a lookup on the (installment, attempt) index whatever the
          // statistics (a new database's were taken on an empty table, and the pairs were hashed against it).
          sql`${chargeAttempts.installmentId} = any(${installmentIds}::int[])
            and (${chargeAttempts.installmentId}, ${chargeAttempts.attempt}) in (
            select x.installment_id, x.attempt
            from unnest(${installmentIds}::int[],
                        ${arrayLiteral(asked.map((a) => a.attempt))}::int[]) as x(installment_id, attempt))`,
        );
      for (const row of rows) statuses.set(chargeKey(row.installmentId, row.attempt), row.status);
      return statuses;
    },

    async settleAttempts(settlements) {
      if (settlements.length === 0) return;
      const rows = settlements.map(({ installmentId, attempt, outcome }) => ({
        installment_id: installmentId,
        attempt,
        status: outcome.status,
        charge_id: outcome.chargeId,
        processor: outcome.processor,
        settled_at: outcome.settledAt.toISOString(),
        decline_code: outcome.declineCode,
        category: outcome.category,
      }));
      const settled = rowsOf<{ id: number }>(
        await executor.execute(sql`
          update ${chargeAttempts} as a
          set status = x.status, charge_id = x.charge_id, processor = x.processor, settled_at = x.settled_at,
              decline_code = x.decline_code, category = x.category
          from json_to_recordset(${json(rows)}::json)
            as x(installment_id int, attempt int, status text, charge_id uuid, processor text,
                 settled_at timestamptz, decline_code text, category text)
          where a.installment_id = x.installment_id and a.attempt = x.attempt and a.status = 'requested'
            -- By key as well: the JSON set alone (taken for 100 rows) had the table hashed while small.
            and a.installment_id = any(${arrayLiteral(settlements.map((s) => s.installmentId))}::int[])
          returning a.id`),
      );
      if (settled.length !== settlements.length) {
        // Settled by another writer since it was read: settle nothing (the transaction rolls back).
        throw new ConcurrentModification('A charge attempt changed meanwhile; try again');
      }
    },

    async settleAttempt(installmentId, attempt, outcome) {
      const updated = await executor
        .update(chargeAttempts)
        .set({
          status: outcome.status,
          chargeId: outcome.chargeId,
          processor: outcome.processor,
          settledAt: outcome.settledAt,
          declineCode: outcome.declineCode,
          category: outcome.category,
        })
        .where(
          and(
            eq(chargeAttempts.installmentId, installmentId),
            eq(chargeAttempts.attempt, attempt),
            eq(chargeAttempts.status, 'requested'),
          ),
        )
        .returning({ id: chargeAttempts.id });
      return updated.length > 0;
    },

    async setNextAttempt(installmentId, failedAttempt, nextAttemptOn) {
      await executor.update(installments).set({ nextAttemptOn }).where(eq(installments.id, installmentId));
      if (failedAttempt !== null) {
        await executor
          .update(chargeAttempts)
          .set({ nextAttemptOn })
          .where(
            and(eq(chargeAttempts.installmentId, installmentId), eq(chargeAttempts.attempt, failedAttempt)),
          );
      }
    },

    async attemptsOf(installmentId) {
      const rows = await executor
        .select()
        .from(chargeAttempts)
        .where(eq(chargeAttempts.installmentId, installmentId))
        .orderBy(asc(chargeAttempts.attempt));
      return rows.map(toAttempt);
    },

    async attemptSummaries(installmentIds) {
      const summaries = new Map<
        number,
        { lastAttempt: ChargeAttempt | null; nextAttemptOn: string | null }
      >();
      if (installmentIds.length === 0) return summaries;
      const next = await executor
        .select({ id: installments.id, nextAttemptOn: installments.nextAttemptOn })
        .from(installments)
        .where(inArray(installments.id, installmentIds));
      for (const row of next) summaries.set(row.id, { lastAttempt: null, nextAttemptOn: row.nextAttemptOn });
      const last = await executor
        .selectDistinctOn([chargeAttempts.installmentId])
        .from(chargeAttempts)
        .where(inArray(chargeAttempts.installmentId, installmentIds))
        .orderBy(chargeAttempts.installmentId, sql`${chargeAttempts.attempt} desc`);
      for (const row of last) {
        const summary = summaries.get(row.installmentId);
        if (summary) summary.lastAttempt = toAttempt(row);
      }
      return summaries;
    },

    async subscriptionsWithCard(merchantId, paymentMethodId) {
      const rows = await executor
        .select()
        .from(subscriptions)
        .where(
          and(eq(subscriptions.merchantId, merchantId), eq(subscriptions.paymentMethodId, paymentMethodId)),
        )
        .orderBy(asc(subscriptions.id))
        .for('update');
      return rows.map(toSubscription);
    },

    async cardlessSubscriptionsOfCustomer(merchantId, customerId) {
      const rows = await executor
        .select()
        .from(subscriptions)
        .where(
          and(
            eq(subscriptions.merchantId, merchantId),
            eq(subscriptions.customerId, customerId),
            isNull(subscriptions.paymentMethodId),
            inArray(subscriptions.status, ['active', 'past_due']),
          ),
        )
        .orderBy(asc(subscriptions.id))
        .for('update');
      return rows.map(toSubscription);
    },

    async publish(events: EventEnvelope[]) {
      // Every event in the active context.
      await store.publishEach(events.map((event) => ({ event, within: (work) => work() })));
    },

    async publishEach(events) {
      // The outbox rows of a whole operation in one statement, however many subscriptions it touched, each
      // with its own message's trace, and the NOTIFY that wakes the relay (delivered on commit).
      await enqueueEvents(
        executor,
        outbox,
        events.map(({ event, within }) => ({ event, headers: within(outboxTraceHeaders) })),
      );
    },
  };
  return store;
}
