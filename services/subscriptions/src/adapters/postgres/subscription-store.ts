import type { Executor } from '@payrail/db';
import { rowsOf } from '@payrail/db';
import { and, asc, desc, eq, gt, gte, inArray, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { SubscriptionCriteria } from '../../domain/identifiers';
import type { Subscription } from '../../domain/subscription';
import type { SubscriptionStore } from '../../ports/subscription-store';
import { json, toSubscription } from './rows';
import { installments, subscriptions } from './schema';

/** Subscriptions the merchant still manages: past due ones too (their other installments are still collected). */
const OPEN_STATUSES = ['pending', 'active', 'past_due'] as const;

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

/** The subscriptions, on the executor given (the database, or a transaction). */
export function postgresSubscriptionStore(executor: Executor): SubscriptionStore {
  return {
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

    async statesAt(merchantId, at) {
      const instant = at.toISOString();
      const state = sql<string>`case
        when ${subscriptions.endedAt} is not null and ${subscriptions.endedAt} <= ${instant}::timestamptz
          then ${subscriptions.status}
        when ${subscriptions.status} = 'past_due' then 'past_due'
        when ${subscriptions.activatedAt} is not null and ${subscriptions.activatedAt} <= ${instant}::timestamptz
          then 'active'
        else 'pending' end`;
      const counted = await executor
        .select({ state, count: sql<number>`count(*)::int` })
        .from(subscriptions)
        .where(and(eq(subscriptions.merchantId, merchantId), lte(subscriptions.createdAt, at)))
        .groupBy(sql`1`);
      const counts = { pending: 0, active: 0, past_due: 0, completed: 0, cancelled: 0 };
      for (const row of counted) counts[row.state as keyof typeof counts] = Number(row.count);
      return counts;
    },

    async summarize(merchantId, upcoming) {
      const counted = await executor
        .select({ status: subscriptions.status, count: sql<number>`count(*)::int` })
        .from(subscriptions)
        .where(eq(subscriptions.merchantId, merchantId))
        .groupBy(subscriptions.status);
      const due = await executor
        .select({
          currency: subscriptions.currency,
          installments: sql<number>`count(*)::int`,
          amount: sql<string>`sum(${installments.amount})::numeric(20, 2)::text`,
        })
        .from(installments)
        .innerJoin(subscriptions, eq(subscriptions.id, installments.subscriptionId))
        .where(
          and(
            eq(subscriptions.merchantId, merchantId),
            inArray(subscriptions.status, ['active', 'past_due']),
            eq(installments.status, 'pending'),
            gte(installments.paymentDate, upcoming.from),
            lte(installments.paymentDate, upcoming.to),
          ),
        )
        .groupBy(subscriptions.currency)
        .orderBy(asc(subscriptions.currency));
      const counts = { pending: 0, active: 0, past_due: 0, completed: 0, cancelled: 0 };
      for (const row of counted) counts[row.status] = row.count;
      return {
        counts,
        upcoming: {
          installments: due.reduce((sum, row) => sum + row.installments, 0),
          amounts: due.map((row) => ({ currency: row.currency, amount: row.amount })),
        },
      };
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

    async subscriptionsOfCustomer(merchantId, customerId) {
      const rows = await executor
        .select()
        .from(subscriptions)
        .where(
          and(
            eq(subscriptions.merchantId, merchantId),
            eq(subscriptions.customerId, customerId),
            inArray(subscriptions.status, ['active', 'past_due', 'completed', 'cancelled']),
          ),
        )
        .orderBy(desc(subscriptions.id))
        .limit(200);
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
  };
}
