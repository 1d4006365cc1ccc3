import type {
  CustomerSubscriptionView,
  MerchantContext,
  Processor,
  SubscriptionOfLink,
} from '@payrail/contracts';

/** subscriptions did not answer, or not as agreed: the page cannot say what the schedule is now. */
export class SubscriptionsUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubscriptionsUnavailable';
  }
}

/**
 * What the pay page asks of subscriptions (the authority on installments), with the link's merchant
 * context: a customer is waiting and agrees to the schedule the page shows, so it is read where it is kept,
 * synchronously, never from a copy that may lag behind a merchant's change.
 */
export interface Subscriptions {
  /** The link's subscription as it is now; undefined when it has none (yet). Throws `SubscriptionsUnavailable`. */
  ofLink(merchant: MerchantContext, linkId: number): Promise<SubscriptionOfLink | undefined>;
  /** The customer's own page: their subscriptions at the merchant. Throws `SubscriptionsUnavailable`. */
  ofCustomer(merchant: MerchantContext, customerId: number): Promise<CustomerSubscriptionView[]>;
  /**
   * The subscription's card from now on; a declined installment is charged to it at once (exactly once).
   * Undefined: not this customer's subscription (or not active any more).
   */
  changeCard(
    merchant: MerchantContext,
    customerId: number,
    subscriptionId: number,
    card: { paymentMethodId: string; processor: Processor },
  ): Promise<{ subscription: CustomerSubscriptionView; charged: number[] } | undefined>;
  /** Cancelled by the customer; undefined: not this customer's subscription, or not active. */
  cancel(
    merchant: MerchantContext,
    customerId: number,
    subscriptionId: number,
  ): Promise<CustomerSubscriptionView | undefined>;
}
