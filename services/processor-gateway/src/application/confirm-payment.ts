import { settlementOfStatus } from './settlements';
import type { ProcessorId, RawWebhook, WebhookReply } from '../ports/card-processor';
import { applySettlement, type ChargeDeps } from './settle-charge';

export type ConfirmationOutcome =
  | { kind: 'settled' | 'unchanged'; chargeId: string; reply: WebhookReply }
  | { kind: 'unknown-reference' | 'rejected'; reason: string; reply: WebhookReply };

/**
 * A processor's confirmation. The adapter checks the signature and then asks the processor itself, so what
 * we settle on is the status query's answer, never the webhook body. Duplicates and late or reordered
 * confirmations change nothing: a settled charge stays as it is.
 */
export async function confirmPayment(
  deps: ChargeDeps,
  processor: ProcessorId,
  raw: RawWebhook,
): Promise<ConfirmationOutcome> {
  const verified = await deps.processors(processor).verifyConfirmation(raw);
  if (verified.kind === 'rejected')
    return { kind: 'rejected', reason: verified.reason, reply: verified.reply };
  return deps.transaction(async (stores) => {
    const charge =
      (await stores.charges.lockChargeByReference(processor, verified.reference)) ??
      (verified.processorReference
        ? await stores.charges.lockChargeByProcessorReference(processor, verified.processorReference)
        : undefined);
    if (!charge)
      return { kind: 'unknown-reference' as const, reason: verified.reference, reply: verified.reply };
    // A confirmation the processor then does not know proves nothing either way: the janitor keeps asking.
    const settlement =
      verified.outcome.status === 'not-found'
        ? undefined
        : settlementOfStatus(charge, verified.outcome, { hostedExpired: false, notFoundIsFinal: false });
    if (!settlement || charge.status === 'succeeded' || charge.status === 'failed') {
      return { kind: 'unchanged' as const, chargeId: charge.id, reply: verified.reply };
    }
    await applySettlement(stores, charge, settlement, deps.clock.now(), deps.timings);
    return { kind: 'settled' as const, chargeId: charge.id, reply: verified.reply };
  });
}
