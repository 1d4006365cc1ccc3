import { isCalendarDate } from '@payrail/time';
import { v7 as timeOrderedUuid } from 'uuid';
import { z } from 'zod';
import { CURRENCIES, PROCESSORS } from './merchant-context';
import { dayOfMonthSchema, moneyString } from './rules';
import { MAX_LENGTH } from './text';

export { moneyString };
const isoDate = z.string().refine(isCalendarDate, 'must be a calendar date yyyy-MM-dd');
/** The API refuses longer identifiers, so an event carrying one is a contract violation, not a value to store. */
const identifier = z.string().max(MAX_LENGTH.customIdentifier).nullable();
const invoiceNumber = z.string().max(MAX_LENGTH.invoiceNumber).nullable();

export const recurrenceSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('STATIC'),
    installmentAmount: moneyString,
    /** Including the first; null: open-ended, every month until cancelled (older messages always carry a number). */
    totalPeriods: z.number().int().min(1).nullable(),
    dayOfMonth: dayOfMonthSchema,
    monthForSecondInstallment: z.number().int().min(0),
  }),
  z.object({ type: z.literal('DYNAMIC') }),
]);

/**
 * How money reached the merchant: a card payment through a processor, or a bank transfer made outside the
 * service and notified by the merchant (`POST /api/bank-notification/add`).
 */
export const PAYMENT_METHOD_KINDS = ['CARD', 'BANK_TRANSFER'] as const;
export type PaymentMethodKind = (typeof PAYMENT_METHOD_KINDS)[number];
/** Messages written before `method` existed were card payments: the only way to pay then. */
const paymentMethodKind = z.enum(PAYMENT_METHOD_KINDS).default('CARD');

/**
 * The id of a money movement: processor-gateway's id of the card charge or of the registered bank transfer
 * (a UUID, time-ordered for those made now). Every event about one movement carries the same `txId`, and
 * the merchant's webhook tells it as is. Older messages may carry another shape (a processor's
 * authorization code, a bank reference), hence a plain string here.
 */
const txIdField = z.string().nullable().default(null);
/**
 * What the processor knows a card charge by: the order reference we sent it (`charges.reference`), the one
 * its ledger and status queries show. Null when the money did not move through a processor, and in older
 * messages.
 */
const processorReferenceField = z.string().nullable().default(null);
/** The processor's authorization code of an approved charge, when it gave one (null in older messages). */
const authorizationCodeField = z.string().nullable().default(null);

/**
 * A bank transfer made outside the service that paid a link or an installment, as the merchant notified it
 * (`POST /api/bank-notification/add`): the bank's reference and the transfer's details.
 */
export const bankTransferDetails = z.object({
  reference: z.string(),
  bankName: z.string(),
  transferDate: isoDate,
  note: z.string().nullable(),
});
export type BankTransferDetails = z.infer<typeof bankTransferDetails>;

/** `past_due`: an installment failed after its last dunning attempt; a later payment of it makes it `active` again. */
export const SUBSCRIPTION_STATUSES = ['pending', 'active', 'past_due', 'completed', 'cancelled'] as const;
export const INSTALLMENT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'cancelled'] as const;

/** What every `subscription.*` event after creation carries: the subscription as it is after the change. */
const subscriptionSnapshot = z.object({
  subscriptionId: z.number().int().positive(),
  merchantId: z.string().uuid(),
  linkId: z.number().int().positive(),
  type: z.enum(['STATIC', 'DYNAMIC']),
  status: z.enum(SUBSCRIPTION_STATUSES),
  customIdentifier: identifier,
  customIdentifier2: identifier,
  currency: z.enum(CURRENCIES),
  timezone: z.string(),
});

/** One installment in an `installments.*` event, as it is after the change. */
const installmentItem = z.object({
  installmentId: z.number().int().positive(),
  number: z.number().int().min(1),
  paymentDate: isoDate,
  amount: moneyString,
  status: z.enum(INSTALLMENT_STATUSES),
  invoiceNumber,
});

/**
 * What a single-installment event (`installment.paid`) carries: the installment after the change, with
 * what a scheduler needs to act on its day in the merchant's time zone without asking back.
 */
