import { randomUUID } from 'node:crypto';
import { MerchantNotFound } from '../domain/errors';
import { hashToken, newApiToken } from './api-tokens';
import type { MerchantAdminDeps } from './deps';

/** Another token for the merchant (rotation: issue the new one, then revoke the old one). */
export async function issueApiToken(
  deps: MerchantAdminDeps,
  merchantId: string,
): Promise<{ tokenId: string; apiToken: string; createdAt: Date }> {
  const apiToken = newApiToken();
  const token = { tokenId: randomUUID(), tokenHash: hashToken(apiToken), createdAt: deps.clock.now() };
  if (!(await deps.merchants.addToken(merchantId, token))) throw new MerchantNotFound(merchantId);
  return { tokenId: token.tokenId, apiToken, createdAt: token.createdAt };
}
