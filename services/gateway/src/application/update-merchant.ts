import { MerchantNotFound } from '../domain/errors';
import { type MerchantSettings, updatedSettings } from '../domain/merchant';
import type { MerchantRecord } from '../ports/merchant-store';
import type { MerchantAdminDeps } from './deps';

/**
 * Changes a merchant's settings. Services learn them from the signed context of each request, so the
 * change applies from the merchant's next request on.
 */
export async function updateMerchant(
  deps: MerchantAdminDeps,
  merchantId: string,
  change: Partial<MerchantSettings>,
): Promise<MerchantRecord> {
  const current = await deps.merchants.find(merchantId);
  if (!current) throw new MerchantNotFound(merchantId);
  const settings = updatedSettings(current, change);
  const updated = await deps.merchants.update(merchantId, settings, deps.clock.now());
  if (!updated) throw new MerchantNotFound(merchantId);
  return updated;
}