const installmentSnapshot = z.object({
  merchantId: z.string().uuid(),
  subscriptionId: z.number().int().positive(),
  installmentId: z.number().int().positive(),
  number: z.number().int().min(1),
  paymentDate: isoDate,
  amount: moneyString,
  currency: z.enum(CURRENCIES),
  status: z.enum(INSTALLMENT_STATUSES),
  invoiceNumber,
  timezone: z.string(),
});

export const DECLINE_CATEGORIES = ['soft', 'hard', 'card-blocked', 'processor-down'] as const;
export type DeclineCategory = (typeof DECLINE_CATEGORIES)[number];

/** What a charge was for: an installment of a subscription (automatic debit) or a link on the pay page. */
const chargePurpose = z.object({
  /** `installment:<id>:attempt:<n>` or `link:<id>:payment:<n>`: one per charge attempt. */
  idempotencyKey: z.string().min(1),
  chargeId: z.string().uuid(),
  merchantId: z.string().uuid(),
  processor: z.enum(PROCESSORS),
  amount: moneyString,
  currency: z.enum(CURRENCIES),
  installmentId: z.number().int().positive().nullable(),
  attempt: z.number().int().min(1).nullable(),
  linkId: z.number().int().positive().nullable(),
  paymentMethodId: z.string().uuid().nullable(),
});

/** A card in the vault as events show it: never a number, only what the processor shows masked. */
const paymentMethodSnapshot = z.object({
  paymentMethodId: z.string().uuid(),
  merchantId: z.string().uuid(),
  /** The links service's customer id. */
  customerId: z.number().int().positive(),
  processor: z.enum(PROCESSORS),
  maskedNumber: z.string(),
  last4: z.string().regex(/^\d{4}$/),
  brand: z.string(),
  expiryMonth: z.number().int().min(1).max(12),
  expiryYear: z.number().int(),
});

/**
 * A refund of one money movement (processor-gateway, issue 27). `refundId` is the refund's own movement id
 * (a UUIDv7, the `txId` of its webhook); `paymentId` the movement it gives money back from (a charge's id
 * or a bank transfer's `tx_id`). `mode`: `rollback` (PROCESSOR_A, the payment's day), `reversal`
 * (PROCESSOR_B, immediate that day or scheduled after) or `outside` (the merchant gave the money back by
 * bank transfer or cash and recorded it: no processor call). `refundedTotal` is the payment's refunded
 * amount once this refund counts (succeeded) or as it stands (scheduled, failed).
 */
export const REFUND_MODES = ['rollback', 'reversal', 'outside'] as const;
export const REFUND_METHODS = ['CARD', 'BANK_TRANSFER', 'CASH'] as const;
const refundSnapshot = z.object({
  refundId: z.string().uuid(),
  paymentId: z.string().uuid(),
  merchantId: z.string().uuid(),
  amount: moneyString,
  currency: z.enum(CURRENCIES),
  refundedTotal: moneyString,
  mode: z.enum(REFUND_MODES),
  /** How the money went back: `CARD` through the processor, or what the merchant recorded. */
  method: z.enum(REFUND_METHODS),
  processor: z.enum(PROCESSORS).nullable(),
  /** The merchant's reference of an outside refund (its bank transfer), else null. */
  reference: z.string().nullable(),
  reason: z.string().nullable(),
  /** What the refunded payment paid: a link, or an installment of a subscription. */
  linkId: z.number().int().positive().nullable(),
  subscriptionId: z.number().int().positive().nullable(),
  installmentId: z.number().int().positive().nullable(),
  requestedAt: z.string(),
});

