import { PaymentMethodNotFound, ProcessorUnavailable } from '../domain/errors';
import type { PaymentMethod } from '../domain/payment-method';
import type { VaultDeps } from './card-registration';
import { paymentMethodRemoved } from './events';

/** A customer's saved cards at the merchant, across both processors (spec 1.7). */
export function listPaymentMethods(
  deps: Pick<VaultDeps, 'stores'>,
  merchantId: string,
  customerId: number,
): Promise<PaymentMethod[]> {
  return deps.stores.paymentMethods.listPaymentMethods(merchantId, customerId);
}

/** The card is deleted at the processor first: a card we forget but the processor keeps could still be charged. */
export async function removePaymentMethod(
  deps: VaultDeps,
  merchantId: string,
  customerId: number,
  paymentMethodId: string,
): Promise<void> {
  const method = await deps.stores.paymentMethods.findPaymentMethod(merchantId, paymentMethodId);
  if (!method || method.customerId !== customerId || method.removedAt) throw new PaymentMethodNotFound();
  try {
    // `false` means the processor no longer has it: removed either way.
    await deps
      .processors(method.processor)
      .removeCard({ customerRef: method.customerRef, cardRef: method.cardRef });
  } catch (error) {
    throw new ProcessorUnavailable('ADAPTER_ERROR', (error as Error).message);
  }
  await deps.transaction(async (stores) => {
    const locked = await stores.paymentMethods.lockPaymentMethod(method.id);
    if (!locked || locked.removedAt) return;
    const now = deps.clock.now();
    const removed = { ...locked, removedAt: now };
    await stores.paymentMethods.savePaymentMethod(removed);
    await stores.outbox.publish([paymentMethodRemoved(removed, now)]);
  });
}
