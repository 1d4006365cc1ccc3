import { parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';
import { chargeStoredCard } from '../../application/charge-stored-card';
import type { ChargeDeps } from '../../application/settle-charge';

export const CHARGE_CONSUMER = 'processor-gateway.charge-on-charge-requested';

/**
 * Automatic debit. Not wrapped in the inbox transaction on purpose: the charge row must be committed
 * before the processor is called, and the call must not hold a transaction open. The idempotency key's
 * unique constraint is what makes a redelivery or a second replica a no-op.
 */
export function chargeOnChargeRequested(deps: ChargeDeps, logger: Logger): Subscription {
  return {
    consumer: CHARGE_CONSUMER,
    eventTypes: ['charge.requested'],
    async handler(message) {
      const { data } = parseEvent('charge.requested', message.body);
      const outcome = await chargeStoredCard(deps, {
        idempotencyKey: data.idempotencyKey,
        merchantId: data.merchantId,
        paymentMethodId: data.paymentMethodId,
        amount: data.amount,
        currency: data.currency,
        installmentId: data.installmentId,
        attempt: data.attempt,
        description: `Installment ${data.installmentId}`,
      });
      const { charge } = outcome;
      logger.info(
        {
          chargeId: charge.id,
          idempotencyKey: charge.idempotencyKey,
          status: charge.status,
          duplicate: outcome.kind === 'duplicate',
        },
        outcome.kind === 'duplicate' ? 'charge.requested for a key already charged: ignored' : 'charge made',
      );
    },
  };
}
