/**
 * Domain errors carry a stable string code; the HTTP adapter maps codes to statuses in one place.
 * `path` names the offending input field in the domain's own (camelCase) terms, when there is one.
 */
export type SubscriptionErrorCode =
  | 'SUBSCRIPTION_NOT_FOUND'
  | 'MULTIPLE_SUBSCRIPTIONS_MATCH'
  | 'SUBSCRIPTION_NOT_ACTIVE'
  | 'SUBSCRIPTION_NOT_DYNAMIC'
  | 'INSTALLMENT_NOT_FOUND'
  | 'INSTALLMENT_NOT_PENDING'
  | 'FIRST_INSTALLMENT_SETTLED_BY_LINK'
  | 'NO_MATCHING_PENDING_INSTALLMENTS'
  | 'NOT_ENOUGH_PENDING_INSTALLMENTS'
  | 'INVOICE_NUMBER_REQUIRED'
  | 'INVOICE_NUMBER_TAKEN'
  | 'PAYMENT_DATE_IN_PAST'
  | 'INVALID_STATE_TRANSITION'
  | 'CONCURRENT_MODIFICATION';

export type FieldPath = ReadonlyArray<string | number>;

export class SubscriptionError extends Error {
  constructor(
    readonly code: SubscriptionErrorCode,
    message: string,
    readonly path: FieldPath = [],
  ) {
    super(message);
    this.name = 'SubscriptionError';
  }
}
