import type { EventEnvelope } from '@payrail/contracts';
import type { Database, Executor } from '@payrail/db';
import { outboxChannel } from '@payrail/messaging';
import { context, currentTraceHeaders, SpanKind, trace, tracer } from '@payrail/observability';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { BillingRun, RunItemOutcome } from '../../domain/billing-run';
import { DEFAULT_DUNNING_POLICY } from '../../domain/dunning-policy';
import { CHARGEABLE_SUBSCRIPTION_STATUSES } from '../../domain/subscription-status';
import type {
  ClaimedInstallment,
  ClaimRequest,
  ProjectedInstallment,
  ProjectionStore,
  RunStore,
  StoredDunningPolicy,
} from '../../ports/billing-store';
import { dunningPolicies, installments, outbox, runItems, runs, subscriptions } from './schema';

const SCHEMA = 'billing_scheduler';

function toInstallment(row: typeof installments.$inferSelect): ProjectedInstallment {
  return {
    installmentId: row.installmentId,
    subscriptionId: row.subscriptionId,
    merchantId: row.merchantId,
    number: row.number,
    paymentDate: row.paymentDate,
    dueOn: row.dueOn,
    attempt: row.attempt,
    state: row.state,
    firstAttemptOn: row.firstAttemptOn,
    lastRunId: row.lastRunId,
    lastAttemptOn: row.lastAttemptOn,
  };
}

/** Outbox rows for events, written in the caller's transaction; one NOTIFY wakes the relay at commit. */
async function writeOutbox(
  tx: Executor,
  events: EventEnvelope[],
  headersOf: (event: EventEnvelope) => Record<string, string> = () => currentTraceHeaders(),
): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(outbox).values(
    events.map((event) => ({
      id: event.id,
      type: event.type,
      body: JSON.stringify(event),
      headers: headersOf(event),
    })),
  );
  await tx.execute(sql`select pg_notify(${outboxChannel(SCHEMA)}, '')`);
}

/**
 * Each installment charge is a trace of its own (billing-scheduler → subscriptions → processor-gateway →
 * processor → back), not a child of the run that claimed it among thousands.
 */
function ownTraceHeaders(event: EventEnvelope): Record<string, string> {
  const span = tracer('billing-scheduler').startSpan(
    `${event.type} claim`,
    {
      root: true,
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.message.id': event.id,
        'payrail.installment.id': (event.data as { installmentId: number }).installmentId,
        'payrail.charge.attempt': (event.data as { attempt: number }).attempt,
      },
    },
    context.active(),
  );
  const headers = currentTraceHeaders(trace.setSpan(context.active(), span));
  span.end();
  return headers;
}

export function postgresProjectionStore(tx: Executor): ProjectionStore {
  return {
    async subscription(subscriptionId) {
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.subscriptionId, subscriptionId));
      return (
        row && {
          subscriptionId: row.subscriptionId,
          merchantId: row.merchantId,
          status: row.status,
          timezone: row.timezone,
        }
      );
    },
    async saveSubscription(subscription) {
      await tx
        .insert(subscriptions)
        .values({ ...subscription, updatedAt: sql`now()` })
        .onConflictDoUpdate({
          target: subscriptions.subscriptionId,
          set: { status: subscription.status, timezone: subscription.timezone, updatedAt: sql`now()` },
        });
    },
    async installmentForUpdate(installmentId) {
      const [row] = await tx
        .select()
        .from(installments)
        .where(eq(installments.installmentId, installmentId))
        .for('update');
      return row && toInstallment(row);
    },
    async installmentsForUpdate(installmentIds) {
      if (installmentIds.length === 0) return [];
      const rows = await tx
        .select()
        .from(installments)
        .where(inArray(installments.installmentId, installmentIds))
        .orderBy(installments.installmentId)
        .for('update');
      return rows.map(toInstallment);
    },
    async saveInstallment(installment) {
      const { installmentId: _key, ...rest } = installment;
      await tx
        .insert(installments)
        .values({ ...installment, updatedAt: sql`now()` })
        .onConflictDoUpdate({ target: installments.installmentId, set: { ...rest, updatedAt: sql`now()` } });
    },
    async markRequested(installmentId, attempt) {
      await tx.execute(sql`
        update ${runItems} set requested_at = coalesce(requested_at, now())
        where id = (select id from ${runItems}
                    where installment_id = ${installmentId} and attempt = ${attempt}
                    order by id desc limit 1)`);
    },
    async markOutcome(installmentId, attempt, outcome: RunItemOutcome, runId) {
      // Without a run (a payment's outcome), every run still waiting for the attempt counts it: a reclaimed
      // attempt belongs to the run that first claimed it and to the one that claimed it again.
      const which = runId ? sql`and run_id = ${runId}` : sql``;
      await tx.execute(sql`
        update ${runItems} set outcome = ${outcome}, settled_at = now()
        where installment_id = ${installmentId} and attempt = ${attempt} ${which} and outcome is null`);
    },
    async policyOf(merchantId) {
      const [row] = await tx.select().from(dunningPolicies).where(eq(dunningPolicies.merchantId, merchantId));
      return row
        ? {
            retryOffsetDays: row.retryOffsetDays,
            cancelAfterFailedInstallments: row.cancelAfterFailedInstallments,
          }
        : DEFAULT_DUNNING_POLICY;
    },
    enqueue: (events) => writeOutbox(tx, events),
  };
}

