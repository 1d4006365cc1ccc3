import type {
  InstallmentContext,
  LedgerFilter,
  LedgerPosition,
  LinkContext,
  Movement,
  MovementText,
  WrittenMovement,
} from '../domain/ledger';

/** The report's figures of one currency in one period. */
export interface SummaryRow {
  currency: string;
  period: string;
  collected: string;
  refunded: string;
  declinedAttempts: number;
  recoveredInstallments: number;
}

/** A ledger row, written, with its position in the order (for the next page's cursor). */
export interface PositionedMovement {
  movement: WrittenMovement;
  position: LedgerPosition;
}

/** A page of the API as the store wrote it (`LedgerStore.jsonPage`). */
export interface WrittenPage {
  /** The movements, newest first, each written as JSON up to its instants. */
  movements: WrittenMovement[];
  /** The last movement's position when more match after it (the next page's cursor), else undefined. */
  next: LedgerPosition | undefined;
}

/**
 * The payments ledger and the context its rows take from links and subscriptions. Written only by the
 * ledger's consumer, in its unit of work (a redelivered event finds its inbox row and writes nothing).
 */
export interface LedgerStore {
  /**
   * Writes the movement, or brings the one there up to date: a final status (`succeeded`, `declined`,
   * `failed`) is never replaced by another; the creation instant (the order) never changes.
   */
  record(movement: Movement): Promise<void>;
  /** The payment's `refundedAmount` set from its refunds in the ledger that succeeded. */
  refreshRefunded(paymentId: string): Promise<void>;
  findLink(linkId: number): Promise<LinkContext | undefined>;
  findInstallment(installmentId: number): Promise<InstallmentContext | undefined>;
  /** Keeps the link's context and gives it to the link's rows already written. */
  saveLink(link: LinkContext): Promise<void>;
  /** Keeps the installments' places and gives them to rows already written. */
  saveInstallments(installments: InstallmentContext[]): Promise<void>;
  /** The subscription made from the link: kept for the link and given to its rows. */
  setLinkSubscription(merchantId: string, linkId: number, subscriptionId: number): Promise<void>;
  /** A movement of the merchant (undefined for another merchant's). */
  find(merchantId: string, id: string): Promise<Movement | undefined>;
  /** The refunds of a payment in the ledger, oldest first. */
  refundsOf(merchantId: string, paymentId: string): Promise<Movement[]>;
  /**
   * The report's figures per currency and period: movements decided (settled, else created) from `from`
   * up to but not including `before`, the period the local day (`yyyy-MM-dd`) or month (`yyyy-MM`) of
   * that instant in `timezone`. Sums as decimal strings, as PostgreSQL adds them (no float).
   */
  summary(
    merchantId: string,
    range: { from: Date; before: Date; timezone: string; groupBy: 'day' | 'month' },
  ): Promise<SummaryRow[]>;
  /**
   * The same figures per currency and local day, for the days `firstDay` to `lastDay` of `timezone`, which
   * the caller knows are over there: read from the daily totals, the days not totalled yet summed from the
   * rows and kept (exact: a later write to the ledger forgets the totals of the days it changes).
   */
  dailyTotals(
    merchantId: string,
    range: { firstDay: string; lastDay: string; timezone: string },
  ): Promise<SummaryRow[]>;
  /**
   * The same figures per currency and local day, from `from` (the start of a local day not over in
   * `timezone`: today) to before `before`: the 15-minute UTC buckets over by `now` read from their totals
   * (the missing ones totalled and kept), only the rows of the bucket still open summed (exact, as
   * `dailyTotals` is).
   */
  recentTotals(
    merchantId: string,
    range: { from: Date; before: Date; timezone: string; now: Date },
  ): Promise<SummaryRow[]>;
  /**
   * Up to `limit` movements after `after` (newest first), matching every filter, each written as `as`
   * asks (`WrittenMovement`): the same text `movementView` and the CSV writer would give the movement
   * `find` reads.
   */
  page(
    merchantId: string,
    filter: LedgerFilter,
    after: LedgerPosition | undefined,
    limit: number,
    as: MovementText,
  ): Promise<PositionedMovement[]>;
  /**
   * A page of `GET /api/payments`: up to `limit` movements after `after` (newest first), matching every
   * filter, each written as `page` writes `json`, and the position to go on from when more match.
   */
  jsonPage(
    merchantId: string,
    filter: LedgerFilter,
    after: LedgerPosition | undefined,
    limit: number,
  ): Promise<WrittenPage>;
}
