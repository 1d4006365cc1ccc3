import type { MerchantContext } from '@payrail/contracts';
import { CardPaymentsUnavailable } from '../ports/card-payments';
import type { LinkPayment } from '../ports/link-payment-repository';
import {
  chargeCard,
  type PayLinkDeps,
  type PaymentStep,
  stepFromCharge,
  stepOfSettled,
} from './payment-steps';
import { settleAttempt } from './settle-attempt';

/**
 * The browser came back from the processor's form for attempt `n` (or asks again while waiting): finish a
 * card registration and charge the new card, or read the charge, and write the outcome.
 */
export async function resumePayment(
  deps: PayLinkDeps,
  request: { slug: string; paymentNumber: number; registrationStatus?: string; cancelled?: boolean },
): Promise<PaymentStep> {
  const link = await deps.links.findBySlug(request.slug);
  if (!link) return { kind: 'not-found' };
  const attempt = await deps.payments.find(link.id, request.paymentNumber);
  if (!attempt) return { kind: 'not-found' };
  if (attempt.status !== 'open') return stepOfSettled(link, attempt);
  const merchant = await deps.merchants.find(link.merchantId);
  if (!merchant) throw new CardPaymentsUnavailable(`no settings known for merchant ${link.merchantId}`);
  if (attempt.kind === 'registration' && !attempt.chargeId) {
    if (!attempt.paymentMethodId) {
      const card = await registeredCard(deps, merchant, attempt, request.registrationStatus);
      if (!card) {
        const settled = await settleAttempt(deps, attempt, {
          kind: 'failed',
          chargeId: null,
          declineCode: request.cancelled ? 'CANCELLED' : 'CARD_NOT_REGISTERED',
          category: 'hard',
          abandoned: request.cancelled === true,
        });
        return settled ? stepOfSettled(settled.link, settled.attempt) : { kind: 'not-found' };
      }
      await deps.payments.record(link.id, attempt.paymentNumber, { paymentMethodId: card });
      attempt.paymentMethodId = card;
    }
    return chargeCard(deps, merchant, link, attempt);
  }
  const charge = await deps.cards.linkCharge(merchant, link.id, attempt.paymentNumber);
  return stepFromCharge(deps, link, attempt, charge);
}

/** The card a registration saved, if the processor accepted it. */
async function registeredCard(
  deps: PayLinkDeps,
  merchant: MerchantContext,
  attempt: LinkPayment,
  status: string | undefined,
): Promise<string | undefined> {
  if (!attempt.registrationId || status === 'add_new_card_fail') return undefined;
  const { saved, all } = await deps.cards.completeCardRegistration(merchant, attempt.registrationId);
  const mine = saved.find((card) => card.processor === attempt.processor);
  if (mine) return mine.paymentMethodId;
  // Finished before (a reload after a lost answer): the newest card of the customer there is this one.
  if (status !== 'add_new_card_success') return undefined;
  const newest = [...all]
    .filter((card) => card.processor === attempt.processor)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  return newest?.paymentMethodId;
}
