import type { EventEnvelope } from '@payrail/contracts';
import { type Executor, executePrepared } from '@payrail/db';
import { context, currentTraceHeaders, SpanKind, trace, tracer } from '@payrail/observability';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { BillingRun, RunItemOutcome } from '../../domain/billing-run';
import { CHARGEABLE_SUBSCRIPTION_STATUSES } from '../../domain/subscription-status';
import type { ClaimedInstallment, ClaimRequest, RunStore } from '../../ports/run-store';
import { writeOutbox } from './event-outbox';
import { installments, runItems, runs, subscriptions } from './schema';

/**
 * Each installment charge is a trace of its own (billing-scheduler → subscriptions → processor-gateway →
 * processor → back), not a child of the run that claimed it among thousands.
 */
function ownTraceHeaders(event: EventEnvelope): string {
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
  return JSON.stringify(headers);
}

/**
 * The marks of `markRunItems`, in the order given. A request counts for the attempt's latest claim; an
 * outcome for the given run's claim of the attempt, else for every claim of it still waiting, and the first
 * outcome a run item gets stays. The run items are locked in (installment, id) order.
 *
 * Every read of `run_items` is also narrowed by key (`= any(array(...))`), not left to a join with the marks:
 * the planner takes a JSON set for 100 rows, and while the table was small or its statistics old (a new
 * database, a run that just claimed thousands) it hashed the whole table for each batch of marks.
 */
export const MARK_RUN_ITEMS = `
  with mark as (
    select (e ->> 'installmentId')::bigint as installment_id, (e ->> 'attempt')::integer as attempt,
           coalesce((e ->> 'requested')::boolean, false) as requested, e ->> 'outcome' as outcome,
           (e ->> 'runId')::uuid as run_id, n
    from json_array_elements($1::json) with ordinality as m(e, n)
  ), latest as (
    select (select r.id from billing_scheduler.run_items r
            where r.installment_id = m.installment_id and r.attempt = m.attempt
            order by r.id desc limit 1) as id
    from mark m where m.requested
  ), settle as (
    select distinct on (r.id) r.id, m.outcome
    from mark m
    join billing_scheduler.run_items r on r.installment_id = m.installment_id and r.attempt = m.attempt
      and (m.run_id is null or r.run_id = m.run_id)
    where m.outcome is not null and r.outcome is null
      and r.installment_id = any(array(select installment_id from mark where outcome is not null))
    order by r.id, m.n
  ), target as (
    select r.id, exists (select 1 from latest l where l.id = r.id) as requested, s.outcome
    from billing_scheduler.run_items r
    left join settle s on s.id = r.id
    where r.id = any(array(select id from latest union select id from settle))
    order by r.installment_id, r.id
    for update of r
  )
  update billing_scheduler.run_items r set
    requested_at = case when t.requested then coalesce(r.requested_at, now()) else r.requested_at end,
    outcome = coalesce(r.outcome, t.outcome),
    settled_at = case when r.outcome is null and t.outcome is not null then now() else r.settled_at end
  from target t where r.id = t.id and r.id = any(array(select id from target))`;

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
 * What a run claims (`claimBatch`, `hasUnclaimed`; the due rows' FROM and WHERE, and each zone's last day):
 * scheduled installments from the 2nd on, of a collected subscription, due by then in its zone; and, for the
 * same attempt, those another run claimed before `reclaimClaimedBefore` whose outcome never came back.
 */