/** Every integration event, by type and version. Validated when published and when consumed. */
export const eventSchemas = {
  'link.created': {
    1: z.object({
      linkId: z.number().int().positive(),
      merchantId: z.string().uuid(),
      slug: z.string(),
      label: z.string().max(MAX_LENGTH.label),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
      customIdentifier: identifier,
      customIdentifier2: identifier,
      /** The customer as the link names them (e-mail or phone, name); null in older messages. */
      handleValue: z.string().nullable().default(null),
      handleLabel: z.string().nullable().default(null),
      paymentMethods: z.array(z.enum(PROCESSORS)),
      timezone: z.string(),
      /** Creation instant (ISO 8601, UTC) and the same day in the merchant's time zone. */
      createdAt: z.string(),
      createdOn: isoDate,
      recurrence: recurrenceSchema.nullable(),
    }),
  },
  'link.paid': {
    1: z.object({
      linkId: z.number().int().positive(),
      merchantId: z.string().uuid(),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
      paidAt: z.string(),
      /**
       * The money movement (`txIdField`): processor-gateway's charge id for a card, its transfer's `txId`
       * for a bank transfer. Older messages: the charge id, or the bank's reference of a transfer.
       */
      txId: z.string().nullable(),
      /** Whether the link starts a subscription: subscriptions ignores one-off payments outright. */
      recurrent: z.boolean(),
      method: paymentMethodKind,
      /** A card payment on the pay page: the processor, the vault's card (saved or not) and our charge. */
      processor: z.enum(PROCESSORS).nullable().default(null),
      paymentMethodId: z.string().uuid().nullable().default(null),
      chargeId: z.string().uuid().nullable().default(null),
      /** The links service's customer who paid, when known (their saved card pays later installments). */
      customerId: z.number().int().positive().nullable().default(null),
      /** A card payment: what the processor knows the charge by, and its authorization code. */
      processorReference: processorReferenceField,
      authorizationCode: authorizationCodeField,
      /** A bank transfer: the bank's reference, and the transfer as notified. */
      bankReference: z.string().nullable().default(null),
      bankTransfer: bankTransferDetails.nullable().default(null),
    }),
  },
  /** A card payment attempt on the pay page was declined: the link is statusId 5 and still payable. */
  'link.payment-failed': {
    1: z.object({
      linkId: z.number().int().positive(),
      merchantId: z.string().uuid(),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
      failedAt: z.string(),
      processor: z.enum(PROCESSORS),
      chargeId: z.string().uuid(),
      declineCode: z.string(),
      category: z.enum(DECLINE_CATEGORIES),
      /** What the processor knows the declined charge by (null in older messages). */
      processorReference: processorReferenceField,
    }),
  },
  /** `payWaitHours` passed unpaid: statusId 6, nothing payable any more. */
  'link.expired': {
    1: z.object({
      linkId: z.number().int().positive(),
      merchantId: z.string().uuid(),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
      expiredAt: z.string(),
    }),
  },
  /** Cancelled by the merchant, or by cancelling its subscription before the first payment: statusId 7. */
  'link.cancelled': {
    1: z.object({
      linkId: z.number().int().positive(),
      merchantId: z.string().uuid(),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
      cancelledAt: z.string(),
      reason: z.enum(['merchant', 'subscription-cancelled']),
    }),
  },
  'subscription.created': {
    1: z.object({
      subscriptionId: z.number().int().positive(),
      merchantId: z.string().uuid(),
      linkId: z.number().int().positive(),
      type: z.enum(['STATIC', 'DYNAMIC']),
      status: z.literal('pending'),
      customIdentifier: identifier,
      customIdentifier2: identifier,
      currency: z.enum(CURRENCIES),
      /** The merchant's time zone: payment dates are calendar days there. */
      timezone: z.string(),
      /**
       * STATIC: the plan's installments including the first; null: DYNAMIC, or an open-ended STATIC plan
       * (every month until cancelled). Absent in messages from before open-ended plans.
       */
      totalPeriods: z.number().int().min(1).nullable().optional(),
      /**
       * The whole schedule (STATIC), the first 13 of an open-ended plan, or installment 1 alone (DYNAMIC);
       * later additions (merchant's v2 additions, an open-ended plan's rolling horizon) are `installments.scheduled`.
       */
      installments: z.array(
        z.object({
          installmentId: z.number().int().positive(),
          number: z.number().int(),
          paymentDate: isoDate,
          amount: moneyString,
        }),
      ),
    }),
  },
  'subscription.activated': { 1: subscriptionSnapshot.extend({ activatedAt: z.string() }) },
  'subscription.completed': { 1: subscriptionSnapshot },
  /**
   * `reason`: `merchant` (cancel-all), `customer` (on their own page, where the merchant allows it) or
   * `dunning` (the merchant's policy cancels after N installments failed
   * in a row; `merchant` in older messages).
   */
  'subscription.cancelled': {
    1: subscriptionSnapshot.extend({
      reason: z.enum(['merchant', 'dunning', 'customer']).default('merchant'),
    }),
  },
  /**
   * Merchant operations change a set of installments of one subscription: one event per subscription and
   * operation carries the whole set (a bulk request of 200 × 60 is 200 events, not 12 000), so a consumer
   * applies it in one transaction. Each item is the installment after the change.
   */
  'installments.scheduled': {
    1: subscriptionSnapshot.extend({ installments: z.array(installmentItem).min(1) }),
  },
  'installments.updated': {
    1: subscriptionSnapshot.extend({
      installments: z
        .array(installmentItem.extend({ changedFields: z.array(z.enum(['amount', 'paymentDate'])).min(1) }))
        .min(1),
    }),
  },
  'installments.cancelled': {
    1: subscriptionSnapshot.extend({ installments: z.array(installmentItem).min(1) }),
  },
  /**
   * Installment 1 by the link payment (`method` as the link was paid), a later one by its automatic charge
   * (`CARD`) or by a bank transfer the merchant notified (`BANK_TRANSFER`, with its `bankReference` and
   * `bankTransfer`).
   */
  'installment.paid': {
    1: installmentSnapshot.extend({
      paidAt: z.string(),
      method: paymentMethodKind,
      bankReference: z.string().nullable().default(null),
      /** The transfer as the merchant notified it, when one paid it (null otherwise and in older messages). */
      bankTransfer: bankTransferDetails.nullable().default(null),
      /** The subscription's paid installments and their sum after this one (null in older messages). */
      paidCount: z.number().int().min(1).nullable().default(null),
      paidTotal: moneyString.nullable().default(null),
      /**
       * The automatic charge's attempt that paid it (`installment:<id>:attempt:<n>`); null when it was paid
       * otherwise (the link payment, a bank transfer) and in older messages.
       */
      chargeAttempt: z.number().int().min(1).nullable().default(null),
      /**
       * The money movement that paid it (`txIdField`): the automatic charge's id, the link payment's `txId`
       * for installment 1, the transfer's `txId` for a bank transfer. The gateway's webhook takes it from
       * here, so it needs no `payment.succeeded` of its own. Older messages: the charge's authorization
       * code (else its id) for an automatic charge, null otherwise.
       */
      txId: txIdField,
      /** A card payment: what the processor knows the charge by, and its authorization code. */
      processorReference: processorReferenceField,
      authorizationCode: authorizationCodeField,
    }),
  },
  /**
   * Automatic debit: charge this installment now with this stored card. `idempotencyKey` is
   * `installment:<id>:attempt:<n>`; processor-gateway charges each key at most once.
   */
  'charge.requested': {
    1: z.object({
      idempotencyKey: z.string().min(1),
      merchantId: z.string().uuid(),
      subscriptionId: z.number().int().positive().optional(),
      installmentId: z.number().int().positive(),
      attempt: z.number().int().min(1),
      paymentMethodId: z.string().uuid(),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
    }),
  },
  /**
   * Automatic debit, step 1 (billing-scheduler): this installment is due as of `asOf` in the merchant's time
   * zone; charge attempt `attempt` of it. subscriptions decides whether it is still chargeable.
   */
  'installment.charge-due': {
    1: z.object({
      runId: z.string().uuid(),
      merchantId: z.string().uuid(),
      subscriptionId: z.number().int().positive(),
      installmentId: z.number().int().positive(),
      attempt: z.number().int().min(1),
      dueOn: isoDate,
      asOf: isoDate,
    }),
  },
  /**
   * subscriptions did not request a charge for a `installment.charge-due` (no longer pending, subscription not
   * active, no card, the card's 24-hour attempt cap reached, moved to a later day, ...). `retryOn`: when it
   * may be asked again (the cap, the new day), else null.
   */
  'installment.charge-skipped': {
    1: z.object({
      runId: z.string().uuid(),
      merchantId: z.string().uuid(),
      subscriptionId: z.number().int().positive(),
      installmentId: z.number().int().positive(),
      attempt: z.number().int().min(1),
      reason: z.enum([
        'not-pending',
        'subscription-not-active',
        'no-payment-method',
        'card-attempt-cap',
        'attempt-already-requested',
        /** The merchant moved it to a later day since the run claimed it: `retryOn` is that day. */
        'not-due',
      ]),
      retryOn: isoDate.nullable(),
      /**
       * For `not-pending` and `attempt-already-requested`, what subscriptions knows now, so that a charge-due
       * asked again after its answer was lost (billing-scheduler's reclaim) settles the claim: the
       * installment's status (null: not this merchant's and subscription's), the asked attempt's status
       * (`requested` while its charge is in flight; null: never requested) and, when it failed, its decline
       * category. Null in older messages.
       */
      installmentStatus: z.enum(INSTALLMENT_STATUSES).nullable().default(null),
      attemptStatus: z.enum(['requested', 'succeeded', 'failed']).nullable().default(null),
      declineCategory: z.enum(DECLINE_CATEGORIES).nullable().default(null),
    }),
  },
  /**
   * An operator's billing run as of a day started (billing-scheduler): of one merchant, or of all (null).
   * With simulated time a run as of a future day is how tests and demos move a merchant's calendar; links
   * takes that day as the merchant's today for its customers' e-mails (reminders, a signed link's validity).
   */
  'billing-run.started': {
    1: z.object({
      runId: z.string().uuid(),
      merchantId: z.string().uuid().nullable(),
      asOf: isoDate,
      startedAt: z.string(),
    }),
  },
  /** Dunning (billing-scheduler's policy per merchant): after a failed attempt, the next one is on `nextAttemptOn`. */
  'installment.retry-scheduled': {
    1: z.object({
      merchantId: z.string().uuid(),
      subscriptionId: z.number().int().positive(),
      installmentId: z.number().int().positive(),
      failedAttempt: z.number().int().min(1),
      nextAttempt: z.number().int().min(2),
      nextAttemptOn: isoDate,
    }),
  },
  /**
   * Dunning gave up on this installment (a hard decline, or the last attempt of the policy failed):
   * subscriptions marks it `failed` and the subscription `past_due`.
   */
  'installment.dunning-exhausted': {
    1: z.object({
      merchantId: z.string().uuid(),
      subscriptionId: z.number().int().positive(),
      installmentId: z.number().int().positive(),
      attempts: z.number().int().min(1),
      reason: z.enum(['hard-decline', 'attempts-exhausted']),
      /**
       * The merchant's dunning policy when dunning gave up: the subscription is cancelled once this many of
       * its installments failed in a row (subscriptions counts). Null (and in older messages): never.
       */
      cancelAfterFailedInstallments: z.number().int().min(1).nullable().default(null),
    }),
  },
  /** The installment is `failed` after dunning (subscriptions). */
  'installment.failed': {
    1: installmentSnapshot.extend({
      failedAt: z.string(),
      attempts: z.number().int().min(1),
      declineCode: z.string().nullable(),
      category: z.enum(DECLINE_CATEGORIES).nullable(),
    }),
  },
  /** An installment failed after dunning: the subscription is `past_due` until it is paid. */
  'subscription.past-due': {
    1: subscriptionSnapshot.extend({ installmentId: z.number().int().positive(), pastDueAt: z.string() }),
  },
  /**
   * The processor took the money (confirmed by a status query where the processor confirms by webhook).
   * `chargeId` is the money movement's `txId`.
   */
  'payment.succeeded': {
    1: chargePurpose.extend({
      paidAt: z.string(),
      authorizationCode: z.string().nullable(),
      processorReference: processorReferenceField,
      /**
       * The vault card charged: its brand and last 4 digits, no more (a paid link's retrieval shows them).
       * Null when no stored card was charged, when the batch of installment charges announced it, and in
       * older messages.
       */
      cardBrand: z.string().nullable().default(null),
      cardLast4: z.string().nullable().default(null),
    }),
  },
  /**
   * The processor did not take the money. `retryable` false means do not charge this card again for this
   * debt (hard decline); `card-blocked` means not before the block ends.
   */
  'payment.failed': {
    1: chargePurpose.extend({
      failedAt: z.string(),
      retryable: z.boolean(),
      declineCode: z.string(),
      category: z.enum(DECLINE_CATEGORIES),
      /**
       * `card-blocked`: when the processor's block on the card ends (ISO 8601), when it said; billing-scheduler
       * retries no earlier. Null or absent: unknown (retried the next day).
       */
      blockedUntil: z.string().nullable().optional(),
      processorReference: processorReferenceField,
    }),
  },
  'payment-method.saved': { 1: paymentMethodSnapshot.extend({ savedAt: z.string() }) },
  'payment-method.removed': { 1: paymentMethodSnapshot.extend({ removedAt: z.string() }) },
  /**
   * processor-gateway registered a transfer made outside the service and its target is settled (the link
   * paid, or the installment paid): published once per merchant and bank reference.
   */
  'bank-transfer.registered': {
    1: z.object({
      bankTransferId: z.number().int().positive(),
      /**
       * The money movement (`txIdField`): the transfer's id in processor-gateway, the `txId` of the
       * `link.paid` / `installment.paid` it settled (null in older messages).
       */
      txId: txIdField,
      merchantId: z.string().uuid(),
      reference: z.string(),
      bankName: z.string(),
      amount: moneyString,
      currency: z.enum(CURRENCIES),
      transferDate: isoDate,
      note: z.string().nullable(),
      target: z.discriminatedUnion('type', [
        z.object({ type: z.literal('PAY_REQUEST'), linkId: z.number().int().positive() }),
        z.object({
          type: z.literal('INSTALLMENT'),
          installmentId: z.number().int().positive(),
          subscriptionId: z.number().int().positive(),
        }),
      ]),
      registeredAt: z.string(),
    }),
  },
  /**
   * A refund was scheduled by the processor (PROCESSOR_B after the payment's day: `Agendada`): it is not
   * applied yet; `refund.succeeded` follows when the processor's status shows it applied.
   */
  'refund.scheduled': { 1: refundSnapshot.extend({ scheduledAt: z.string() }) },
  /** Money was given back: by the processor (rollback, reversal) or outside the service, as recorded. */
  'refund.succeeded': { 1: refundSnapshot.extend({ succeededAt: z.string() }) },
  /** The processor refused the refund or it could not be made: nothing was given back. */
  'refund.failed': {
    1: refundSnapshot.extend({ failedAt: z.string(), code: z.string(), message: z.string().nullable() }),
  },
} as const;

