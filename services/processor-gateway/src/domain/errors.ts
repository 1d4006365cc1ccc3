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