interface RunRow {
  id: string;
  trigger: BillingRun['trigger'];
  as_of: string | null;
  merchant_id: string | null;
  started_at: Date | string;
  claimed_at: Date | string | null;
  due: number | string;
  requested: number | string;
  succeeded: number | string;
  failed: number | string;
  skipped: number | string;
}

function toRun(row: RunRow): BillingRun {
  return {
    id: row.id,
    trigger: row.trigger,
    asOf: row.as_of,
    merchantId: row.merchant_id,
    startedAt: new Date(row.started_at),
    claimedAt: row.claimed_at === null ? null : new Date(row.claimed_at),
    due: Number(row.due),
    requested: Number(row.requested),
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    skipped: Number(row.skipped),
  };
}

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const RUN_WITH_COUNTS = sql`
  select r.id, r.trigger, r.as_of::text as as_of, r.merchant_id, r.started_at, r.claimed_at,
         count(i.id) as due,
         count(i.requested_at) as requested,
         count(*) filter (where i.outcome = 'succeeded') as succeeded,
         count(*) filter (where i.outcome = 'failed') as failed,
         count(*) filter (where i.outcome = 'skipped') as skipped
  from ${runs} r left join ${runItems} i on i.run_id = r.id`;

/**
 * What a run claims: scheduled installments from the 2nd on, of a collected subscription, due by then in its
 * zone; and, for the same attempt, those another run claimed before `reclaimClaimedBefore` whose outcome
 * never came back.
 */
function claimFilter(request: ClaimRequest) {
  const zones = Object.entries(request.upTo);
  const upTo = sql.join(
    [sql`case s.timezone`, ...zones.map(([zone, day]) => sql`when ${zone} then ${day}::date`), sql`end`],
    sql` `,
  );
  const merchantFilter = request.merchantId ? sql`and i.merchant_id = ${request.merchantId}` : sql``;
  const dueRows = sql`
    from ${installments} i
    join ${subscriptions} s on s.subscription_id = i.subscription_id
    where (i.state = 'scheduled'
           or (i.state = 'claimed' and i.claimed_at <= ${request.reclaimClaimedBefore.toISOString()}::timestamptz
               and i.last_run_id is distinct from ${request.runId}))
      and s.status in ('active', 'past_due') and i.number > 1
      and i.due_on <= ${upTo} ${merchantFilter}`;
  return { upTo, dueRows };
}

