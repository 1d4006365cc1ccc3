import type { Processor } from '@payrail/contracts';
import type { LinkPaymentRepository } from '../ports/link-payment-repository';

/** PROCESSOR_B sends the browser back with its order hash only: the attempt it belongs to. */
export async function attemptOfProcessorReference(
  deps: { payments: LinkPaymentRepository },
  processor: Processor,
  reference: string,
): Promise<{ slug: string; paymentNumber: number } | undefined> {
  const found = await deps.payments.findByProcessorReference(processor, reference);
  return found ? { slug: found.slug, paymentNumber: found.attempt.paymentNumber } : undefined;
}
