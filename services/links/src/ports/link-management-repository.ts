import type { EventEnvelope, PaymentLinkStatusName } from '@payrail/contracts';
import type { PaymentLink } from '../domain/payment-link';

/** What a merchant filters its links by; every field optional. */
export interface LinkFilter {
  /** As a reader sees it now: a payable link past its expiry is `expired`. */
  status?: PaymentLinkStatusName;
  customIdentifier?: string;
  /** Text in the label, the customer (name, e-mail or phone) or either identifier, whatever its case. */
  search?: string;
  /** Created at or after this instant. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
}

/** The merchant's view over its links: listing and cancelling. */
export interface LinkManagementRepository {
  /** The merchant's links matching `filter`, newest first, with ids below `beforeId` when given. */
  list(
    merchantId: string,
    filter: LinkFilter,
    page: { beforeId: number | null; limit: number },
    now: Date,
  ): Promise<PaymentLink[]>;
  /** How many of the merchant's links are in each status as a reader sees it now (expiry counted). */
  countByStatus(merchantId: string, now: Date): Promise<Record<PaymentLinkStatusName, number>>;
  /**
   * In one transaction: locks the merchant's link (undefined when there is none), lets `check` refuse it
   * (it throws; nothing is stored), marks it cancelled (statusId 7) and stores the event built from it.
   */
  cancel(
    request: { merchantId: string; linkId: number },
    check: (link: PaymentLink) => void,
    eventFor: (link: PaymentLink) => EventEnvelope,
  ): Promise<PaymentLink | undefined>;
  /**
   * Like `cancel`, but a link `shouldCancel` declines is left as it is: answers the cancelled link, or
   * undefined when nothing changed.
   */
  cancelIf(
    request: { merchantId: string; linkId: number },
    shouldCancel: (link: PaymentLink) => boolean,
    eventFor: (link: PaymentLink) => EventEnvelope,
  ): Promise<PaymentLink | undefined>;
}
