import { type EventType, parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Clock } from '@payrail/time';
import {
  mailCancelled,
  mailInstallmentReceipt,
  mailLinkReceipt,
  mailPastDue,
  mailPaymentFailed,
  recordCard,
  recordChargedCard,
  recordInstallments,
  recordSubscriptionCardOfLink,
  recordSubscriptionCreated,
  recordSubscriptionStatus,
  remindOnBillingRun,
} from '../../application/customer-emails/mail-customers';
import type { MerchantProfiles } from '../../ports/merchant-profiles';
import type { LinksUnitOfWork } from '../../ports/unit-of-work';

export const MAIL_CUSTOMERS_CONSUMER = 'links.mail-customers-on-account-events';

/**
 * The customer e-mails (issue 29): one queue for the events that tell links about a customer's
 * subscriptions, cards and payments, so that what it learns (a subscription, its installments, its card)
 * is there before the e-mail that needs it. Each e-mail is written to the mail outbox in the handler's
 * transaction with the inbox row: a redelivered event writes nothing twice.
 */
export function mailCustomersOnAccountEvents(
  unitOfWork: LinksUnitOfWork,
  settings: { merchants: Pick<MerchantProfiles, 'find'>; clock: Clock; simulatedTime: boolean },
): Subscription {
  const eventTypes: EventType[] = [
    'subscription.created',
    'subscription.activated',
    'subscription.completed',
    'subscription.cancelled',
    'subscription.past-due',
    'installments.scheduled',
    'installments.updated',
    'installments.cancelled',
    'installment.paid',
    'installment.failed',
    'payment-method.saved',
    'payment-method.removed',
    'link.paid',
    'billing-run.started',
  ];
  return {
    consumer: MAIL_CUSTOMERS_CONSUMER,
    // An installment's charges only (libs/contracts routing): a link's are the link's receipt already.
    eventTypes: [...eventTypes, 'payment.succeeded.installment', 'payment.failed.installment'],
    handler: unitOfWork.handlerFor(MAIL_CUSTOMERS_CONSUMER, async (stores, message) => {
      // The merchant read in this transaction, not through the pool (one connection in the embedded system).
      const deps = { ...settings, emails: stores.emails, merchants: stores.merchants };
      switch (message.type) {
        case 'subscription.created':
          return recordSubscriptionCreated(deps, parseEvent('subscription.created', message.body).data);
        case 'subscription.activated':
          return recordSubscriptionStatus(deps, parseEvent('subscription.activated', message.body).data);
        case 'subscription.completed':
          return recordSubscriptionStatus(deps, parseEvent('subscription.completed', message.body).data);
        case 'subscription.cancelled':
          return mailCancelled(deps, parseEvent('subscription.cancelled', message.body).data);
        case 'subscription.past-due':
          return mailPastDue(deps, parseEvent('subscription.past-due', message.body).data);
        case 'installments.scheduled':
          return recordInstallments(deps, parseEvent('installments.scheduled', message.body).data);
        case 'installments.updated':
          return recordInstallments(deps, parseEvent('installments.updated', message.body).data);
        case 'installments.cancelled':
          return recordInstallments(deps, parseEvent('installments.cancelled', message.body).data);
        case 'installment.paid':
          return mailInstallmentReceipt(deps, parseEvent('installment.paid', message.body).data);
        case 'installment.failed': {
          const data = parseEvent('installment.failed', message.body).data;
          return stores.emails.saveInstallments([
            {
              installmentId: data.installmentId,
              subscriptionId: data.subscriptionId,
              number: data.number,
              paymentDate: data.paymentDate,
              amount: data.amount,
              status: 'failed',
            },
          ]);
        }
        case 'payment-method.saved':
          return recordCard(deps, parseEvent('payment-method.saved', message.body).data);
        case 'payment-method.removed':
          return stores.emails.removeCard(
            parseEvent('payment-method.removed', message.body).data.paymentMethodId,
          );
        case 'link.paid': {
          const data = parseEvent('link.paid', message.body).data;
          await recordSubscriptionCardOfLink(deps, data);
          return mailLinkReceipt(deps, data);
        }
        case 'billing-run.started':
          return remindOnBillingRun(deps, parseEvent('billing-run.started', message.body).data);
        case 'payment.succeeded':
          return recordChargedCard(deps, parseEvent('payment.succeeded', message.body).data);
        case 'payment.failed':
          return mailPaymentFailed(deps, parseEvent('payment.failed', message.body).data);
      }
    }),
  };
}
