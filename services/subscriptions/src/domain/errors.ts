import type { SubscriptionErrorCode } from '@payrail/contracts';

/**
 * Domain errors carry a stable string code; the HTTP adapter maps codes to statuses through the
 * service's table in `@payrail/contracts`.
 * `path` names the offending input field in the domain's own (camelCase) terms, when there is one.
 */
export type { SubscriptionErrorCode } from '@payrail/contracts';

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

/**
 * Amounts with decimals the subscription's currency does not have (a fraction of a guaraní): request
 * fields in the wrong format for that currency, answered like any other (HTTP 400, each field named).
 */
export class AmountNotInCurrency extends Error {
  constructor(readonly fields: Array<{ path: FieldPath; message: string }>) {
    super(fields.map(({ path, message }) => `${path.join('.')} ${message}`).join('; '));
    this.name = 'AmountNotInCurrency';
  }
}
