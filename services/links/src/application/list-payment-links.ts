import type { MerchantContext } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import { type PaymentLink, statusAt } from '../domain/payment-link';
import type { LinkFilter, LinkManagementRepository } from '../ports/link-management-repository';

export interface PaymentLinkPage {
  /** Newest first, each with the status a reader should see now. */
  links: PaymentLink[];
  /** The id to continue below; null on the last page. */
  nextBeforeId: number | null;
}

/** `GET /api/payrequests`: the merchant's links matching the filter, newest first, one page. */
export async function listPaymentLinks(
  deps: { management: LinkManagementRepository; clock: Clock },
  merchant: MerchantContext,
  filter: LinkFilter,
  page: { beforeId: number | null; limit: number },
): Promise<PaymentLinkPage> {
  const now = deps.clock.now();
  // One more than asked: whether another page exists is known without a count.
  const found = await deps.management.list(
    merchant.merchantId,
    filter,
    { beforeId: page.beforeId, limit: page.limit + 1 },
    now,
  );
  const links = found.slice(0, page.limit).map((link) => ({ ...link, statusId: statusAt(link, now) }));
  const last = links.at(-1);
  return { links, nextBeforeId: found.length > page.limit && last ? last.id : null };
}

/** `GET /api/payrequests/summary`: how many of the merchant's links are in each status now. */
export function summarizePaymentLinks(
  deps: { management: LinkManagementRepository; clock: Clock },
  merchant: MerchantContext,
) {
  return deps.management.countByStatus(merchant.merchantId, deps.clock.now());
}
