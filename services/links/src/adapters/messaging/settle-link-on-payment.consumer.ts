import {
  LINK_PAYMENT_FAILED,
  LINK_PAYMENT_SUCCEEDED,
  parseEvent,
  parseLinkPaymentKey,
} from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { idempotentConsumer, type InboxTable, type Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import { settleAttempt } from '../../application/pay-link';
import { postgresLinkPaymentRepository } from '../postgres/link-payment-repository';

export const SETTLE_LINK_CONSUMER = 'links.settle-link-on-payment';

/**
 * `payment.succeeded` / `payment.failed` of a pay page charge (key `link:<id>:payment:<n>`): the link is
 * paid or rejected even when the customer's browser never comes back. The inbox row and the link's state
 * with its event commit together; a redelivery, or the browser having settled it first, changes nothing.
 */
export function settleLinkOnPayment(db: Database, inbox: InboxTable, clock: Clock): Subscription {
  return {
    consumer: SETTLE_LINK_CONSUMER,
    // A pay page charge's outcomes only, not an installment's (libs/contracts routing): the key check
    // below still leaves out anything else that comes (a queue bound to the whole type before).
    eventTypes: [LINK_PAYMENT_SUCCEEDED, LINK_PAYMENT_FAILED],
    handler: idempotentConsumer({
      db,
      inbox,
      consumer: SETTLE_LINK_CONSUMER,
      handle: async (tx, message) => {
        const type = message.type === 'payment.failed' ? 'payment.failed' : 'payment.succeeded';
        const deps = { payments: postgresLinkPaymentRepository(tx), clock };
        if (type === 'payment.succeeded') {
          const { data } = parseEvent('payment.succeeded', message.body);
          const attempt = parseLinkPaymentKey(data.idempotencyKey);
          if (!attempt || data.linkId !== attempt.linkId) return;
          await settleAttempt(deps, attempt, {
            kind: 'succeeded',
            chargeId: data.chargeId,
            paymentMethodId: data.paymentMethodId,
            processorReference: data.processorReference,
            authorizationCode: data.authorizationCode,
          });
          return;
        }
        const { data } = parseEvent('payment.failed', message.body);
        const attempt = parseLinkPaymentKey(data.idempotencyKey);
        if (!attempt || data.linkId !== attempt.linkId) return;
        await settleAttempt(deps, attempt, {
          kind: 'failed',
          chargeId: data.chargeId,
          processorReference: data.processorReference,
          declineCode: data.declineCode,
          category: data.category,
          abandoned: data.declineCode === 'ABANDONED',
        });
      },
    }),
  };
}
