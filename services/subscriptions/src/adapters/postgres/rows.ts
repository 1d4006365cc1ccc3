/** What the stores share: their rows as the domain's objects, and the parameters set-based statements read. */
import type { ChargeAttempt } from '../../domain/debit';
import type { Installment } from '../../domain/installment';
import type { Subscription } from '../../domain/subscription';
import type { chargeAttempts, installments, subscriptions } from './schema';

type SubscriptionRow = typeof subscriptions.$inferSelect;
type InstallmentRow = typeof installments.$inferSelect;
type AttemptRow = typeof chargeAttempts.$inferSelect;

export function toAttempt(row: AttemptRow): ChargeAttempt {
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
    declinedTo: row.declinedTo ?? null,
  };
}

export function toSubscription(row: SubscriptionRow): Subscription {
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

export function toInstallment(row: InstallmentRow): Installment {
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

/** JSON as one query parameter: set-based statements read it with `json_to_recordset`, whatever the row count. */
export function json(rows: unknown[]): string {
  return JSON.stringify(rows);
}

export function arrayLiteral(values: Array<number | string>): string {
  return `{${values.join(',')}}`;
}

/** Whether `error` (or one of its causes) is a unique violation of `constraint`, whatever the driver. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
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
