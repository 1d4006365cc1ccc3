import { DomainError, type Processor, type ProcessorGatewayErrorCode } from '@payrail/contracts';

/**
 * processor-gateway's domain errors: each code is one of `PROCESSOR_GATEWAY_ERRORS` (`libs/contracts`), the
 * table `service.ts` gives the app, which answers each error with its status.
 */
export abstract class ProcessorGatewayError extends DomainError<ProcessorGatewayErrorCode> {}

export class PaymentNotFound extends ProcessorGatewayError {
  constructor() {
    super('NOT_FOUND', 'Payment not found');
  }
}

/** Not the merchant's, not the customer's, removed, or no such card. */
export class PaymentMethodNotFound extends ProcessorGatewayError {
  constructor() {
    super('NOT_FOUND', 'Payment method not found');
  }
}

export class CardRegistrationNotFound extends ProcessorGatewayError {
  constructor() {
    super('NOT_FOUND', 'Card registration not found');
  }
}

export class CustomerNotFound extends ProcessorGatewayError {
  constructor() {
    super('NOT_FOUND', 'Customer not found');
  }
}

/**
 * A link's payment attempt (`link:<id>:payment:<n>`) already made: with another form (the hosted payment),
 * or another card (the saved-card payment, which does not name the attempt).
 */
export class PaymentAttemptUsed extends ProcessorGatewayError {
  constructor(readonly attempt?: { linkId: number; paymentNumber: number }) {
    super(
      'PAYMENT_ATTEMPT_USED',
      attempt
        ? `Payment attempt ${attempt.paymentNumber} of link ${attempt.linkId} was already made`
        : 'This payment attempt was already made',
    );
  }
}

export class ProcessorNotEnabled extends ProcessorGatewayError {
  constructor(readonly processor: Processor) {
    super('PROCESSOR_NOT_ENABLED', `${processor} is not enabled for this merchant`, [
      { path: 'processor', message: 'not enabled for this merchant' },
    ]);
  }
}

/**
 * The processor refused to open a form or was unreachable: nothing was charged, the person may retry.
 * `reason` is the processor's own words (or the adapter's), kept for whoever reads the error.
 */
export class ProcessorUnavailable extends ProcessorGatewayError {
  constructor(
    readonly declineCode: string,
    readonly reason: string,
  ) {
    super(
      'PROCESSOR_UNAVAILABLE',
      `The processor did not answer as expected (${declineCode}); nothing was charged`,
    );
  }
}

/** A well-formed bank notification the domain still refuses (400 naming the field). */
export class InvalidTransfer extends ProcessorGatewayError {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super('VALIDATION_ERROR', 'Request body is invalid', [{ path: field, message: problem }]);
  }
}

/** The merchant's bank reference already registered a transfer with other content. */
export class BankReferenceReused extends ProcessorGatewayError {
  constructor(
    readonly reference: string,
    readonly transferId: number,
  ) {
    super(
      'BANK_REFERENCE_REUSED',
      `The reference ${reference} already registered another transfer (${transferId}); ` +
        'the same notification again answers its first result',
    );
  }
}

/** The owner of a transfer's target could not be reached: nothing is known to be settled; send it again. */
export class SettlementUnavailable extends ProcessorGatewayError {
  constructor() {
    super(
      'SETTLEMENT_UNAVAILABLE',
      'The target could not be settled now; send the same notification again (it never pays twice)',
    );
  }
}

// Refunds (issue 27): each refusal leaves nothing written.

/** A refund gives money back: it is made once per `Idempotency-Key`, so a request must bring one. */
export class IdempotencyKeyRequired extends ProcessorGatewayError {
  constructor() {
    super('IDEMPOTENCY_KEY_REQUIRED', 'Idempotency-Key header is required: a refund is made once per key', [
      { path: 'Idempotency-Key', message: 'is required' },
    ]);
  }
}

