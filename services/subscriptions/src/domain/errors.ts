import { DomainError, type DomainFieldError, type SubscriptionErrorCode } from '@payrail/contracts';

/**
 * subscriptions' domain errors: each code is one of `SUBSCRIPTION_ERRORS` (`libs/contracts`), the table
 * `service.ts` gives the app, which answers each error with its status. A field an error is about is named
 * in the domain's own camelCase terms (`installments.1.invoiceNumber`); a v2 operation, declared
 * `fieldNames: 'snake_case'`, has it answered as `installments.1.invoice_number`.
 */
export type { SubscriptionErrorCode } from '@payrail/contracts';

/** A request field, as a path of names and indexes in the domain's terms: `['installments', 1, 'amount']`. */
export type FieldPath = ReadonlyArray<string | number>;

/** The field an error is about, if any: the error's message is that field's message too. */
function about(path: FieldPath, message: string): DomainFieldError[] {
  return path.length > 0 ? [{ path: path.join('.'), message }] : [];
}

export abstract class SubscriptionError extends DomainError<SubscriptionErrorCode> {
  protected constructor(
    code: SubscriptionErrorCode,
    message: string,
    path: FieldPath = [],
    fieldErrors: readonly DomainFieldError[] = about(path, message),
  ) {
    super(code, message, fieldErrors);
  }
}

// Finding what the merchant names.

export class SubscriptionNotFound extends SubscriptionError {
  constructor(readonly subscriptionId: number) {
    super('SUBSCRIPTION_NOT_FOUND', `Subscription ${subscriptionId} not found`);
  }
}

/** No open subscription of the merchant has the identifiers (or the link) given. */
export class NoSubscriptionMatches extends SubscriptionError {
  constructor() {
    super('SUBSCRIPTION_NOT_FOUND', 'No pending or active subscription matches the identifiers');
  }
}

/** The pay page asked for the subscription of a link that has none at that merchant (yet). */
export class LinkHasNoSubscription extends SubscriptionError {
  /** `linkId` as the request gave it. */
  constructor(readonly linkId: string) {
    super('SUBSCRIPTION_NOT_FOUND', `Payment link ${linkId} has no subscription`);
  }
}

export class MultipleSubscriptionsMatch extends SubscriptionError {
  constructor(readonly count: number) {
    super(
      'MULTIPLE_SUBSCRIPTIONS_MATCH',
      `${count} subscriptions match the identifiers; give customIdentifier2 or payRequestId to choose one`,
    );
  }
}

export class InstallmentNotFound extends SubscriptionError {
  constructor(
    readonly installmentId: number,
    path: FieldPath = [],
  ) {
    super('INSTALLMENT_NOT_FOUND', `Installment ${installmentId} not found`, path);
  }
}

/** A bank transfer named the subscription and a day on which it has no installment. */
export class NoInstallmentOnDate extends SubscriptionError {
  constructor(readonly paymentDate: string) {
    super('INSTALLMENT_NOT_FOUND', `The subscription has no installment on ${paymentDate}`, ['paymentDate']);
  }
}

export class NoInstallmentWithInvoice extends SubscriptionError {
  constructor(readonly invoiceNumber: string) {
    super('INSTALLMENT_NOT_FOUND', `No installment has the invoice number ${invoiceNumber}`, [
      'invoiceNumber',
    ]);
  }
}

/** A bank transfer named the subscription and a day on which several of its installments fall. */
export class MultipleInstallmentsMatch extends SubscriptionError {
  constructor(
    readonly count: number,
    readonly paymentDate: string,
  ) {
    super(
      'MULTIPLE_INSTALLMENTS_MATCH',
      `${count} installments of the subscription fall on ${paymentDate}; give installmentId`,
      ['paymentDate'],
    );
  }
}

// States.

export class InvalidStateTransition extends SubscriptionError {
  constructor(
    readonly what: 'Installment' | 'Subscription',
    readonly id: number,
    readonly from: string,
    readonly to: string,
  ) {
    super('INVALID_STATE_TRANSITION', `${what} ${id} cannot go from ${from} to ${to}`);
  }
}

/** Installment 1 is the link's payment: the merchant changes or cancels it, or a transfer pays it, as the link. */
export class FirstInstallmentSettledByLink extends SubscriptionError {
  constructor(readonly asked: 'change' | 'transfer') {
    super(
      'FIRST_INSTALLMENT_SETTLED_BY_LINK',
      asked === 'change'
        ? 'Installment 1 is settled by the link payment; it cannot be changed or cancelled on its own'
        : 'Installment 1 is settled by the link payment; notify the transfer with the payRequestId of the link',
    );
  }
}

export class InstallmentNotPending extends SubscriptionError {
  constructor(
    readonly installmentId: number,
    readonly status: string,
    asked: 'change' | 'transfer',
  ) {
    super(
      'INSTALLMENT_NOT_PENDING',
      asked === 'change'
        ? `Installment ${installmentId} is ${status}; only pending installments can be changed or cancelled`
        : `Installment ${installmentId} is ${status}; only a pending or failed installment can be paid by transfer`,
    );
  }
}

