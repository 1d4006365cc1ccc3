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
