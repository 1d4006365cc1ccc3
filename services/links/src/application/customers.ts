import type { MerchantContext } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import { CustomerNotFound } from '../domain/errors';
import { statusAt } from '../domain/payment-link';
import { type CardPayments, CardPaymentsUnavailable, type SavedCard } from '../ports/card-payments';
import type { CustomerDirectory, CustomerEntry } from '../ports/customer-directory';

/** A customer's page shows at most this many of their links. */
export const CUSTOMER_LINKS_SHOWN = 50;

export interface CustomersDeps {
  customers: CustomerDirectory;
  cards: CardPayments;
  clock: Clock;
}

/** `GET /api/customers`: one page of the merchant's customers, newest first. */
export async function listCustomers(
  deps: Pick<CustomersDeps, 'customers'>,
  merchant: MerchantContext,
  filter: { search?: string },
  page: { beforeId: number | null; limit: number },
): Promise<{ customers: CustomerEntry[]; nextBeforeId: number | null }> {
  // One more than asked: whether another page exists is known without a count.
  const found = await deps.customers.list(merchant.merchantId, filter, { ...page, limit: page.limit + 1 });
  const customers = found.slice(0, page.limit);
  const last = customers.at(-1);
  return { customers, nextBeforeId: found.length > page.limit && last ? last.id : null };
}

/**
 * `GET /api/customers/{id}`: the customer, their links (with the status a reader sees now) and their saved
 * cards at every processor (processor-gateway's vault; null when it cannot be asked now). 404 for another
 * merchant's customer.
 */
export async function getCustomer(deps: CustomersDeps, merchant: MerchantContext, customerId: number) {
  const customer = await deps.customers.find(merchant.merchantId, customerId);
  if (!customer) throw new CustomerNotFound(customerId);
  const now = deps.clock.now();
  const [links, savedCards] = await Promise.all([
    deps.customers.linksOf(merchant.merchantId, customerId, CUSTOMER_LINKS_SHOWN),
    deps.cards.savedCards(merchant, customerId).catch((error: unknown): SavedCard[] | null => {
      if (error instanceof CardPaymentsUnavailable) return null;
      throw error;
    }),
  ]);
  return {
    customer,
    links: links.map((link) => ({ ...link, statusId: statusAt(link, now) })),
    savedCards,
  };
}
