import { JsonDecimal } from '@payrail/contracts';
import type { BulkResult, BulkUpdateResult } from '../../domain/bulk';
import { BULK_ERROR_MESSAGES } from '../../domain/bulk';
import { localDateTimeWithOffset } from '@payrail/time';
import type { ChargeAttempt } from '../../domain/debit';
import type { Installment } from '../../domain/installment';

/** v1: camelCase, amount as a two-decimal string. */
export function installmentV1(installment: Installment) {
  return {
    installmentId: installment.id,
    paymentDate: installment.paymentDate,
    amount: installment.amount,
    status: installment.status,
  };
}

/** v2: snake_case, amount as a JSON number with two decimals (spec 2.4). */
export function installmentV2(installment: Installment) {
  return {
    installment_id: installment.id,
    payment_date: installment.paymentDate,
    amount: new JsonDecimal(installment.amount),
    status: installment.status,
    number: installment.number,
    ...(installment.invoiceNumber === null ? {} : { invoice_number: installment.invoiceNumber }),
  };
}

/** v2: one charge attempt, times with the merchant's offset. */
export function chargeAttemptV2(attempt: ChargeAttempt, timezone: string) {
  return {
    attempt: attempt.attempt,
    requested_at: localDateTimeWithOffset(attempt.requestedAt, timezone),
    amount: new JsonDecimal(attempt.amount),
    currency: attempt.currency,
    processor: attempt.processor,
    status: attempt.status,
    settled_at: attempt.settledAt ? localDateTimeWithOffset(attempt.settledAt, timezone) : null,
    decline_code: attempt.declineCode,
    category: attempt.category,
    next_attempt_on: attempt.nextAttemptOn,
  };
}

function bulkUpdate(update: BulkUpdateResult) {
  const { outcome } = update;
  if (outcome.kind === 'updated') {
    return {
      payment_date: update.paymentDate,
      status: 'updated' as const,
      installment_id: outcome.installment.id,
      updated_fields: { amount: new JsonDecimal(outcome.installment.amount) },
    };
  }
  if (outcome.kind === 'skipped') return { payment_date: update.paymentDate, status: 'failed' as const };
  return {
    payment_date: update.paymentDate,
    status: 'failed' as const,
    error: { code: outcome.code, message: BULK_ERROR_MESSAGES[outcome.code] },
  };
}

/** Spec 4.3's response table, field by field. */
export function bulkResponse(result: BulkResult) {
  return {
    summary: {
      subscriptions_received: result.summary.subscriptionsReceived,
      subscriptions_processed: result.summary.subscriptionsProcessed,
      updates_applied: result.summary.updatesApplied,
      updates_failed: result.summary.updatesFailed,
    },
    results: result.results.map((entry) => ({
      custom_identifier: entry.customIdentifier,
      custom_identifier2: entry.customIdentifier2,
      ...(entry.linkId === null ? {} : { pay_request_id: entry.linkId }),
      status: entry.status,
      updates: entry.updates.map(bulkUpdate),
      ...(entry.error ? { error: entry.error } : {}),
    })),
  };
}
