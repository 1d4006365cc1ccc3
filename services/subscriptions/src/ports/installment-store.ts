import type { AmountUpdate, DateMatch } from '../domain/bulk';
import type { Installment } from '../domain/installment';
import type { Subscription } from '../domain/subscription';

export type NewInstallment = Omit<Installment, 'id' | 'subscriptionId'>;

/** An installment and its subscription, as the merchant's lookups and the charges find them. */
export interface FoundInstallment {
  subscription: Subscription;
  installment: Installment;
}

/**
 * The installments of the subscriptions. An installment is changed under its subscription's row lock: the
 * lookups that find one to change it lock the subscription first, then read the installment, so what is
 * read is what the lock protects. Writes re-check the status each installment was read in.
 */
export interface InstallmentStore {
  /** The installment and its subscription (locked), only when the subscription is the merchant's. */
  findInstallment(merchantId: string, installmentId: number): Promise<FoundInstallment | undefined>;

  /**
   * Batch: as `findInstallment` for many installments (each only when its subscription is that merchant's),
   * with their subscriptions locked in one statement, in id order (so batches never deadlock each other),
   * then the installments read as the locks protect them. By installment id.
   */
  findInstallmentsForUpdate(
    refs: Array<{ merchantId: string; installmentId: number }>,
  ): Promise<Map<number, FoundInstallment>>;

  /**
   * Batch, for charge outcomes: the subscriptions of the installments (each only when its subscription is
   * that merchant's) locked in one statement, in id order, as `findInstallmentsForUpdate`, then every
   * installment of those subscriptions in one more (by number). A subscription locked for one merchant's
   * installment may hold an installment another ref names with another merchant: the caller checks.
   */
  lockSubscriptionsOfInstallments(
    refs: Array<{ merchantId: string; installmentId: number }>,
  ): Promise<Array<{ subscription: Subscription; installments: Installment[] }>>;

  /** As `findInstallment`, without the lock (for reading). */
  readInstallment(merchantId: string, installmentId: number): Promise<FoundInstallment | undefined>;

  installmentsOf(subscriptionId: number): Promise<Installment[]>;
  /** Set-based. Throws `InvoiceNumberTaken` when an invoice number is already used in the subscription. */
  insertInstallments(
    subscriptionId: number,
    installments: NewInstallment[],
    at: Date,
  ): Promise<Installment[]>;
  /**
   * Batch: `insertInstallments` for several subscriptions in one statement, each draft naming its own. A
   * number its subscription already has fails the whole statement (the unique (subscription, number)).
   */
  insertInstallmentsOfMany(
    installments: Array<NewInstallment & { subscriptionId: number }>,
    at: Date,
  ): Promise<Installment[]>;
  /**
   * Stores new versions of installments in one statement; each must still be in the status it was read
   * in (`before`), else `ConcurrentModification` and nothing is stored. `clearNextAttempt`: their next
   * attempt day goes too, in the same statement (`setNextAttempt(id, null, null)` for each).
   */
  saveInstallments(
    changes: Array<{ before: Installment; after: Installment }>,
    at: Date,
    options?: { clearNextAttempt?: boolean },
  ): Promise<void>;
  /**
   * Bulk: applies each amount to the single pending installment (from the 2nd on) of its subscription on
   * its date, in one statement, and reports for every update what its date matched.
   */
  updateAmountsOnDates(updates: AmountUpdate[], at: Date): Promise<DateMatch[]>;
}
