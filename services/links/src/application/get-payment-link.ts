import type { MerchantContext } from '@payrail/contracts';
import { PaymentLinkNotFound } from '../domain/errors';
import { type PaymentLink, statusAt } from '../domain/payment-link';
import type { PaymentLinkRepository } from '../ports/payment-link-repository';
import type { Clock } from '@payrail/time';

export interface GetPaymentLinkDeps {
  links: PaymentLinkRepository;
  clock: Clock;
}

/** A merchant's own link with the status a reader should see now; another merchant's is not found. */
export async function getPaymentLink(
  deps: GetPaymentLinkDeps,
  merchant: MerchantContext,
  id: number,
): Promise<PaymentLink> {
  const link = await deps.links.findForMerchant(merchant.merchantId, id);
  if (!link) throw new PaymentLinkNotFound(id);
  return { ...link, statusId: statusAt(link, deps.clock.now()) };
}
