import type { MerchantContext } from '@payrail/contracts';
import { callWithDeadline, signMerchantContext, type Upstream, UpstreamTimeout } from '@payrail/http';
import { currentTraceHeaders } from '@payrail/observability';
import {
  type CardPayments,
  CardPaymentsUnavailable,
  type ChargeView,
  type HostedForm,
  PaymentAttemptUsed,
  type PaymentDescription,
  type SavedCard,
} from '../../ports/card-payments';

export interface CardPaymentsClientSettings {
  upstream: Upstream;
  internalSecret: string;
  /** Longer than processor-gateway's own processor deadline (the slow test card answers after 8 s). */
  timeoutMs: number;
}

/** processor-gateway's internal routes over HTTP (or in memory when embedded), as the merchant of the link. */
export function cardPaymentsClient(settings: CardPaymentsClientSettings): CardPayments {
  async function call(
    merchant: MerchantContext,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const headers = new Headers({
      accept: 'application/json',
      ...currentTraceHeaders(),
      ...signMerchantContext(merchant, settings.internalSecret),
    });
    if (body !== undefined) headers.set('content-type', 'application/json');
    let response: Response;
    try {
      response = await callWithDeadline(
        settings.upstream,
        new Request(`http://processor-gateway/internal${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        settings.timeoutMs,
      );
    } catch (error) {
      throw new CardPaymentsUnavailable(
        error instanceof UpstreamTimeout
          ? `processor-gateway did not answer ${method} ${path} in time`
          : `processor-gateway unreachable: ${(error as Error).message}`,
      );
    }
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      json = {};
    }
    if (response.status === 409 && json.code === 'PAYMENT_ATTEMPT_USED') {
      throw new PaymentAttemptUsed(String(json.detail ?? 'payment attempt already used'));
    }
    if (response.status >= 500 || (response.status >= 400 && response.status !== 404)) {
      throw new CardPaymentsUnavailable(
        `processor-gateway answered ${response.status} to ${method} ${path}: ${String(json.code ?? text.slice(0, 200))}`,
      );
    }
    return { status: response.status, json };
  }

  const cards = (value: unknown) => (Array.isArray(value) ? (value as SavedCard[]) : []);

  return {
    async describePayments(merchant, chargeIds) {
      if (chargeIds.length === 0) return [];
      const { status, json } = await call(merchant, 'POST', '/payments/describe', { chargeIds });
      return status === 200 && Array.isArray(json.payments) ? (json.payments as PaymentDescription[]) : [];
    },

    async savedCards(merchant, customerId) {
      const { status, json } = await call(merchant, 'GET', `/customers/${customerId}/payment-methods`);
      return status === 200 ? cards(json.paymentMethods) : [];
    },

    async openHostedPayment(merchant, request) {
      const { status, json } = await call(merchant, 'POST', '/payments/hosted', request);
      if (status === 404) throw new CardPaymentsUnavailable('processor-gateway: hosted payments not found');
      const { form, ...charge } = json;
      return { charge: charge as unknown as ChargeView, form: form as HostedForm };
    },

    async chargeSavedCard(merchant, request) {
      const { status, json } = await call(merchant, 'POST', '/payments/saved-card', request);
      if (status === 404) throw new CardPaymentsUnavailable('the saved card is not the customer’s any more');
      return json as unknown as ChargeView;
    },

    async openCardRegistration(merchant, request) {
      const { json } = await call(merchant, 'POST', '/card-registrations', request);
      return { registrationId: String(json.registrationId), form: json.form as HostedForm };
    },

    async completeCardRegistration(merchant, registrationId) {
      const { status, json } = await call(
        merchant,
        'POST',
        `/card-registrations/${encodeURIComponent(registrationId)}/complete`,
      );
      if (status === 404) return { saved: [], all: [] };
      return { saved: cards(json.saved), all: cards(json.paymentMethods) };
    },

    async linkCharge(merchant, linkId, paymentNumber) {
      const { status, json } = await call(merchant, 'GET', `/links/${linkId}/payments/${paymentNumber}`);
      return status === 200 ? (json as unknown as ChargeView) : undefined;
    },
  };
}
