import type { EventEnvelope } from '@payrail/contracts';
import type { PaymentLink, PaymentLinkDraft } from '../domain/payment-link';

export interface PaymentLinkRepository {
  /**
   * Stores the link and, in the same transaction, the event built from it (outbox): either both are
   * stored or neither.
   */
  createWithEvent(draft: PaymentLinkDraft, eventFor: (link: PaymentLink) => EventEnvelope): Promise<PaymentLink>;
  findForMerchant(merchantId: string, id: number): Promise<PaymentLink | undefined>;
}