export function claimFilter(request: ClaimRequest) {
  const zones = Object.entries(request.upTo);
  if (zones.length === 0) throw new Error('a claim needs the day of at least one time zone');
  const upTo = sql.join(
    [sql`case s.timezone`, ...zones.map(([zone, day]) => sql`when ${zone} then ${day}::date`), sql`end`],
    sql` `,
  );
  const merchantFilter = request.merchantId ? sql`and i.merchant_id = ${request.merchantId}` : sql``;
  // The latest of the zones' days: implied by the per-zone bound, but one the planner can use. Without it the
  // day depends on the joined subscription, so every batch (and every `hasUnclaimed`) read the whole table
  // (220,000 rows at the bench's size: a quarter to half a second each) instead of the scheduled rows' index.
  const latest = zones.map(([, day]) => day).sort()[zones.length - 1] as string;
  const from = sql`from ${installments} i join ${subscriptions} s on s.subscription_id = i.subscription_id`;
  const collected = sql`s.status in ('active', 'past_due') and i.number > 1
      and i.due_on <= ${latest}::date
      and i.due_on <= ${upTo} ${merchantFilter}`;
  const stale = sql`i.claimed_at <= ${request.reclaimClaimedBefore.toISOString()}::timestamptz
      and i.last_run_id is distinct from ${request.runId}`;
  const dueRows = sql`
    ${from}
    where (i.state = 'scheduled' or (i.state = 'claimed' and ${stale}))
      and ${collected}`;
  // The same rows apart: scheduled ones in the order of their index (due day, id), so that a batch reads the
  // rows it claims and stops; stale claims by their own index.
  const scheduledRows = sql`${from} where i.state = 'scheduled' and ${collected}`;
  const staleRows = sql`${from} where i.state = 'claimed' and ${stale} and ${collected}`;
  return { upTo, dueRows, scheduledRows, staleRows };
}

/** Runs and their items; a claim batch is a transaction of its own (a savepoint inside a caller's one). */
export function postgresRunStore(db: Executor): RunStore {
  const store: RunStore = {
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
    async createRun(run, events = []) {
      if (events.length === 0) {
        await db.insert(runs).values(run);
        return;
      }
      await db.transaction(async (tx) => {
        await tx.insert(runs).values(run);
        await writeOutbox(tx, events);
      });
    },
    async hasUnclaimed(request) {
      const { dueRows } = claimFilter(request);
      const result = await db.execute(sql`select 1 as found ${dueRows} limit 1`);
      return rowsOf(result).length > 0;
    },
    async claimBatch(request, at, toEvents) {
      const { upTo, scheduledRows, staleRows } = claimFilter(request);
      return db.transaction(async (tx) => {
        // A reclaimed attempt keeps its as-of day: it is the same attempt, asked for again. Scheduled rows and
        // stale claims are read apart (one condition of both would have every batch read and sort every due
        // row: 10,000 for a batch of 500 at the bench's size); the batch is the first of both in (due day,
        // id) order. A row locked here but left out by the last limit is claimed by a next batch.
        const result = await tx.execute(sql`
          with scheduled as (
            select i.installment_id, i.due_on, ${upTo} as attempt_on,
                   null::uuid as reclaimed_from, null::timestamptz as previously_claimed_at
            ${scheduledRows}
            order by i.due_on, i.installment_id
            limit ${request.limit}
            for update of i skip locked
          ), stale as (
            select i.installment_id, i.due_on, coalesce(i.last_attempt_on, ${upTo}) as attempt_on,
                   i.last_run_id as reclaimed_from, i.claimed_at as previously_claimed_at
            ${staleRows}
            order by i.due_on, i.installment_id
            limit ${request.limit}
            for update of i skip locked
          ), due as (
            select installment_id, attempt_on, reclaimed_from, previously_claimed_at
            from (select * from stale union all select * from scheduled) d
            order by due_on, installment_id
            limit ${request.limit}
          ), claimed as (
          update ${installments} i
          set state = 'claimed', last_run_id = ${request.runId}, last_attempt_on = due.attempt_on,
              first_attempt_on = coalesce(i.first_attempt_on, due.attempt_on),
              claimed_at = ${at.toISOString()}::timestamptz, updated_at = now()
          from due where i.installment_id = due.installment_id
          returning i.installment_id, i.subscription_id, i.merchant_id, i.attempt, i.due_on::text as due_on,
                    due.attempt_on::text as attempt_on, due.reclaimed_from, due.previously_claimed_at
          ), items as (
            -- The run's items, in the same statement: no multi-row insert built per claimed row.
            insert into ${runItems} (run_id, installment_id, attempt)
            select ${request.runId}::uuid, installment_id, attempt from claimed
          )
          select * from claimed`);
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
    markRequested: (installmentId, attempt) =>
      store.markRunItems([{ installmentId, attempt, requested: true }]),
    markOutcome: (installmentId, attempt, outcome: RunItemOutcome, runId) =>
      store.markRunItems([{ installmentId, attempt, outcome, runId }]),
    async markRunItems(marks) {
      if (marks.length === 0) return;
      await executePrepared(db, 'billing_mark_run_items', MARK_RUN_ITEMS, [JSON.stringify(marks)]);
    },
  };
  return store;
}
