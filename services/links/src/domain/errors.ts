/** A request that is well-formed but not allowed by the merchant's configuration (HTTP 422). */
export class MerchantRuleViolation extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The request field the rule is about; absent when the whole endpoint is refused. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'MerchantRuleViolation';
  }
}

export class PaymentLinkNotFound extends Error {
  constructor(readonly linkId: number) {
    super(`Payment link ${linkId} not found`);
    this.name = 'PaymentLinkNotFound';
  }
}
