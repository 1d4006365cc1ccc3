/**
 * The cards the installments are charged to, for the cap on attempts per card (`CARD_CAP_WINDOW_MS`,
 * `decideCharge`): when each attempt on a card was requested, and a lock per card that serialises, until
 * the transaction ends, everything that counts or adds attempts on it.
 */
export interface CardStore {
  /** Serialises, until the transaction ends, everything that counts or adds attempts on one card. */
  lockCard(paymentMethodId: string): Promise<void>;
  /** Batch: `lockCard` for each card, in one statement, in a stable order. */
  lockCards(paymentMethodIds: string[]): Promise<void>;
  /** When each attempt on the card since `since` was requested, oldest first. */
  cardAttemptsSince(paymentMethodId: string, since: Date): Promise<Date[]>;
  /** Batch: `cardAttemptsSince` of each card, by card (a card without attempts is absent). */
  cardsAttemptsSince(paymentMethodIds: string[], since: Date): Promise<Map<string, Date[]>>;
}
