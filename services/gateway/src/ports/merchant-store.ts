import type { MerchantContext } from '@payrail/contracts';

export interface MerchantStore {
  /** The merchant owning a live (not revoked) token with this hash. */
  findByTokenHash(tokenHash: string): Promise<MerchantContext | undefined>;
  /** Creates the merchant if absent and attaches the token hash if absent (demo seeding). */
  ensureMerchantWithToken(merchant: MerchantContext, tokenHash: string): Promise<void>;
}
