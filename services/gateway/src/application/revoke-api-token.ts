import { ApiTokenNotFound } from '../domain/errors';
import type { MerchantAdminDeps } from './deps';

/**
 * Revokes a token. Every merchant request looks its token up afresh (no cache), so the next request
 * with it is already refused.
 */
export async function revokeApiToken(
  deps: MerchantAdminDeps,
  merchantId: string,
  tokenId: string,
): Promise<void> {
  if (!(await deps.merchants.revokeToken(merchantId, tokenId, deps.clock.now())))
    throw new ApiTokenNotFound(tokenId);
}
