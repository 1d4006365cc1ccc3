import { linkPaymentKey } from '@payrail/contracts';
import { normalizeAmount } from '@payrail/money';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Charge } from '../domain/charge';
import { PaymentAttemptUsed, ProcessorUnavailable } from '../domain/errors';
import { newProcessorReference } from './processor-references';
import type { HostedForm, OpenPaymentInput, OpenResult, ProcessorId } from '../ports/card-processor';
import type { ChargeDeps } from './settle-charge';

export interface HostedPaymentRequest {
  merchantId: string;
  linkId: number;
  /** The pay page's attempt number for this link: `link:<id>:payment:<n>`. */
  paymentNumber: number;
  processor: ProcessorId;
  amount: string;
  currency: string;
  description: string;
  returnUrl: string;
  cancelUrl: string;
  buyer?: OpenPaymentInput['buyer'];
}

/**
 * Opens a payment on the processor's hosted form (A: iframe, B: redirect). The charge row is written first,
 * so the confirmation and the janitor find it by our reference; asking again with the same attempt number
 * gives the same form back rather than a second payment.
 */
export async function openHostedPayment(
  deps: ChargeDeps,
  request: HostedPaymentRequest,
): Promise<{ charge: Charge; form: HostedForm }> {
  const key = linkPaymentKey(request.linkId, request.paymentNumber);
  const now = deps.clock.now();
  const charge: Charge = {
    // Time-ordered (UUIDv7), as every charge id: the money movement's `txId` wherever it is announced.
    id: timeOrderedUuid(),
    idempotencyKey: key,
    merchantId: request.merchantId,
    kind: 'hosted',
    installmentId: null,
    attempt: null,
    linkId: request.linkId,
    paymentMethodId: null,
    processor: request.processor,
    reference: newProcessorReference(),
    processorReference: null,
    amount: normalizeAmount(request.amount),
    currency: request.currency,
    status: 'pending',
    declineCode: null,
    declineCategory: null,
    retryable: null,
    authorizationCode: null,
    hostedForm: null,
    processorCalls: 1,
    statusChecks: 0,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    nextCheckAt: new Date(now.getTime() + deps.timings.staleAfterMs),
    settledAt: null,
  };
  if (!(await deps.stores.charges.insertCharge(charge))) {
    const existing = await deps.stores.charges.findChargeByKey(key);
    if (
      existing &&
      existing.merchantId === request.merchantId &&
      existing.kind === 'hosted' &&
      existing.status === 'pending' &&
      existing.hostedForm
    ) {
      return { charge: existing, form: existing.hostedForm as unknown as HostedForm };
    }
    throw new PaymentAttemptUsed({ linkId: request.linkId, paymentNumber: request.paymentNumber });
  }

  let opened: OpenResult;
  try {
    opened = await deps.processors(request.processor).openPayment({
      reference: charge.reference,
      amount: charge.amount,
      currency: charge.currency,
      description: request.description,
      returnUrl: request.returnUrl,
      cancelUrl: request.cancelUrl,
      buyer: request.buyer,
    });
  } catch (error) {
    opened = {
      kind: 'refused',
      decline: { code: 'ADAPTER_ERROR', category: 'processor-down', message: (error as Error).message },
    };
  }
  return deps.transaction(async (stores) => {
    const locked = (await stores.charges.lockCharge(charge.id)) as Charge;
    const at = deps.clock.now();
    if (opened.kind === 'refused') {
      // No form, so no payment could be made on it: closed without a payment event (nothing was attempted).
      await stores.charges.saveCharge({
        ...locked,
        status: 'failed',
        declineCode: opened.decline.code,
        declineCategory: opened.decline.category,
        retryable: true,
        lastError: opened.decline.message ?? null,
        settledAt: at,
        updatedAt: at,
      });
      throw new ProcessorUnavailable(
        opened.decline.code,
        opened.decline.message ?? 'The processor did not open the payment',
      );
    }
    const processorReference = opened.form.kind === 'iframe' ? opened.form.processId : opened.form.hash;
    const next: Charge = {
      ...locked,
      processorReference,
      hostedForm: opened.form as unknown as Record<string, unknown>,
      updatedAt: at,
    };
    await stores.charges.saveCharge(next);
    return { charge: next, form: opened.form };
  });
}
