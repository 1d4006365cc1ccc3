import type { MerchantContext, Processor } from '@payrail/contracts';
import { isPayable, type PayOption, payOptions, processorsForLink } from '../domain/pay-page';
import type { PaymentLink } from '../domain/payment-link';
import { CardPaymentsUnavailable } from '../ports/card-payments';
import type { LinkPayment, NewLinkPayment } from '../ports/link-payment-repository';
import { expireIfDue } from './expire-if-due';
import { offeredSavedCards } from './offered-saved-cards';
import { type PayLinkDeps, type PaymentStep, proceed } from './payment-steps';

/** What the customer chose on the page. */
export interface PayChoice {
  option: PayOption;
  /** One click on a saved card. */
  savedCardId?: string;
  /** A new card on this processor's form. */
  processor?: Processor;
  /** Single payment with a new card: keep the card for later. */
  saveCard: boolean;
}

export interface Payer {
  merchantId: string;
  customerId: number;
}

/** A choice that the page did not offer (a tampered form): nothing is started. */
export class ChoiceNotOffered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChoiceNotOffered';
  }
}

class NotPayable extends Error {}

/**
 * The customer pressed pay: under the link's lock, continue the attempt in progress (so a double click,
 * a second tab or a retry charge once) or start the next one, then open its form or charge its card.
 */
export async function startPayment(
  deps: PayLinkDeps,
  request: { slug: string; payer: Payer; choice: PayChoice },
): Promise<PaymentStep> {
  const found = await deps.links.findBySlug(request.slug);
  if (!found || found.merchantId !== request.payer.merchantId) return { kind: 'not-found' };
  const merchant = await deps.merchants.find(found.merchantId);
  if (!merchant) throw new CardPaymentsUnavailable(`no settings known for merchant ${found.merchantId}`);
  const now = deps.clock.now();
  if (!isPayable(found, now)) {
    return { kind: 'back-to-page', link: await expireIfDue(deps, found) };
  }
  const choice = await validChoice(deps, merchant, found, request.payer, request.choice);
  let started: { link: PaymentLink; attempt: LinkPayment } | undefined;
  try {
    started = await deps.payments.startOrContinue(request.slug, now, (link, open) => {
      if (!isPayable(link, now)) throw new NotPayable();
      // A hosted form may be paid at any moment, and a charge once made is the attempt's: continue it.
      if (open && (open.kind === 'hosted' || open.chargeId)) return 'continue';
      return choice;
    });
  } catch (error) {
    if (!(error instanceof NotPayable)) throw error;
    const link = (await deps.links.findBySlug(request.slug)) ?? found;
    return { kind: 'back-to-page', link };
  }
  if (!started) return { kind: 'not-found' };
  return proceed(deps, merchant, started.link, started.attempt);
}

async function validChoice(
  deps: PayLinkDeps,
  merchant: MerchantContext,
  link: PaymentLink,
  payer: Payer,
  choice: PayChoice,
): Promise<NewLinkPayment> {
  if (!payOptions(link).includes(choice.option)) throw new ChoiceNotOffered(`${choice.option} not offered`);
  const subscription = choice.option === 'subscription';
  if (choice.savedCardId) {
    const card = (await offeredSavedCards(deps, merchant, link, payer.customerId)).find(
      (candidate) => candidate.paymentMethodId === choice.savedCardId,
    );
    if (!card) throw new ChoiceNotOffered('that saved card is not offered');
    return {
      kind: 'saved-card',
      processor: card.processor,
      customerId: payer.customerId,
      subscription,
      paymentMethodId: card.paymentMethodId,
    };
  }
  const processor = choice.processor;
  if (!processor || !processorsForLink(link, merchant.processors).includes(processor)) {
    throw new ChoiceNotOffered('processor not offered');
  }
  return {
    // A subscription keeps the card to charge the next installments; a one-off payment only if asked.
    kind: subscription || choice.saveCard ? 'registration' : 'hosted',
    processor,
    customerId: payer.customerId,
    subscription,
    paymentMethodId: null,
  };
}