export type EventType = keyof typeof eventSchemas;
type Versions<T extends EventType> = (typeof eventSchemas)[T];
export type LatestVersion = 1;
export type EventData<T extends EventType> = z.infer<Versions<T>[LatestVersion]>;
/** What a publisher gives `createEvent`: fields with a default (added later, for older messages) may be left out. */
export type EventInput<T extends EventType> = z.input<Versions<T>[LatestVersion]>;

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  v: number;
  occurredAt: string;
  data: EventData<T>;
}

export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractViolation';
  }
}

function schemaFor(type: string, v: number): z.ZodType {
  const versions = (eventSchemas as Record<string, Record<number, z.ZodType>>)[type];
  if (!versions) throw new ContractViolation(`Unknown event type ${type}`);
  const schema = versions[v];
  if (!schema) throw new ContractViolation(`Unknown version ${v} of ${type}`);
  return schema;
}

/**
 * Builds a validated envelope for publishing; throws `ContractViolation` on a bad payload. Its id is
 * time-ordered (UUIDv7, RFC 9562): the outbox's primary key and each consumer's inbox key take new ids at
 * the end of their index instead of on a random page, so a batch of events touches a few index pages and
 * the writes after a checkpoint copy a few whole pages into the WAL instead of one per event.
 */
export function createEvent<T extends EventType>(
  type: T,
  data: EventInput<T>,
  occurredAt: Date,
  id: string = timeOrderedUuid(),
): EventEnvelope<T> {
  const parsed = schemaFor(type, 1).safeParse(data);
  if (!parsed.success) throw new ContractViolation(`Invalid ${type} v1: ${parsed.error.message}`);
  return { id, type, v: 1, occurredAt: occurredAt.toISOString(), data: parsed.data as EventData<T> };
}

const envelopeSchema = z.object({
  id: z.string(),
  type: z.string(),
  v: z.number().int(),
  occurredAt: z.string(),
  data: z.unknown(),
});

/** Parses and validates a consumed message body against the expected type. */
export function parseEvent<T extends EventType>(type: T, body: string): EventEnvelope<T> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ContractViolation(`${type}: body is not JSON`);
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) throw new ContractViolation(`${type}: not an event envelope`);
  if (envelope.data.type !== type) throw new ContractViolation(`expected ${type}, got ${envelope.data.type}`);
  const data = schemaFor(type, envelope.data.v).safeParse(envelope.data.data);
  if (!data.success)
    throw new ContractViolation(`Invalid ${type} v${envelope.data.v}: ${data.error.message}`);
  return { ...envelope.data, type, data: data.data as EventData<T> };
}