export function postgresRunStore(db: Database): RunStore {
  return {
    async timezones(merchantId) {
      const rows = await db
        .selectDistinct({ timezone: subscriptions.timezone })
        .from(subscriptions)
        .where(
          and(
            inArray(subscriptions.status, CHARGEABLE_SUBSCRIPTION_STATUSES),
            merchantId ? eq(subscriptions.merchantId, merchantId) : undefined,
          ),
        );
      return rows.map((row) => row.timezone);
    },
    async createRun(run) {
      await db.insert(runs).values(run);
    },
    async hasUnclaimed(request) {
      const { dueRows } = claimFilter(request);
      const result = await db.execute(sql`select 1 as found ${dueRows} limit 1`);
      return rowsOf(result).length > 0;
    },
    async claimBatch(request, at, toEvents) {
      const { upTo, dueRows } = claimFilter(request);
      return db.transaction(async (tx) => {
        // A reclaimed attempt keeps its as-of day: it is the same attempt, asked for again.
        const result = await tx.execute(sql`
          with due as (
            select i.installment_id,
                   case when i.state = 'claimed' then coalesce(i.last_attempt_on, ${upTo}) else ${upTo} end
                     as attempt_on,
                   case when i.state = 'claimed' then i.last_run_id end as reclaimed_from,
                   case when i.state = 'claimed' then i.claimed_at end as previously_claimed_at
            ${dueRows}
            order by i.due_on, i.installment_id
            limit ${request.limit}
            for update of i skip locked
          )
          update ${installments} i
          set state = 'claimed', last_run_id = ${request.runId}, last_attempt_on = due.attempt_on,
              first_attempt_on = coalesce(i.first_attempt_on, due.attempt_on),
              claimed_at = ${at.toISOString()}::timestamptz, updated_at = now()
          from due where i.installment_id = due.installment_id
          returning i.installment_id, i.subscription_id, i.merchant_id, i.attempt, i.due_on::text as due_on,
                    due.attempt_on::text as attempt_on, due.reclaimed_from, due.previously_claimed_at`);
        const claimed = rowsOf<{
          installment_id: number | string;
          subscription_id: number | string;
          merchant_id: string;
          attempt: number;
          due_on: string;
          attempt_on: string;
          reclaimed_from: string | null;
          previously_claimed_at: Date | string | null;
        }>(result).map(
          (row): ClaimedInstallment => ({
            installmentId: Number(row.installment_id),
            subscriptionId: Number(row.subscription_id),
            merchantId: row.merchant_id,
            attempt: Number(row.attempt),
            dueOn: row.due_on,
            attemptOn: row.attempt_on,
            reclaimedFrom: row.reclaimed_from,
            previouslyClaimedAt:
              row.previously_claimed_at === null ? null : new Date(row.previously_claimed_at),
          }),
        );
        if (claimed.length === 0) return claimed;
        if (request.trigger === 'schedule') {
          await tx
            .insert(runs)
            .values({
              id: request.runId,
              trigger: request.trigger,
              asOf: request.asOf,
              merchantId: request.merchantId,
              startedAt: request.startedAt,
            })
            .onConflictDoNothing();
        }
        await tx.insert(runItems).values(
          claimed.map((row) => ({
            runId: request.runId,
            installmentId: row.installmentId,
            attempt: row.attempt,
          })),
        );
        await writeOutbox(tx, toEvents(claimed), ownTraceHeaders);
        return claimed;
      });
    },
    async finishClaim(runId, at) {
      await db
        .update(runs)
        .set({ claimedAt: at })
        .where(and(eq(runs.id, runId), isNull(runs.claimedAt)));
    },
    async run(runId) {
      const result = await db.execute(sql`${RUN_WITH_COUNTS} where r.id = ${runId} group by r.id`);
      const [row] = rowsOf<RunRow>(result);
      return row && toRun(row);
    },
    async runs({ merchantId, limit }) {
      const filter = merchantId ? sql`where r.merchant_id = ${merchantId}` : sql``;
      const result = await db.execute(
        sql`${RUN_WITH_COUNTS} ${filter} group by r.id order by r.started_at desc, r.id limit ${limit}`,
      );
      return rowsOf<RunRow>(result).map(toRun);
    },
    async unfinishedRuns(before) {
      const rows = await db
        .select()
        .from(runs)
        .where(and(isNull(runs.claimedAt), eq(runs.trigger, 'operator'), lt(runs.startedAt, before)))
        .orderBy(runs.startedAt);
      return rows.map((row) => ({ ...row, due: 0, requested: 0, succeeded: 0, failed: 0, skipped: 0 }));
    },
    async policy(merchantId) {
      const [row] = await db.select().from(dunningPolicies).where(eq(dunningPolicies.merchantId, merchantId));
      return row && storedPolicy(row);
    },
    async savePolicy(merchantId, policy, at) {
      const [row] = await db
        .insert(dunningPolicies)
        .values({ merchantId, ...policy, updatedAt: at })
        .onConflictDoUpdate({ target: dunningPolicies.merchantId, set: { ...policy, updatedAt: at } })
        .returning();
      return storedPolicy(row as typeof dunningPolicies.$inferSelect);
    },
  };
}

function storedPolicy(row: typeof dunningPolicies.$inferSelect): StoredDunningPolicy {
  return {
    retryOffsetDays: row.retryOffsetDays,
    cancelAfterFailedInstallments: row.cancelAfterFailedInstallments,
    updatedAt: row.updatedAt,
  };
}
