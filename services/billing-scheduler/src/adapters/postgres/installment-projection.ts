import { type Executor, executePrepared } from '@payrail/db';
import type { InstallmentProjection, ProjectedInstallment } from '../../ports/installment-projection';

/**
 * The projection's busiest statements, written by hand: their text is the same whatever the number of rows
 * (one parameter: an array or a JSON document), so each is prepared once per connection and no query is
 * built per call. The single-row methods of the store run them with one row.
 */

/** Installments locked in the order their ids are given (a duplicate id is asked once). */
const INSTALLMENTS_FOR_UPDATE = `
  select i.installment_id, i.subscription_id, i.merchant_id, i.number, i.payment_date::text as payment_date,
         i.due_on::text as due_on, i.attempt, i.state, i.first_attempt_on::text as first_attempt_on,
         i.last_run_id, i.last_attempt_on::text as last_attempt_on
  from unnest($1::bigint[]) with ordinality as wanted(installment_id, n)
  join billing_scheduler.installments i on i.installment_id = wanted.installment_id
  order by wanted.n
  for update of i`;

interface InstallmentRow {
  installment_id: number | string;
  subscription_id: number | string;
  merchant_id: string;
  number: number;
  payment_date: string;
  due_on: string;
  attempt: number;
  state: ProjectedInstallment['state'];
  first_attempt_on: string | null;
  last_run_id: string | null;
  last_attempt_on: string | null;
}

function fromInstallmentRow(row: InstallmentRow): ProjectedInstallment {
  return {
    installmentId: Number(row.installment_id),
    subscriptionId: Number(row.subscription_id),
    merchantId: row.merchant_id,
    number: Number(row.number),
    paymentDate: row.payment_date,
    dueOn: row.due_on,
    attempt: Number(row.attempt),
    state: row.state,
    firstAttemptOn: row.first_attempt_on,
    lastRunId: row.last_run_id,
    lastAttemptOn: row.last_attempt_on,
  };
}

/** Each installment as given, inserted or replaced whole (its claim time kept): at most one row per id. */
const SAVE_INSTALLMENTS = `
  insert into billing_scheduler.installments (installment_id, subscription_id, merchant_id, number,
    payment_date, due_on, attempt, state, first_attempt_on, last_run_id, last_attempt_on, updated_at)
  select r.installment_id, r.subscription_id, r.merchant_id, r.number, r.payment_date, r.due_on, r.attempt,
    r.state, r.first_attempt_on, r.last_run_id, r.last_attempt_on, now()
  from json_to_recordset($1::json) as r(installment_id bigint, subscription_id bigint, merchant_id uuid,
    number integer, payment_date date, due_on date, attempt integer, state text, first_attempt_on date,
    last_run_id uuid, last_attempt_on date)
  on conflict (installment_id) do update set
    subscription_id = excluded.subscription_id, merchant_id = excluded.merchant_id, number = excluded.number,
    payment_date = excluded.payment_date, due_on = excluded.due_on, attempt = excluded.attempt,
    state = excluded.state, first_attempt_on = excluded.first_attempt_on, last_run_id = excluded.last_run_id,
    last_attempt_on = excluded.last_attempt_on, updated_at = now()`;

function installmentRecord(installment: ProjectedInstallment) {
  return {
    installment_id: installment.installmentId,
    subscription_id: installment.subscriptionId,
    merchant_id: installment.merchantId,
    number: installment.number,
    payment_date: installment.paymentDate,
    due_on: installment.dueOn,
    attempt: installment.attempt,
    state: installment.state,
    first_attempt_on: installment.firstAttemptOn,
    last_run_id: installment.lastRunId,
    last_attempt_on: installment.lastAttemptOn,
  };
}

function idArray(ids: readonly number[]): string {
  return `{${ids.join(',')}}`;
}

export function postgresInstallmentProjection(tx: Executor): InstallmentProjection {
  const store: InstallmentProjection = {
    async installmentForUpdate(installmentId) {
      const [row] = await store.installmentsForUpdate([installmentId]);
      return row;
    },
    async installmentsForUpdate(installmentIds) {
      if (installmentIds.length === 0) return [];
      const rows = await executePrepared<InstallmentRow>(
        tx,
        'billing_installments_for_update',
        INSTALLMENTS_FOR_UPDATE,
        [idArray([...new Set(installmentIds)])],
      );
      return rows.map(fromInstallmentRow);
    },
    saveInstallment: (installment) => store.saveInstallments([installment]),
    async saveInstallments(rows) {
      if (rows.length === 0) return;
      // One row per id (an upsert may not touch a row twice): the last one given.
      const last = new Map<number, ProjectedInstallment>();
      for (const row of rows) last.set(row.installmentId, row);
      await executePrepared(tx, 'billing_save_installments', SAVE_INSTALLMENTS, [
        JSON.stringify([...last.values()].map(installmentRecord)),
      ]);
    },
  };
  return store;
}
