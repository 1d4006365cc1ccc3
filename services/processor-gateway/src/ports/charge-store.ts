import type { Charge, StoredCardDraft } from '../domain/charge';
import type { ProcessorId } from './card-processor';

/** A stored-card charge `insertStoredCardCharges` committed, and the card to charge. */
export interface OpenedStoredCardCharge {
  id: string;
  processor: ProcessorId;
  customerRef: string;
  cardRef: string;
}

/**
 * Charges: one row per attempt, unique by idempotency key. Every method runs on the store's connection or
 * transaction (`InTransaction`); methods named `lock...` lock the row until the transaction ends.
 */
export interface ChargeStore {
  /** False when a charge with this idempotency key exists already (nothing written). */
  insertCharge(charge: Charge): Promise<boolean>;
  findChargeByKey(idempotencyKey: string): Promise<Charge | undefined>;
  findCharge(merchantId: string, chargeId: string): Promise<Charge | undefined>;
  /**
   * The merchant's charges among `chargeIds`, with the brand and last 4 of the card they charged (a card
   * since removed too; null when the charge had no saved card, a hosted form's one-off payment): the
   * customer's receipts. Nothing of another merchant's.
   */
  describeCharges(merchantId: string, chargeIds: string[]): Promise<ChargeDescription[]>;
  lockCharge(chargeId: string): Promise<Charge | undefined>;
  lockChargeByReference(processor: ProcessorId, reference: string): Promise<Charge | undefined>;
  lockChargeByProcessorReference(
    processor: ProcessorId,
    processorReference: string,
  ): Promise<Charge | undefined>;
  findChargeByProcessorReference(
    merchantId: string,
    processor: ProcessorId,
    processorReference: string,
  ): Promise<Charge | undefined>;
  saveCharge(charge: Charge): Promise<void>;
  /**
   * Commits new stored-card charges in one statement: each whose key is new and whose payment method
   * belongs to its merchant, is not removed and is not blocked at `now` (the row's processor is the card's).
   * Returns those inserted, with the card to charge; the others are left out, for the caller to decide alone.
   */
  insertStoredCardCharges(drafts: StoredCardDraft[], now: Date): Promise<OpenedStoredCardCharge[]>;
  /** Locks charges, in id order (two transactions locking some of the same rows wait, never deadlock). */
  lockCharges(chargeIds: string[]): Promise<Charge[]>;
  /** `saveCharge` for several rows, in one statement. */
  saveCharges(charges: Charge[]): Promise<void>;
  /**
   * Unsettled charges whose next check is due, oldest first. Each is leased until `leaseUntil` (its next
   * check moves there) so that another janitor replica skips it meanwhile.
   */
  claimDueCharges(now: Date, leaseUntil: Date, limit: number): Promise<Charge[]>;
  /** Failed charges of the card since `since` whose category counts toward the card lock. */
  countCardDeclines(paymentMethodId: string, since: Date): Promise<number>;
}

/** A charge as a receipt tells it. */
export interface ChargeDescription {
  chargeId: string;
  status: string;
  processor: ProcessorId;
  amount: string;
  currency: string;
  settledAt: Date | null;
  brand: string | null;
  last4: string | null;
}
