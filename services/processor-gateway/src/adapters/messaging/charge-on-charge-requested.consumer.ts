import { type EventData, parseEvent } from '@payrail/contracts';
import type { Subscription } from '@payrail/messaging';
import { contextFromHeaders, inSpan, type Logger, SpanKind } from '@payrail/observability';
import type { StoredCardChargeRequest } from '../../application/charge-stored-card';
import { storedCardChargeBatches } from '../../application/stored-card-charge-batches';
import type { ChargeDeps } from '../../application/settle-charge';

export const CHARGE_CONSUMER = 'processor-gateway.charge-on-charge-requested';

/**
 * Automatic debit. Not wrapped in the inbox transaction on purpose: the charge row must be committed
 * before the processor is called, and the call must not hold a transaction open. The idempotency key's
 * unique constraint is what makes a redelivery or a second replica a no-op.
 *
 * The charges in flight are opened and settled in batches (`storedCardChargeBatches`); each message is
 * still handled, acknowledged and traced on its own.
 */
export function chargeOnChargeRequested(deps: ChargeDeps, logger: Logger): Subscription {
  const chargeStoredCard = storedCardChargeBatches(deps);
  return {
    consumer: CHARGE_CONSUMER,
    eventTypes: ['charge.requested'],
    // Most of a charge's time is the processor's answer, not our CPU: with the default 10 in flight a run's
    // charges queued here once subscriptions decided them in batches. The database work still goes through
    // the pool's few connections; the processor calls overlap. 100, not 50: with 50 the charges moved in
    // waves (a batch opened, the processor called, a batch settled, then the next deliveries) and the two
    // cores were about 10 % idle while a run charged: 934 → 1,012 charges/s in the full-size bench
    // (docs/performance.md, the measurement of 2026-11-26 12:10).
    prefetch: 100,
    // A consumer span that continues the publisher's trace (as the inbox consumers' does): the charge, the
    // processor call and payment.* are in the installment's one trace.
    handler: (message) =>
      inSpan(
        CHARGE_CONSUMER,
        `${message.type} process`,
        {
          kind: SpanKind.CONSUMER,
          parent: contextFromHeaders(message.headers),
          attributes: {
            'messaging.consumer.group.name': CHARGE_CONSUMER,
            'messaging.message.id': message.id,
            'messaging.attempt': message.attempt,
          },
        },
        () => charge(message.body),
      ),
  };

  async function charge(body: string): Promise<void> {
    const { data } = parseEvent('charge.requested', body);
    const outcome = await chargeStoredCard(storedCardChargeRequest(data));
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
  }
}

/** What `charge.requested` asks processor-gateway to charge. */
export function storedCardChargeRequest(data: EventData<'charge.requested'>): StoredCardChargeRequest {
  return {
    idempotencyKey: data.idempotencyKey,
    merchantId: data.merchantId,
    paymentMethodId: data.paymentMethodId,
    amount: data.amount,
    currency: data.currency,
    installmentId: data.installmentId,
    attempt: data.attempt,
    description: `Installment ${data.installmentId}`,
  };
}
