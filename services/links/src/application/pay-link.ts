import type { MerchantContext, Processor } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import { isPayable, type PayOption, payOptions, processorsForLink } from '../domain/pay-page';
import { LinkStatus, type PaymentLink } from '../domain/payment-link';
import {
  type CardPayments,
  CardPaymentsUnavailable,
  type ChargeView,
  type HostedForm,
  PaymentAttemptUsed,
  type SavedCard,
} from '../ports/card-payments';
import type {
  LinkPayment,
  LinkPaymentRepository,
  NewLinkPayment,
  PaymentOutcome,
} from '../ports/link-payment-repository';
import type { MerchantProfiles } from '../ports/merchant-profiles';
import type { PaymentLinkRepository } from '../ports/payment-link-repository';
import { linkExpiredEvent, linkPaidByCardEvent, linkPaymentFailedEvent } from './events';

export interface PayLinkDeps {
  links: PaymentLinkRepository;
  payments: LinkPaymentRepository;
  merchants: MerchantProfiles;
  cards: CardPayments;
  clock: Clock;
  /** Where the processors send the browser back: the public origin of the pay page. */
  publicBaseUrl: string;
}

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

/** Where the customer's browser goes next. */
export type PaymentStep =
  | { kind: 'not-found' }
  /** Not payable (paid, expired, cancelled) or the choice was not one the page offered: back to the page. */
  | { kind: 'back-to-page'; link: PaymentLink }
  /** PROCESSOR_A: its form in an iframe inside our page. */
  | { kind: 'iframe'; link: PaymentLink; attempt: LinkPayment; formUrl: string }
  /** PROCESSOR_B: its own page. */
  | { kind: 'redirect'; link: PaymentLink; attempt: LinkPayment; url: string }
  | { kind: 'paid'; link: PaymentLink }
  | { kind: 'declined'; link: PaymentLink }
  /** The processor has not confirmed yet: the page asks again shortly. */
  | { kind: 'waiting'; link: PaymentLink; attempt: LinkPayment };

/** A choice that the page did not offer (a tampered form): nothing is started. */
export class ChoiceNotOffered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChoiceNotOffered';
  }
}

class NotPayable extends Error {}

/** How long a second tab waits for the form another tab is opening for the same attempt. */
const HOSTED_FORM_WAITS = 20;
const HOSTED_FORM_WAIT_MS = 250;

/** processor-gateway's decline code of a hosted form nobody paid before it expired. */
const ABANDONED = 'ABANDONED';

/** The path, under the pay page, where a processor sends the browser back after attempt `n`. */
export function returnPath(slug: string, paymentNumber: number): string {
  return `/pay/${encodeURIComponent(slug)}/return/${paymentNumber}`;
}

function returnUrl(deps: PayLinkDeps, slug: string, paymentNumber: number): string {
  return new URL(returnPath(slug, paymentNumber), deps.publicBaseUrl).toString();
}

/** The cards of the customer the page may offer for this link: its processors only, not blocked. */
export async function offeredSavedCards(
  deps: Pick<PayLinkDeps, 'cards'>,
  merchant: MerchantContext,
  link: PaymentLink,
  customerId: number,
): Promise<SavedCard[]> {
  const processors = processorsForLink(link, merchant.processors);
  const cards = await deps.cards.savedCards(merchant, customerId);
  return cards.filter((card) => processors.includes(card.processor) && !card.blocked);
}

const paymentEvents = (at: Date, outcome: PaymentOutcome) => ({
  paid: (link: PaymentLink, attempt: LinkPayment) =>
    linkPaidByCardEvent(link, attempt, attempt.chargeId ?? '', at, {
      processorReference: outcome.processorReference ?? null,
      authorizationCode: outcome.kind === 'succeeded' ? (outcome.authorizationCode ?? null) : null,
    }),
  failed: (link: PaymentLink, attempt: LinkPayment) =>
    linkPaymentFailedEvent(link, attempt, at, outcome.processorReference ?? null),
});

/**
 * Writes an attempt's outcome: the link paid (once, with `link.paid`) or rejected (5, with
 * `link.payment-failed`). Used by the browser's return and by the payment events alike.
 */
export async function settleAttempt(
  deps: Pick<PayLinkDeps, 'payments' | 'clock'>,
  attempt: Pick<LinkPayment, 'linkId' | 'paymentNumber'>,
  outcome: PaymentOutcome,
) {
  const at = deps.clock.now();
  return deps.payments.settle(attempt.linkId, attempt.paymentNumber, outcome, at, paymentEvents(at, outcome));
}

function outcomeOf(charge: ChargeView): PaymentOutcome | undefined {
  if (charge.status === 'succeeded') {
    return {
      kind: 'succeeded',
      chargeId: charge.chargeId,
      paymentMethodId: charge.paymentMethodId,
      processorReference: charge.processorReference ?? null,
      authorizationCode: charge.authorizationCode ?? null,
    };
  }
  if (charge.status === 'failed') {
    return {
      kind: 'failed',
      chargeId: charge.chargeId,
      processorReference: charge.processorReference ?? null,
      declineCode: charge.declineCode ?? 'UNKNOWN',
      category: charge.category ?? 'hard',
      // A hosted form left unused until it expired declined nobody.
      abandoned: charge.declineCode === ABANDONED,
    };
  }
  return undefined;
}

