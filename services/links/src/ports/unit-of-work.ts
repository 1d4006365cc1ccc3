import type { UnitOfWork } from '@payrail/messaging';
import type { CustomerEmailStore } from './customer-email-store';
import type { LinkManagementRepository } from './link-management-repository';
import type { LinkPaymentRepository } from './link-payment-repository';
import type { MerchantProfiles } from './merchant-profiles';

/**
 * The stores links' consumers write through, each bound to one transaction (the consumer's: its inbox row,
 * these stores' writes and the outbox rows of their events commit together).
 */
export interface LinksStores {
  /** A link's pay page attempts and their outcome (paid, rejected, expired). */
  payments: LinkPaymentRepository;
  /** The merchant's side of a link: listing and cancelling. */
  management: LinkManagementRepository;
  /** What the customer e-mails know of subscriptions and cards, and their outbox (issue 29). */
  emails: CustomerEmailStore;
  /** The merchant's stored context, read in the same transaction. */
  merchants: Pick<MerchantProfiles, 'find'>;
}

/** How links' consumers run their use cases: libs/messaging's unit of work over its stores. */
export type LinksUnitOfWork = UnitOfWork<LinksStores>;
