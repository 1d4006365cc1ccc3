import type { EventEnvelope } from '@payrail/contracts';
import type { Charge, StoredCardDraft } from '../domain/charge';
import type { PaymentMethod } from '../domain/payment-method';
import type { ProcessorId } from './card-processor';

/** Runs `work` in the trace context of the piece of work an event announces. */
export type InContext = <T>(work: () => T) => T;

/** A stored-card charge `insertStoredCardCharges` committed, and the card to charge. */
export interface OpenedStoredCardCharge {
  id: string;
  processor: ProcessorId;
  customerRef: string;
  cardRef: string;
}

export interface CardRegistration {
  id: string;
  merchantId: string;
  customerId: number;
  processor: ProcessorId;
  customerRef: string;
  registrationRef: string;
  linkId: number | null;
  status: 'open' | 'completed';
  createdAt: Date;
  completedAt: Date | null;
}

/**
 * Where charges, the vault and registrations live. Every method runs on the store's connection or, inside
 * `transaction`, on that transaction; events given to `publish` are committed with the state change
 * (transactional outbox). Methods named `lock...` lock the row until the transaction ends.
 */
export interface GatewayStore {
  transaction<T>(work: (store: GatewayStore) => Promise<T>): Promise<T>;

  /** False when a charge with this idempotency key exists already (nothing written). */
  insertCharge(charge: Charge): Promise<boolean>;
  findChargeByKey(idempotencyKey: string): Promise<Charge | undefined>;
  findCharge(merchantId: string, chargeId: string): Promise<Charge | undefined>;
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

  findPaymentMethod(merchantId: string, paymentMethodId: string): Promise<PaymentMethod | undefined>;
  lockPaymentMethod(paymentMethodId: string): Promise<PaymentMethod | undefined>;
  /** The merchant's customer's cards that are not removed, across processors, oldest first. */
  listPaymentMethods(merchantId: string, customerId: number): Promise<PaymentMethod[]>;
  /** Inserts the card unless the same processor card is already saved; returns the stored one either way. */
  saveNewPaymentMethod(method: PaymentMethod): Promise<{ method: PaymentMethod; created: boolean }>;
  savePaymentMethod(method: PaymentMethod): Promise<void>;

  /** The customer's id at the processor, created on first use. */
  processorCustomerRef(
    merchantId: string,
    customerId: number,
    processor: ProcessorId,
    at: Date,
  ): Promise<string>;

  insertRegistration(registration: CardRegistration): Promise<void>;
  lockRegistration(merchantId: string, registrationId: string): Promise<CardRegistration | undefined>;
  saveRegistration(registration: CardRegistration): Promise<void>;

  /** Outbox, in the current transaction. */
  publish(events: EventEnvelope[]): Promise<void>;
  /** Several pieces of work's events in one statement, each with its own trace context (`within`). */
  publishEach(events: Array<{ event: EventEnvelope; within: InContext }>): Promise<void>;
}
