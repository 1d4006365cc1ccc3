import { randomUUID } from 'node:crypto';
import { newMerchantSettings, type NewMerchantRequest } from '../domain/merchant';
import type { MerchantRecord } from '../ports/merchant-store';
import { hashToken, newApiToken } from './api-tokens';
import type { MerchantAdminDeps } from './deps';

/** A new merchant with its first token. The clear token is returned once: only its hash is stored. */
export async function createMerchant(
  deps: MerchantAdminDeps,
  request: NewMerchantRequest,
): Promise<{ merchant: MerchantRecord; tokenId: string; apiToken: string }> {
  const settings = newMerchantSettings(request);
  const now = deps.clock.now();
  const apiToken = newApiToken();
  const tokenId = randomUUID();
  const merchant = await deps.merchants.create(
    { id: randomUUID(), settings, createdAt: now },
    { tokenId, tokenHash: hashToken(apiToken), createdAt: now },
  );
  return { merchant, tokenId, apiToken };
}
