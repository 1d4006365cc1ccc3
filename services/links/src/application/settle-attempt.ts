import { type EventData, parseLinkPaymentKey } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import type { PaymentLink } from '../domain/payment-link';
import type { LinkPayment, LinkPaymentRepository, PaymentOutcome } from '../ports/link-payment-repository';
import { linkPaidByCardEvent, linkPaymentFailedEvent } from './events';

export interface SettleAttemptDeps {
  payments: LinkPaymentRepository;
  clock: Clock;
}

/** processor-gateway's decline code of a hosted form nobody paid before it expired. */
export const ABANDONED = 'ABANDONED';

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
  deps: SettleAttemptDeps,
  attempt: Pick<LinkPayment, 'linkId' | 'paymentNumber'>,
  outcome: PaymentOutcome,
) {
  const at = deps.clock.now();
  return deps.payments.settle(attempt.linkId, attempt.paymentNumber, outcome, at, paymentEvents(at, outcome));
}

/** A charge's outcome as processor-gateway announces it. */
export type ChargeOutcomeEvent =
  | { type: 'payment.succeeded'; data: EventData<'payment.succeeded'> }
  | { type: 'payment.failed'; data: EventData<'payment.failed'> };

/**
 * `payment.succeeded` / `payment.failed` of a pay page charge (key `link:<id>:payment:<n>`): the attempt is
 * settled even when the customer's browser never comes back. Any other charge (an installment's, or a key
 * naming another link than the event's) is none of links' business: nothing happens.
 */
export async function settleAttemptOfChargeOutcome(
  deps: SettleAttemptDeps,
  event: ChargeOutcomeEvent,
): Promise<void> {
  const attempt = parseLinkPaymentKey(event.data.idempotencyKey);
  if (!attempt || event.data.linkId !== attempt.linkId) return;
  if (event.type === 'payment.succeeded') {
    const { data } = event;
    await settleAttempt(deps, attempt, {
      kind: 'succeeded',
      chargeId: data.chargeId,
      paymentMethodId: data.paymentMethodId,
      processorReference: data.processorReference,
      authorizationCode: data.authorizationCode,
      card: { brand: data.cardBrand, last4: data.cardLast4 },
    });
    return;
  }
  const { data } = event;
  await settleAttempt(deps, attempt, {
    kind: 'failed',
    chargeId: data.chargeId,
    processorReference: data.processorReference,
    declineCode: data.declineCode,
    category: data.category,
    abandoned: data.declineCode === ABANDONED,
  });
}
