import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import { requestInstallmentCharge } from '../../application/request-installment-charge';
import type { ConsumerUnitOfWork } from '../../ports/unit-of-work';

export const CHARGE_DUE_CONSUMER = 'subscriptions.request-charge-on-charge-due';

/** billing-scheduler says an installment is due: charge it if it still is chargeable, else say why not. */
export function requestChargeOnChargeDue(
  unitOfWork: ConsumerUnitOfWork,
  clock: Clock,
  logger: Logger,
): Subscription {
  return {
    consumer: CHARGE_DUE_CONSUMER,
    eventTypes: ['installment.charge-due'],
    handler: unitOfWork.handlerFor(CHARGE_DUE_CONSUMER, async ({ store }, message) => {
      const { data } = parseEvent('installment.charge-due', message.body);
      const decision = await requestInstallmentCharge({ store, clock }, data);
      if (decision.kind === 'skip') {
        logger.info(
          { installmentId: data.installmentId, attempt: data.attempt, reason: decision.reason },
          'charge skipped',
        );
      }
    }),
  };
}
