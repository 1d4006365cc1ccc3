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
