import type { MerchantContext } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import type { PaymentLink } from '../domain/payment-link';
import {
  type CardPayments,
  type ChargeView,
  type HostedForm,
  PaymentAttemptUsed,
  type SavedCard,
} from '../ports/card-payments';
import type { LinkPayment, LinkPaymentRepository, PaymentOutcome } from '../ports/link-payment-repository';
import type { MerchantProfiles } from '../ports/merchant-profiles';
import type { PaymentLinkRepository } from '../ports/payment-link-repository';
import { ABANDONED, settleAttempt } from './settle-attempt';

/**
 * The steps of a pay page attempt that starting it (`start-payment.ts`) and resuming it
 * (`resume-payment.ts`) share: open its form or charge its card, read the charge, write the outcome, and
 * where the customer's browser goes next.
 */

/** What paying a link is given: the link's stores, processor-gateway, the clock and the public origin. */
export interface PayLinkDeps {
  links: PaymentLinkRepository;
  payments: LinkPaymentRepository;
  merchants: MerchantProfiles;
  cards: CardPayments;
  clock: Clock;
  /** Where the processors send the browser back: the public origin of the pay page. */
  publicBaseUrl: string;
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

/** How long a second tab waits for the form another tab is opening for the same attempt. */
const HOSTED_FORM_WAITS = 20;
const HOSTED_FORM_WAIT_MS = 250;

/** The path, under the pay page, where a processor sends the browser back after attempt `n`. */
export function returnPath(slug: string, paymentNumber: number): string {
  return `/pay/${encodeURIComponent(slug)}/return/${paymentNumber}`;
}

function returnUrl(deps: PayLinkDeps, slug: string, paymentNumber: number): string {
  return new URL(returnPath(slug, paymentNumber), deps.publicBaseUrl).toString();
}

function outcomeOf(charge: ChargeView, card?: SavedCard): PaymentOutcome | undefined {
  if (charge.status === 'succeeded') {
    return {
      kind: 'succeeded',
      chargeId: charge.chargeId,
      paymentMethodId: charge.paymentMethodId,
      processorReference: charge.processorReference ?? null,
      authorizationCode: charge.authorizationCode ?? null,
      card: card ? { brand: card.brand, last4: card.last4 } : null,
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

/**
 * The step after processor-gateway told the charge's state; `card`: the vault card charged, when this
 * process knows it (else `payment.succeeded` names it to the link afterwards).
 */
export async function stepFromCharge(
  deps: PayLinkDeps,
  link: PaymentLink,
  attempt: LinkPayment,
  charge: ChargeView | undefined,
  card?: SavedCard,
): Promise<PaymentStep> {
  const outcome = charge ? outcomeOf(charge, card) : undefined;
  if (!outcome) return { kind: 'waiting', link, attempt };
  const settled = await settleAttempt(deps, attempt, outcome);
  if (!settled) return { kind: 'not-found' };
  return stepOfSettled(settled.link, settled.attempt);
}

export function stepOfSettled(link: PaymentLink, attempt: LinkPayment): PaymentStep {
  if (attempt.status === 'succeeded') return { kind: 'paid', link };
  return { kind: 'declined', link };
}

function formStep(link: PaymentLink, attempt: LinkPayment, form: HostedForm): PaymentStep {
  return form.kind === 'iframe'
    ? { kind: 'iframe', link, attempt, formUrl: form.formUrl }
    : { kind: 'redirect', link, attempt, url: form.url };
}

/** Charges the attempt's (saved) card with the attempt's key; a repeat answers the same charge. */
export async function chargeCard(
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
  const card =
    charge?.status === 'succeeded' ? await chargedCard(deps, merchant, attempt, charge) : undefined;
  return stepFromCharge(deps, link, attempt, charge, card);
}

/**
 * The vault card an approved charge took (brand and last 4 for the link's retrieval). Not knowing it is no
 * reason to fail the payment: undefined, and `payment.succeeded` brings it.
 */
async function chargedCard(
  deps: PayLinkDeps,
  merchant: MerchantContext,
  attempt: LinkPayment,
  charge: ChargeView,
): Promise<SavedCard | undefined> {
  const paymentMethodId = charge.paymentMethodId ?? attempt.paymentMethodId;
  if (!paymentMethodId || attempt.customerId === null) return undefined;
  try {
    const cards = await deps.cards.savedCards(merchant, attempt.customerId);
    return cards.find((card) => card.paymentMethodId === paymentMethodId);
  } catch {
    return undefined;
  }
}

/** Runs an attempt from where it stands: opens its form, or charges its card. */
export async function proceed(
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
