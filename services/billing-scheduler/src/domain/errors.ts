import type { IsoDate } from '@payrail/time';

/** A run as of a day after today, without simulated time. */
export class AsOfInFuture extends Error {
  constructor(
    readonly asOf: IsoDate,
    readonly today: IsoDate,
  ) {
    super(`asOf ${asOf} is after today (${today}); future runs need SIMULATED_TIME=true`);
    this.name = 'AsOfInFuture';
  }
}

export class BillingRunNotFound extends Error {
  constructor(readonly runId: string) {
    super(`Billing run ${runId} not found`);
    this.name = 'BillingRunNotFound';
  }
}
