import type { MerchantContext, Processor } from '@payrail/contracts';

/** A card of the customer's vault as processor-gateway tells it: brand, last 4, expiry; never the number. */
export interface VaultCard {
  paymentMethodId: string;
  processor: Processor;
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  blocked: boolean;
}

/** processor-gateway or the processor did not answer as expected. */
export class VaultUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultUnavailable';
  }
}

/** The saved-cards panel's view of the vault (processor-gateway's internal routes, a person waiting). */
export interface VaultCards {
  /** Every stored card of the customer at the merchant, across both processors (spec 1.7). */
  list(merchant: MerchantContext, customerId: number): Promise<VaultCard[]>;
  /** Removes the card at the processor and in the vault; `false` when it is not that customer's card. */
  remove(merchant: MerchantContext, customerId: number, paymentMethodId: string): Promise<boolean>;
}
