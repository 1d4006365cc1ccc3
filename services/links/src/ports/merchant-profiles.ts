import type { MerchantContext } from '@payrail/contracts';

/**
 * The merchant settings the pay page needs (name, processors, time zone), as the gateway last signed them.
 * The public pay page has no signed merchant context of its own: links keeps the latest one it was given.
 */
export interface MerchantProfiles {
  /** Stores the context when it differs from what is kept (insert or update). */
  remember(merchant: MerchantContext, at: Date): Promise<void>;
  find(merchantId: string): Promise<MerchantContext | undefined>;
}
