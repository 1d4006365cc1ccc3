import { randomUUID } from 'node:crypto';
import type { ApiTokenScope } from '@payrail/contracts';
import type { ApiTokenSummary } from '../../ports/merchant-store';
import { hashToken, newApiToken } from '../api-tokens';
import type { MerchantAdminDeps } from '../deps';
import { revokeApiToken } from '../revoke-api-token';

/** A token the merchant makes for an integration: its value answered once, only its hash kept. */
export async function createMerchantApiToken(
  deps: MerchantAdminDeps,
  merchantId: string,
  request: { name: string; scope: ApiTokenScope },
): Promise<ApiTokenSummary & { apiToken: string }> {
  const apiToken = newApiToken();
  const token = {
    tokenId: randomUUID(),
    tokenHash: hashToken(apiToken),
    createdAt: deps.clock.now(),
    name: request.name,
    scope: request.scope,
  };
  await deps.merchants.addToken(merchantId, token);
  return {
    tokenId: token.tokenId,
    name: request.name,
    scope: request.scope,
    createdAt: token.createdAt,
    lastUsedAt: null,
    revokedAt: null,
    apiToken,
  };
}

export async function listMerchantApiTokens(
  deps: MerchantAdminDeps,
  merchantId: string,
): Promise<ApiTokenSummary[]> {
  return deps.merchants.listTokens(merchantId);
}

/** Revoked at once on every replica (the token cache is dropped when the revocation commits). */
export async function revokeMerchantApiToken(
  deps: MerchantAdminDeps,
  merchantId: string,
  tokenId: string,
): Promise<void> {
  await revokeApiToken(deps, merchantId, tokenId);
}

/** A token's last use is written at most once a minute (`lastUsedAt` is to the minute). */
export const LAST_USED_RESOLUTION_MS = 60_000;

export async function recordTokenUse(deps: MerchantAdminDeps, tokenId: string): Promise<void> {
  const now = deps.clock.now();
  await deps.merchants.touchToken(tokenId, now, new Date(now.getTime() - LAST_USED_RESOLUTION_MS));
}
