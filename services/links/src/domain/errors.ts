import type { LinkErrorCode } from '@payrail/contracts';

/** A request that is well-formed but not allowed by the merchant's configuration (HTTP 422). */
export class MerchantRuleViolation extends Error {
  constructor(
    readonly code: Exclude<LinkErrorCode, 'PAYMENT_LINK_NOT_FOUND'>,
    message: string,
    /** The request field the rule is about; absent when the whole endpoint is refused. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'MerchantRuleViolation';
  }
}

export class PaymentLinkNotFound extends Error {
  readonly code = 'PAYMENT_LINK_NOT_FOUND' satisfies LinkErrorCode;
  constructor(readonly linkId: number) {
    super(`Payment link ${linkId} not found`);
    this.name = 'PaymentLinkNotFound';
  }
}

/** The link is not pending any more: paid, cancelled or expired (HTTP 409). */
export class PaymentLinkNotPayable extends Error {
  constructor(
    readonly code: 'PAYMENT_LINK_ALREADY_PAID' | 'PAYMENT_LINK_CANCELLED' | 'PAYMENT_LINK_EXPIRED',
    message: string,
  ) {
    super(message);
    this.name = 'PaymentLinkNotPayable';
  }
}

/** A transfer that is not what the link is due: another amount or currency (HTTP 422). */
export class TransferMismatch extends Error {
  constructor(
    readonly code: 'AMOUNT_MISMATCH' | 'CURRENCY_MISMATCH',
    message: string,
    readonly field: 'amount' | 'currency',
  ) {
    super(message);
    this.name = 'TransferMismatch';
  }
}

/**
 * Amounts with decimals their currency does not have (a fraction of a guaraní): a request field in the
 * wrong format for the link's currency, answered like any other (HTTP 400, each field named).
 */
export class AmountNotInCurrency extends Error {
  constructor(readonly fields: Array<{ field: string; message: string }>) {
    super(fields.map(({ field, message }) => `${field} ${message}`).join('; '));
    this.name = 'AmountNotInCurrency';
  }
}
