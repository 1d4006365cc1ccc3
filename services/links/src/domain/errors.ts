import { DomainError, type LinkErrorCode } from '@payrail/contracts';

/**
 * links' domain errors: each code is one of `LINK_ERRORS` (`libs/contracts`), the table `service.ts` gives
 * the app, which answers each error with its status, its message as `detail` and its fields as `errors[]`.
 */
export abstract class LinkError extends DomainError<LinkErrorCode> {}

/** The 422 refusals of a link request that the merchant's configuration does not allow (spec 2.1, 5). */
export type MerchantRuleCode =
  | 'NO_LOGIN_NOT_ENABLED'
  | 'SAAS_CONTRACT_REQUIRED'
  | 'CALLBACK_URL_NOT_CONFIGURED'
  | 'REDIRECT_ORIGIN_MISMATCH'
  | 'CURRENCY_NOT_OFFERED';

/** A request that is well-formed but not allowed by the merchant's configuration (HTTP 422). */
export class MerchantRuleViolation extends LinkError {
  declare readonly code: MerchantRuleCode;
  constructor(
    code: MerchantRuleCode,
    message: string,
    /** The request field the rule is about; absent when the whole endpoint is refused. */
    readonly field?: string,
  ) {
    super(code, message, field ? [{ path: field, message }] : []);
  }
}

/** The merchant asked for a link it does not have (another merchant's included): 404. */
export class PaymentLinkNotFound extends LinkError {
  declare readonly code: 'PAYMENT_LINK_NOT_FOUND';
  constructor(readonly linkId: number) {
    super('PAYMENT_LINK_NOT_FOUND', 'Payment link not found');
  }
}

/** A bank transfer names a link the merchant does not have: 404 naming `payRequestId`. */
export class TransferLinkNotFound extends LinkError {
  declare readonly code: 'PAYMENT_LINK_NOT_FOUND';
  constructor(readonly linkId: number) {
    const message = `Payment link ${linkId} not found`;
    super('PAYMENT_LINK_NOT_FOUND', message, [{ path: 'payRequestId', message }]);
  }
}

/** The link is not pending any more: paid, cancelled or expired (HTTP 409). */
export class PaymentLinkNotPayable extends LinkError {
  declare readonly code: 'PAYMENT_LINK_ALREADY_PAID' | 'PAYMENT_LINK_CANCELLED' | 'PAYMENT_LINK_EXPIRED';
  constructor(code: PaymentLinkNotPayable['code'], message: string) {
    super(code, message);
  }
}

/** A transfer that is not what the link is due: another amount or currency (HTTP 422). */
export class TransferMismatch extends LinkError {
  declare readonly code: 'AMOUNT_MISMATCH' | 'CURRENCY_MISMATCH';
  constructor(
    code: TransferMismatch['code'],
    message: string,
    readonly field: 'amount' | 'currency',
  ) {
    super(code, message, [{ path: field, message }]);
  }
}

/**
 * Amounts with decimals their currency does not have (a fraction of a guaraní): a request field in the
 * wrong format for the link's currency, answered like any other (HTTP 400 `VALIDATION_ERROR`, each field
 * named; the detail names the first, as a refused request's does).
 */
export class AmountNotInCurrency extends LinkError {
  declare readonly code: 'VALIDATION_ERROR';
  constructor(readonly fields: Array<{ field: string; message: string }>) {
    super(
      'VALIDATION_ERROR',
      firstProblem(fields),
      fields.map(({ field, message }) => ({ path: field, message })),
    );
  }
}

/** `amount must be a whole number: PYG has no decimals (and 1 more problem)`. */
function firstProblem(fields: Array<{ field: string; message: string }>): string {
  const [first, ...others] = fields;
  if (!first) return 'An amount does not fit its currency';
  const more =
    others.length === 0 ? '' : ` (and ${others.length} more problem${others.length > 1 ? 's' : ''})`;
  return `${first.field} ${first.message}${more}`;
}

/** The merchant asked for a customer it does not have (another merchant's included): 404. */
export class CustomerNotFound extends LinkError {
  declare readonly code: 'CUSTOMER_NOT_FOUND';
  constructor(readonly customerId: number) {
    super('CUSTOMER_NOT_FOUND', 'Customer not found');
  }
}
