import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import { recordChargeFailed, recordChargeSucceeded } from '../../application/record-charge-outcome';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';

export const PAYMENT_SUCCEEDED_CONSUMER = 'subscriptions.pay-installment-on-payment-succeeded';
export const PAYMENT_FAILED_CONSUMER = 'subscriptions.record-decline-on-payment-failed';

/** An installment's charge went through: the installment is paid. Link charges are the links service's. */
export function payInstallmentOnPaymentSucceeded(
  unitOfWork: ConsumerUnitOfWork,
  clock: Clock,
  logger: Logger,
): Subscription {
  return {
    consumer: PAYMENT_SUCCEEDED_CONSUMER,
    eventTypes: ['payment.succeeded'],
    handler: unitOfWork.handlerFor(PAYMENT_SUCCEEDED_CONSUMER, async ({ store }, message) => {
      const { data } = parseEvent('payment.succeeded', message.body);
      const result = await recordChargeSucceeded({ store, clock }, data);
      if (result.kind === 'paid-twice') {
        // The money came for an installment settled otherwise meanwhile: the merchant has it to give back.
        logger.warn(
          { installmentId: data.installmentId, chargeId: data.chargeId, status: result.installmentStatus },
          'installment charged after it was settled otherwise',
        );
      }
    }),
  };
}

/** An installment's charge was declined: recorded; billing-scheduler's dunning decides what comes next. */
export function recordDeclineOnPaymentFailed(unitOfWork: ConsumerUnitOfWork, clock: Clock): Subscription {
  return {
    consumer: PAYMENT_FAILED_CONSUMER,
    eventTypes: ['payment.failed'],
    handler: unitOfWork.handlerFor(PAYMENT_FAILED_CONSUMER, async ({ store }, message) => {
      const { data } = parseEvent('payment.failed', message.body);
      await recordChargeFailed({ store, clock }, data);
    }),
  };
}