/** The step after processor-gateway told the charge's state. */
async function stepFromCharge(
  deps: PayLinkDeps,
  link: PaymentLink,
  attempt: LinkPayment,
  charge: ChargeView | undefined,
): Promise<PaymentStep> {
  const outcome = charge ? outcomeOf(charge) : undefined;
  if (!outcome) return { kind: 'waiting', link, attempt };
  const settled = await settleAttempt(deps, attempt, outcome);
  if (!settled) return { kind: 'not-found' };
  return stepOfSettled(settled.link, settled.attempt);
}

function stepOfSettled(link: PaymentLink, attempt: LinkPayment): PaymentStep {
  if (attempt.status === 'succeeded') return { kind: 'paid', link };
  return { kind: 'declined', link };
}

function formStep(link: PaymentLink, attempt: LinkPayment, form: HostedForm): PaymentStep {
  return form.kind === 'iframe'
    ? { kind: 'iframe', link, attempt, formUrl: form.formUrl }
    : { kind: 'redirect', link, attempt, url: form.url };
}

/** Charges the attempt's (saved) card with the attempt's key; a repeat answers the same charge. */
async function chargeCard(
  deps: PayLinkDeps,
  merchant: MerchantContext,
  link: PaymentLink,
  attempt: LinkPayment,
): Promise<PaymentStep> {
  if (!attempt.paymentMethodId || attempt.customerId === null) throw new Error('no card to charge');
  let charge: ChargeView | undefined;
  try {
    charge = await deps.cards.chargeSavedCard(merchant, {
      linkId: link.id,
      paymentNumber: attempt.paymentNumber,
      customerId: attempt.customerId,
      paymentMethodId: attempt.paymentMethodId,
      amount: link.amount,
      currency: link.currency,
      description: link.label,
    });
  } catch (error) {
    // Another tab charged this attempt with another card: that charge is the attempt's.
    if (!(error instanceof PaymentAttemptUsed)) throw error;
    charge = await deps.cards.linkCharge(merchant, link.id, attempt.paymentNumber);
  }
  if (charge) await deps.payments.record(link.id, attempt.paymentNumber, { chargeId: charge.chargeId });
  return stepFromCharge(deps, link, attempt, charge);
}

/** Runs an attempt from where it stands: opens its form, or charges its card. */
async function proceed(
  deps: PayLinkDeps,
  merchant: MerchantContext,
  link: PaymentLink,
  attempt: LinkPayment,
): Promise<PaymentStep> {
  const back = returnUrl(deps, link.slug, attempt.paymentNumber);
  switch (attempt.kind) {
    case 'hosted': {
      const request = {
        linkId: link.id,
        paymentNumber: attempt.paymentNumber,
        processor: attempt.processor,
        amount: link.amount,
        currency: link.currency,
        description: link.label,
        returnUrl: back,
        cancelUrl: `${back}?cancelled=1`,
      };
      for (let tries = 1; ; tries++) {
        try {
          const { charge, form } = await deps.cards.openHostedPayment(merchant, request);
          await deps.payments.record(link.id, attempt.paymentNumber, {
            chargeId: charge.chargeId,
            processorReference: form.kind === 'iframe' ? form.processId : form.hash,
          });
          return formStep(link, attempt, form);
        } catch (error) {
          if (!(error instanceof PaymentAttemptUsed)) throw error;
          // The attempt's form was used up (paid, declined or expired): its charge tells how it ended.
          const charge = await deps.cards.linkCharge(merchant, link.id, attempt.paymentNumber);
          // Still pending: another tab is opening this very form right now; it is ours too once opened.
          if (charge?.status === 'pending' && tries < HOSTED_FORM_WAITS) {
            await new Promise((resolve) => setTimeout(resolve, HOSTED_FORM_WAIT_MS));
            continue;
          }
          return stepFromCharge(deps, link, attempt, charge);
        }
      }
    }
    case 'saved-card':
      return chargeCard(deps, merchant, link, attempt);
    case 'registration': {
      if (attempt.customerId === null) throw new Error('a registration needs a customer');
      const { registrationId, form } = await deps.cards.openCardRegistration(merchant, {
        customerId: attempt.customerId,
        processor: attempt.processor,
        returnUrl: back,
        linkId: link.id,
      });
      await deps.payments.record(link.id, attempt.paymentNumber, {
        registrationId,
        processorReference: form.kind === 'iframe' ? form.processId : form.hash,
      });
      return formStep(link, attempt, form);
    }
  }
}

/** Expires the link now if its validity passed (statusId 6 and `link.expired`), as a reader finds it. */
export async function expireIfDue(
  deps: Pick<PayLinkDeps, 'payments' | 'clock'>,
  link: PaymentLink,
): Promise<PaymentLink> {
  const now = deps.clock.now();
  if (!link.expiresAt || link.expiresAt.getTime() > now.getTime()) return link;
  if (link.statusId !== LinkStatus.PENDING && link.statusId !== LinkStatus.LAST_ATTEMPT_REJECTED) return link;
  const [expired] = await deps.payments.expireDue(now, 1, (l) => linkExpiredEvent(l, now), link.id);
  return expired ?? link;
}

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

/** PROCESSOR_B sends the browser back with its order hash only: the attempt it belongs to. */
export async function attemptOfProcessorReference(
  deps: Pick<PayLinkDeps, 'payments'>,
  processor: Processor,
  reference: string,
): Promise<{ slug: string; paymentNumber: number } | undefined> {
  const found = await deps.payments.findByProcessorReference(processor, reference);
  return found ? { slug: found.slug, paymentNumber: found.attempt.paymentNumber } : undefined;
}
