import type { Clock } from '@payrail/time';
import {
  DOCUMENT_FAILURE_WINDOW_MS,
  DOCUMENT_FAILURES_PER_LINK,
  documentKey,
  sameDocumentNumber,
} from '../domain/customer';
import type { PaymentLink } from '../domain/payment-link';
import type { CustomerRepository } from '../ports/customer-repository';
import { hashRequester } from './login-codes';

export type DocumentIdentification =
  | { ok: true; customerId: number }
  | { ok: false; refused: 'mismatch' }
  | { ok: false; refused: 'too-many-tries'; retryAfterSeconds: number };

/**
 * A `noLoginRequired` link (spec 2.1) is paid without a login: the customer confirms the link's
 * `documentNumber`, and is the merchant's customer with that document number (created on first use), to
 * whom a card saved there belongs. Another number identifies nobody; after 5 wrong numbers in an hour the
 * link refuses every try until the hour of the oldest has passed.
 */
export async function identifyByDocument(
  deps: { customers: CustomerRepository; clock: Clock; secret: string },
  link: Pick<PaymentLink, 'id' | 'merchantId' | 'noLoginRequired' | 'documentNumber'>,
  request: { typed: string; requesterAddress: string },
): Promise<DocumentIdentification> {
  if (!link.noLoginRequired || !link.documentNumber) return { ok: false, refused: 'mismatch' };
  const now = deps.clock.now();
  const tried = await deps.customers.tryDocument({
    linkId: link.id,
    requesterHash: hashRequester(deps.secret, request.requesterAddress),
    matches: sameDocumentNumber(request.typed, link.documentNumber),
    now,
    windowStart: new Date(now.getTime() - DOCUMENT_FAILURE_WINDOW_MS),
    limit: DOCUMENT_FAILURES_PER_LINK,
  });
  if (tried.outcome === 'limited') {
    const allowedAt = tried.oldestCounted.getTime() + DOCUMENT_FAILURE_WINDOW_MS;
    return {
      ok: false,
      refused: 'too-many-tries',
      retryAfterSeconds: Math.max(1, Math.ceil((allowedAt - now.getTime()) / 1000)),
    };
  }
  if (tried.outcome === 'wrong') return { ok: false, refused: 'mismatch' };
  const customerId = await deps.customers.findOrCreateByDocument({
    merchantId: link.merchantId,
    documentNumber: documentKey(link.documentNumber),
    now,
  });
  return { ok: true, customerId };
}
