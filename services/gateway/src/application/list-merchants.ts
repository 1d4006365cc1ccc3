import type { MerchantAdminDeps } from './deps';
import type { MerchantListEntry } from '../ports/merchant-store';

export interface MerchantPage {
  merchants: MerchantListEntry[];
  /** Where the next page starts after; null on the last page. */
  next: { createdAt: Date; id: string } | null;
}

/** `GET /admin/merchants`: one page of merchants, newest first. */
export async function listMerchants(
  deps: Pick<MerchantAdminDeps, 'merchants'>,
  page: { after: { createdAt: Date; id: string } | null; limit: number },
): Promise<MerchantPage> {
  // One more than asked: whether another page exists is known without a count.
  const found = await deps.merchants.list({ after: page.after, limit: page.limit + 1 });
  const merchants = found.slice(0, page.limit);
  const last = merchants.at(-1);
  return {
    merchants,
    next: found.length > page.limit && last ? { createdAt: last.createdAt, id: last.id } : null,
  };
}
