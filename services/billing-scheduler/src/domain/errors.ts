import { type BillingErrorCode, DomainError } from '@payrail/contracts';
import type { IsoDate } from '@payrail/time';

/**
 * billing-scheduler's domain errors: each code is one of `BILLING_ERRORS` (`libs/contracts`), the table
 * `service.ts` gives the app, which answers each error with its status.
 */
export abstract class BillingError extends DomainError<BillingErrorCode> {}

/** A run as of a day after today, without simulated time. */
export class AsOfInFuture extends BillingError {
  constructor(
    readonly asOf: IsoDate,
    readonly today: IsoDate,
  ) {
    super('AS_OF_IN_FUTURE', `asOf ${asOf} is after today (${today}); future runs need SIMULATED_TIME=true`);
  }
}

export class BillingRunNotFound extends BillingError {
  constructor(readonly runId: string) {
    super('BILLING_RUN_NOT_FOUND', 'Billing run not found');
  }
}
