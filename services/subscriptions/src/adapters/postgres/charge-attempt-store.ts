import { type Executor, executePrepared, rowsOf } from '@payrail/db';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { installmentChargeKey } from '@payrail/contracts';
import type { AttemptStatus, ChargeAttempt } from '../../domain/debit';
import { ConcurrentModification } from '../../domain/errors';
import type { ChargeAttemptStore } from '../../ports/charge-attempt-store';
import { arrayLiteral, json, toAttempt } from './rows';
import { chargeAttempts, installments } from './schema';

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

/** The installments' charge attempts and next attempt days, on the executor given. */
export function postgresChargeAttemptStore(executor: Executor): ChargeAttemptStore {
  return {
    async recordAttempt(attempt) {
      await executor.insert(chargeAttempts).values(attempt);
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
      for (const row of rows) statuses.set(installmentChargeKey(row.installmentId, row.attempt), row.status);
      return statuses;
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
  };
}
