import { MerchantNotFound } from '../domain/errors';
import type { MerchantRecord } from '../ports/merchant-store';
import type { MerchantAdminDeps } from './deps';

export async function getMerchant(deps: MerchantAdminDeps, merchantId: string): Promise<MerchantRecord> {
  const merchant = await deps.merchants.find(merchantId);
  if (!merchant) throw new MerchantNotFound(merchantId);
  return merchant;
}
