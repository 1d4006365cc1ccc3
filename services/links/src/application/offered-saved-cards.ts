import type { MerchantContext } from '@payrail/contracts';
import { processorsForLink } from '../domain/pay-page';
import type { PaymentLink } from '../domain/payment-link';
import type { CardPayments, SavedCard } from '../ports/card-payments';

/** The cards of the customer the page may offer for this link: its processors only, not blocked. */
export async function offeredSavedCards(
  deps: { cards: CardPayments },
  merchant: MerchantContext,
  link: PaymentLink,
  customerId: number,
): Promise<SavedCard[]> {
  const processors = processorsForLink(link, merchant.processors);
  const cards = await deps.cards.savedCards(merchant, customerId);
  return cards.filter((card) => processors.includes(card.processor) && !card.blocked);
}