export class InvalidIdempotencyKey extends ProcessorGatewayError {
  constructor() {
    super('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 printable ASCII characters', [
      { path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
}

/** The key already made a refund of another request (another payment, amount, method, reference or reason). */
export class IdempotencyKeyReused extends ProcessorGatewayError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request', [
      { path: 'Idempotency-Key', message: 'was already used with another request' },
    ]);
  }
}

/** No movement of the merchant has this id (another merchant's is not found either). */
export class PaymentToRefundNotFound extends ProcessorGatewayError {
  constructor(readonly paymentId: string) {
    super('PAYMENT_NOT_FOUND', `Payment ${paymentId} not found`);
  }
}

export class RefundNotFound extends ProcessorGatewayError {
  constructor(
    readonly paymentId: string,
    readonly refundId: string,
  ) {
    super('REFUND_NOT_FOUND', `Refund ${refundId} of payment ${paymentId} not found`);
  }
}

/** The movement took no money that could be given back. */
export class PaymentNotRefundable extends ProcessorGatewayError {
  constructor(
    readonly paymentId: string,
    readonly why: 'declined' | 'undecided' | 'refund',
  ) {
    super(
      'PAYMENT_NOT_REFUNDABLE',
      why === 'declined'
        ? `Payment ${paymentId} was declined: nothing was taken, nothing can be refunded`
        : why === 'undecided'
          ? `Payment ${paymentId} is not decided yet by its processor; refund it once it has succeeded`
          : `${paymentId} is a refund: a refund cannot be refunded`,
    );
  }
}

export class PaymentFullyRefunded extends ProcessorGatewayError {
  constructor(
    readonly paymentId: string,
    readonly paid: string,
    readonly committed: string,
  ) {
    super(
      'PAYMENT_FULLY_REFUNDED',
      `Payment ${paymentId} has nothing left to refund (${paid} paid, ${committed} refunded or in progress)`,
    );
  }
}

/** The processor cannot give this payment back by API (PROCESSOR_A after the day; a bank transfer has none). */
export class ProcessorRefundNotPossible extends ProcessorGatewayError {
  constructor(readonly why: { processor: Processor; paidOn: string } | 'bank-transfer') {
    super(
      'PROCESSOR_REFUND_NOT_POSSIBLE',
      why === 'bank-transfer'
        ? 'A bank transfer has no processor to give it back; give the money back outside and record it with method BANK_TRANSFER or CASH'
        : `${why.processor} rolls a card payment back only on the day it was made (${why.paidOn}, Asunción time); ` +
            'give the money back outside and record it with method BANK_TRANSFER or CASH',
    );
  }
}

export class PartialCardRefundNotPossible extends ProcessorGatewayError {
  constructor(
    readonly paid: string,
    readonly asked: string,
  ) {
    super(
      'PARTIAL_CARD_REFUND_NOT_POSSIBLE',
      `A card payment is given back through the processor whole (${paid}); ${asked} can only be given back outside and recorded`,
      [{ path: 'amount', message: `a card refund is the whole payment (${paid})` }],
    );
  }
}

/** Zero, negative, or more decimals than the payment's currency has. */
export class RefundAmountInvalid extends ProcessorGatewayError {
  constructor(readonly problem: string) {
    super('REFUND_AMOUNT_INVALID', `amount ${problem}`, [{ path: 'amount', message: problem }]);
  }
}

export class RefundAmountExceedsRefundable extends ProcessorGatewayError {
  constructor(
    readonly asked: string,
    readonly left: string,
  ) {
    super('REFUND_AMOUNT_EXCEEDS_REFUNDABLE', `amount ${asked} is more than the ${left} left to refund`, [
      { path: 'amount', message: `is more than the ${left} left to refund` },
    ]);
  }
}

/** A report's range: `to` before `from`, or longer than a report covers. */
export class ReportRangeInvalid extends ProcessorGatewayError {
  constructor(
    readonly path: 'from' | 'to',
    readonly problem: string,
  ) {
    super('REPORT_RANGE_INVALID', `${path} ${problem}`, [{ path, message: problem }]);
  }
}
