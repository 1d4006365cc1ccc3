import type { Clock } from '@payrail/time';
import { documentKey, sameDocumentNumber } from '../domain/customer';
import type { PaymentLink } from '../domain/payment-link';
import type { CustomerRepository } from '../ports/customer-repository';

/**
 * A `noLoginRequired` link (spec 2.1) is paid without a login: the customer confirms the link's
 * `documentNumber`, and is the merchant's customer with that document number (created on first use), to
 * whom a card saved there belongs. Another number, or a link that asks for a login, identifies nobody.
 */
export async function identifyByDocument(
  deps: { customers: CustomerRepository; clock: Clock },
  link: Pick<PaymentLink, 'merchantId' | 'noLoginRequired' | 'documentNumber'>,
  typed: string,
): Promise<number | undefined> {
  if (!link.noLoginRequired || !link.documentNumber) return undefined;
  if (!sameDocumentNumber(typed, link.documentNumber)) return undefined;
  return deps.customers.findOrCreateByDocument({
    merchantId: link.merchantId,
    documentNumber: documentKey(link.documentNumber),
    now: deps.clock.now(),
  });
}
