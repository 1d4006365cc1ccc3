import { ApiTokenNotFound } from '../domain/errors';
import type { MerchantAdminDeps } from './deps';

/**
 * Revokes a token. The token cache of every gateway replica is dropped when the revocation commits
 * (NOTIFY; this replica's at once), so the next request with it is already refused.
 */
export async function revokeApiToken(
  deps: MerchantAdminDeps,
  merchantId: string,
  tokenId: string,
): Promise<void> {
  if (!(await deps.merchants.revokeToken(merchantId, tokenId, deps.clock.now())))
    throw new ApiTokenNotFound(tokenId);
}
