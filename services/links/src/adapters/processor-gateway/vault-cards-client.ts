import type { MerchantContext } from '@payrail/contracts';
import { callWithDeadline, signMerchantContext, type Upstream } from '@payrail/http';
import { type VaultCard, type VaultCards, VaultUnavailable } from '../../ports/vault-cards';

/** How long the panel waits for processor-gateway (a removal waits for the processor too). */
const VAULT_TIMEOUT_MS = 10_000;

/** processor-gateway's internal `/customers/{id}/payment-methods`, called with the merchant's signed context. */
export function vaultCardsClient(options: { upstream: Upstream; internalSecret: string }): VaultCards {
  const call = async (merchant: MerchantContext, method: string, path: string) => {
    const headers = new Headers(signMerchantContext(merchant, options.internalSecret));
    headers.set('accept', 'application/json');
    try {
      return await callWithDeadline(
        options.upstream,
        new Request(`http://internal/internal${path}`, { method, headers }),
        VAULT_TIMEOUT_MS,
      );
    } catch (error) {
      throw new VaultUnavailable(`processor-gateway did not answer: ${(error as Error).message}`);
    }
  };
  return {
    async list(merchant, customerId) {
      const response = await call(merchant, 'GET', `/customers/${customerId}/payment-methods`);
      if (!response.ok) throw new VaultUnavailable(`processor-gateway answered ${response.status}`);
      const body = (await response.json()) as { paymentMethods: Array<VaultCard & Record<string, unknown>> };
      // Only what the panel may show is kept.
      return body.paymentMethods.map((card) => ({
        paymentMethodId: card.paymentMethodId,
        processor: card.processor,
        brand: card.brand,
        last4: card.last4,
        expiryMonth: card.expiryMonth,
        expiryYear: card.expiryYear,
        blocked: card.blocked,
      }));
    },
    async remove(merchant, customerId, paymentMethodId) {
      const response = await call(
        merchant,
        'DELETE',
        `/customers/${customerId}/payment-methods/${encodeURIComponent(paymentMethodId)}`,
      );
      if (response.status === 404) return false;
      if (!response.ok) throw new VaultUnavailable(`processor-gateway answered ${response.status}`);
      return true;
    },
  };
}