export class InstallmentAlreadyPaid extends SubscriptionError {
  constructor(readonly installmentId: number) {
    super('INSTALLMENT_ALREADY_PAID', `Installment ${installmentId} is already paid`);
  }
}

export class InstallmentCancelled extends SubscriptionError {
  constructor(readonly installmentId: number) {
    super('INSTALLMENT_CANCELLED', `Installment ${installmentId} is cancelled`);
  }
}

/** Installments are added, or paid by transfer, once the first payment made the subscription active. */
export class SubscriptionNotActive extends SubscriptionError {
  constructor(
    readonly status: string,
    asked: 'add' | 'transfer' | 'card' | 'cancel',
  ) {
    super(
      'SUBSCRIPTION_NOT_ACTIVE',
      asked === 'add'
        ? `The subscription is ${status}; installments can be added once the first payment is made`
        : asked === 'transfer'
          ? `The subscription is ${status}; its first payment (the link) comes before any installment`
          : `The subscription is ${status}; only an active or past-due subscription can ${asked === 'card' ? 'change its card' : 'be cancelled'}`,
    );
  }
}

// Bank transfers.

export class CurrencyMismatch extends SubscriptionError {
  constructor(
    readonly transferCurrency: string,
    readonly dueCurrency: string,
  ) {
    super(
      'CURRENCY_MISMATCH',
      `The transfer is in ${transferCurrency}; the installment is due in ${dueCurrency}`,
      ['currency'],
    );
  }
}

/** The transfer is not exactly what the installment is due (`message` says by how, or why it cannot be). */
export class AmountMismatch extends SubscriptionError {
  constructor(message: string) {
    super('AMOUNT_MISMATCH', message, ['amount']);
  }
}

// Merchant operations.

export class PaymentDateInPast extends SubscriptionError {
  constructor(
    readonly paymentDate: string,
    readonly today: string,
    path: FieldPath,
  ) {
    super('PAYMENT_DATE_IN_PAST', `The payment date ${paymentDate} is before today (${today})`, path);
  }
}

/** `what` ends the sentence "No pending installment (from the 2nd on) …": `has the amount 150000.00`. */
export class NoMatchingPendingInstallments extends SubscriptionError {
  constructor(what: string) {
    super('NO_MATCHING_PENDING_INSTALLMENTS', `No pending installment (from the 2nd on) ${what}`);
  }
}

export class NotEnoughPendingInstallments extends SubscriptionError {
  constructor(
    readonly pending: number,
    readonly amount: string,
    readonly quantity: number,
  ) {
    super(
      'NOT_ENOUGH_PENDING_INSTALLMENTS',
      `Only ${pending} pending installments have the amount ${amount}; ${quantity} were to be cancelled`,
      ['quantity'],
    );
  }
}

export class SubscriptionNotDynamic extends SubscriptionError {
  constructor() {
    super('SUBSCRIPTION_NOT_DYNAMIC', 'Cancelling by invoice applies to DYNAMIC subscriptions only', [
      'invoiceNumber',
    ]);
  }
}

export class InvoiceNumberRequired extends SubscriptionError {
  constructor(readonly index: number) {
    super('INVOICE_NUMBER_REQUIRED', 'DYNAMIC subscriptions need an invoice number per installment', [
      'installments',
      index,
      'invoiceNumber',
    ]);
  }
}

/**
 * An invoice number the subscription already has: the request's `index`-th addition (found before anything
 * is stored), or, without one, a writer that stored it meanwhile (the unique index said so).
 */
export class InvoiceNumberTaken extends SubscriptionError {
  constructor(addition?: { invoiceNumber: string; index: number }) {
    if (addition) {
      super(
        'INVOICE_NUMBER_TAKEN',
        `An installment of the subscription already has the invoice number ${addition.invoiceNumber}`,
        ['installments', addition.index, 'invoiceNumber'],
      );
    } else {
      super('INVOICE_NUMBER_TAKEN', 'An installment of the subscription already has this invoice number');
    }
  }
}

/** Another writer changed what a request read before it could store its change: nothing is stored. */
export class ConcurrentModification extends SubscriptionError {
  constructor(message: string) {
    super('CONCURRENT_MODIFICATION', message);
  }
}

/**
 * Amounts with decimals the subscription's currency does not have (a fraction of a guaraní): request
 * fields in the wrong format for that currency, answered like any other input error (400
 * `VALIDATION_ERROR`, each field named; the detail names the first, as validation's does).
 */
export class AmountNotInCurrency extends SubscriptionError {
  constructor(fields: ReadonlyArray<{ path: FieldPath; message: string }>) {
    super(
      'VALIDATION_ERROR',
      describeFields(fields),
      [],
      fields.map(({ path, message }) => ({ path: path.join('.'), message })),
    );
  }
}

/** `amount must be a whole number: …`, and ` (and 2 more problems)` after the first when there are more. */
function describeFields(fields: ReadonlyArray<{ path: FieldPath; message: string }>): string {
  const [first, ...others] = fields;
  if (!first) return 'An amount does not fit the currency';
  const more =
    others.length === 0 ? '' : ` (and ${others.length} more problem${others.length > 1 ? 's' : ''})`;
  return `${first.path.join('.')} ${first.message}${more}`;
}
