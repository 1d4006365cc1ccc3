import {
  JsonDecimal,
  PAYMENT_LINK_STATUSES,
  REFUND_STATUS_ID,
  stringifyWithDecimals,
  type WebhookEventKind,
} from '@payrail/contracts';

export const amountOrNull = (decimal: string | null | undefined): JsonDecimal | null =>
  decimal === null || decimal === undefined ? null : new JsonDecimal(decimal);

export type EnvelopeValue =
  | string
  | number
  | boolean
  | null
  | JsonDecimal
  | EnvelopeValue[]
  | { [key: string]: EnvelopeValue };

export type EnvelopeKind = WebhookEventKind | 'WEBHOOK_TEST';

/**
 * The fields every envelope's `data` has. Receivers in the field store each notification as a row of a
 * strict table: the identifiers are always strings (what the merchant gave, `""` when it gave none), never
 * null; the others are null where they do not apply.
 */
export interface EnvelopeBase {
  /** The money movement (processor-gateway's id of the charge or of the bank transfer, a UUID). */
  txId: string | null;
  payRequestId: number | null;
  currency: string | null;
  customIdentifier: string;
  customIdentifier2: string;
  label: string | null;
  subscriptionId: number | null;
  subscriptionTotalPeriods: number | null;
  /** How many of the subscription's periods are paid (null for a one-off link). */
  subscriptionPayedPeriod: number | null;
}

/** A merchant identifier as the envelope carries it: as given, `""` when none was given. */
export const identifierOrEmpty = (value: string | null | undefined): string => value ?? '';

/** The base fields of an envelope about no known link, subscription or movement: nulls, identifiers `""`. */
export const emptyEnvelopeBase = (): EnvelopeBase => ({
  txId: null,
  payRequestId: null,
  currency: null,
  customIdentifier: '',
  customIdentifier2: '',
  label: null,
  subscriptionId: null,
  subscriptionTotalPeriods: null,
  subscriptionPayedPeriod: null,
});

/**
 * The payment status a payment event carries as `statusId` (the link's codes: 200 paid, 5 declined; and 9,
 * money given back, which a link never has: it stays 200). Receivers decide "paid" from `statusId` alone, so
 * only an event that announces a money movement, or an attempt at one, carries it: one `PAYMENT_SUCCESS` per
 * movement, and a refund is never 200.
 */
export const PAYMENT_STATUS_ID = {
  PAYMENT_SUCCESS: PAYMENT_LINK_STATUSES.PAID,
  PAYMENT_FAILED: PAYMENT_LINK_STATUSES.LAST_ATTEMPT_REJECTED,
  PAYMENT_REFUNDED: REFUND_STATUS_ID,
} as const;

/**
 * What each kind carries of `amount` and `statusId` (the envelope table of the gateway README):
 * - `payment`: `amount` and `statusId` (the payment events; a refund's, `PAYMENT_REFUNDED`, is 9);
 * - `amount`: `amount` without `statusId` (an installment's or a link's amount: what failed, changed, was
 *   cancelled or expired; several installments: their sum);
 * - `none`: neither key (nothing in it is an amount of money that moved or is due).
 */
export const ENVELOPE_MONEY: Record<EnvelopeKind, 'payment' | 'amount' | 'none'> = {
  PAYMENT_SUCCESS: 'payment',
  PAYMENT_FAILED: 'payment',
  PAYMENT_REFUNDED: 'payment',
  INSTALLMENT_FAILED: 'amount',
  INSTALLMENT_UPDATED: 'amount',
  INSTALLMENT_CANCELLED: 'amount',
  LINK_EXPIRED: 'amount',
  LINK_CANCELLED: 'amount',
  SUBSCRIPTION_ACTIVATED: 'none',
  SUBSCRIPTION_PAST_DUE: 'none',
  SUBSCRIPTION_CANCELLED: 'none',
  SUBSCRIPTION_COMPLETED: 'none',
  BANK_TRANSFER_REGISTERED: 'none',
  REFUND_FAILED: 'none',
  WEBHOOK_TEST: 'none',
};

export type EnvelopeData = EnvelopeBase & { [key: string]: EnvelopeValue };

/**
 * An envelope's `data` for `kind`: the base fields, `amount` and `statusId` as the kind carries them
 * (`ENVELOPE_MONEY`), then the kind's own fields. A kind that carries an amount must be given one, and a
 * kind that does not, none: a mistake here is a bug, not an envelope to send.
 */
export function envelopeData(
  kind: EnvelopeKind,
  base: EnvelopeBase,
  amount: JsonDecimal | null,
  extra: Record<string, EnvelopeValue> = {},
): EnvelopeData {
  const money = ENVELOPE_MONEY[kind];
  if (money === 'none' && amount !== null) throw new Error(`${kind} carries no amount`);
  if (money !== 'none' && amount === null) throw new Error(`${kind} needs an amount`);
  for (const key of ['amount', 'statusId'] as const) {
    if (key in extra) throw new Error(`${kind}: ${key} is set by the kind, not by its fields`);
  }
  const { txId, payRequestId, currency, ...rest } = base;
  return {
    txId,
    payRequestId,
    currency,
    ...(amount === null ? {} : { amount }),
    ...(money === 'payment' ? { statusId: PAYMENT_STATUS_ID[kind as keyof typeof PAYMENT_STATUS_ID] } : {}),
    ...rest,
    ...extra,
  } as EnvelopeData;
}

export interface WebhookEnvelope {
  id: string;
  event: EnvelopeKind;
  createdAt: string;
  data: EnvelopeData;
}

/**
 * The envelope's JSON text, amounts (`JsonDecimal`) written as numbers with two decimals (`150000.00`), as
 * receivers in the field parse them, without ever being a float here.
 */
export function serializeEnvelope(envelope: WebhookEnvelope): string {
  return stringifyWithDecimals(envelope);
}
