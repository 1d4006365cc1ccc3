import type { PaymentKind, PaymentMovementMethod, PaymentStatus } from '@payrail/contracts';

/**
 * The payments ledger (issue 27): one movement per row, `id` the movement's `txId` (a charge's id, a
 * registered transfer's `tx_id`, a refund's id). Amounts are decimal strings with two places; instants are
 * kept as instants and written in the merchant's zone when read.
 */
export interface Movement {
  id: string;
  merchantId: string;
  kind: PaymentKind;
  status: PaymentStatus;
  method: PaymentMovementMethod;
  processor: string | null;
  amount: string;
  currency: string;
  refundedAmount: string;
  cardBrand: string | null;
  cardLast4: string | null;
  processorReference: string | null;
  reference: string | null;
  paymentId: string | null;
  linkId: number | null;
  label: string | null;
  subscriptionId: number | null;
  installmentId: number | null;
  installmentNumber: number | null;
  handleValue: string | null;
  handleLabel: string | null;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  declineCode: string | null;
  declineCategory: string | null;
  createdAt: Date;
  settledAt: Date | null;
}

/**
 * How a list of movements is written for the API: the JSON of `GET /api/payments`, or the export's CSV.
 * The store writes each row's text itself (PostgreSQL does it faster than the rows could be read into
 * objects and written again here), all but the two instants, which are written in the merchant's zone
 * by the caller.
 */
export type MovementText = 'json' | 'csv';

/**
 * A movement written as `MovementText` up to its instants: for `json` the object from its `{` to
 * `"declineCategory":…` (no comma, no `}`), for `csv` the fields `id` to `declineCategory` (no comma, no
 * line end). Its instants follow, last in both.
 */
export interface WrittenMovement {
  text: string;
  createdAt: Date;
  settledAt: Date | null;
}

/** What a link tells the ledger of itself and its customer. */
export interface LinkContext {
  linkId: number;
  merchantId: string;
  label: string | null;
  handleValue: string | null;
  handleLabel: string | null;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  subscriptionId: number | null;
}

/** An installment's place: its subscription, its number, the subscription's link. */
export interface InstallmentContext {
  installmentId: number;
  subscriptionId: number;
  linkId: number | null;
  number: number;
}

/** The filters of `GET /api/payments`, instants already in UTC; all of them together. */
export interface LedgerFilter {
  status?: PaymentStatus;
  kind?: PaymentKind;
  method?: PaymentMovementMethod;
  processor?: string;
  linkId?: number;
  subscriptionId?: number;
  customIdentifier?: string;
  /** Start of the customer's `handleValue` or `handleLabel`, any case. */
  customerPrefix?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  amountMin?: string;
  amountMax?: string;
}

/**
 * A position in the ledger's order (newest first): the creation instant in microseconds since the epoch
 * (PostgreSQL's own precision, so a cursor never rounds onto a neighbour) and the id.
 */
export interface LedgerPosition {
  createdMicros: bigint;
  id: string;
}

/** A status that is final: a later event of another status (a late `refund.scheduled`) does not undo it. */
export const FINAL_STATUSES: readonly PaymentStatus[] = ['succeeded', 'declined', 'failed'];

/** The opaque `cursor` of a position: base64url of `<micros>.<id>`. */
export function encodePosition(position: LedgerPosition): string {
  return Buffer.from(`${position.createdMicros}.${position.id}`).toString('base64url');
}

/** The position of a cursor, or undefined when it is not one of ours. */
export function decodePosition(cursor: string): LedgerPosition | undefined {
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^(-?\d{1,20})\.([0-9a-f-]{36})$/.exec(text);
  if (!match) return undefined;
  return { createdMicros: BigInt(match[1] as string), id: match[2] as string };
}
