/**
 * The one error model of the services' domains (issue 26). A domain error has a stable `code` from its
 * service's error table (`api/errors.ts`: `BILLING_ERRORS` for billing-scheduler, ...), a message a merchant
 * or operator can act on (the problem document's `detail`), and, when the error is about input fields, each
 * field in the domain's own terms (`paymentDate`, `operations.3.amount`). It knows nothing of HTTP: the
 * service's app (`createApp({ errors })` of `@payrail/http`) turns it into a problem document through the
 * table, which gives the status; the operation it came from decides how field paths are spelt.
 *
 * A service declares one base for its errors, typed by its table, so that a code missing from the table
 * does not compile:
 *
 * ```ts
 * export abstract class BillingError extends DomainError<BillingErrorCode> {}
 * export class BillingRunNotFound extends BillingError {
 *   constructor(readonly runId: string) { super('BILLING_RUN_NOT_FOUND', 'Billing run not found'); }
 * }
 * ```
 */
export interface DomainFieldError {
  /** The field, dotted, in the domain's terms: `paymentDate`, `operations.3.amount`. */
  path: string;
  message: string;
}

export abstract class DomainError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly fieldErrors: readonly DomainFieldError[] = [],
  ) {
    super(message);
    // The subclass's own name in logs (`BillingRunNotFound`), without each class setting it.
    this.name = new.target.name;
  }
}
