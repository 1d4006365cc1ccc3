import { linkPaymentKey, type MerchantContext, PROCESSORS, type Processor } from '@payrail/contracts';
import { HttpProblem, jsonBody, problems, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { completeCardRegistration, openCardRegistration } from '../../application/card-registration';
import { chargeStoredCard } from '../../application/charge-stored-card';
import { listPaymentMethods, removePaymentMethod } from '../../application/manage-payment-methods';
import { openHostedPayment } from '../../application/open-hosted-payment';
import type { ChargeDeps } from '../../application/settle-charge';
import { Conflict, NotAllowed, NotFound, ProcessorRefused } from '../../domain/errors';
import {
  cardRegistrationBody,
  chargeView,
  hostedPaymentBody,
  paymentMethodView,
  savedCardPaymentBody,
} from './dto';

export interface InternalRoutesDeps extends ChargeDeps {
  internalSecret: string;
}

/** Domain errors to HTTP, in one place. */
function toProblem(error: unknown): never {
  if (error instanceof NotFound) throw problems.notFound(error.message);
  if (error instanceof Conflict) throw problems.conflict(error.code, error.message);
  if (error instanceof NotAllowed) throw problems.unprocessable(error.code, error.message);
  if (error instanceof ProcessorRefused) {
    throw new HttpProblem(
      503,
      'PROCESSOR_UNAVAILABLE',
      `The processor did not answer as expected (${error.declineCode}); nothing was charged`,
    );
  }
  throw error;
}

function requireProcessor(merchant: MerchantContext, processor: Processor): void {
  if (!merchant.processors.includes(processor)) {
    throw problems.unprocessable('PROCESSOR_NOT_ENABLED', `${processor} is not enabled for this merchant`, [
      { path: 'processor', message: 'not enabled for this merchant' },
    ]);
  }
}

function positiveId(raw: string, what: string): number {
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) throw problems.notFound(`${what} not found`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Internal routes for the pay page (links calls them with the signed merchant context): a person is
 * waiting, so these answer synchronously with what the page needs.
 */
export function internalRoutes(deps: InternalRoutesDeps) {
  const api = new Hono<{ Variables: { merchant: MerchantContext } }>();
  api.use('*', requireMerchant(deps.internalSecret));

  api.post('/payments/hosted', async (c) => {
    const merchant = c.var.merchant;
    const input = await jsonBody(c, hostedPaymentBody);
    requireProcessor(merchant, input.processor);
    const { charge, form } = await openHostedPayment(deps, {
      ...input,
      amount: String(input.amount),
      merchantId: merchant.merchantId,
    }).catch(toProblem);
    return c.json({ ...chargeView(charge), form }, 201);
  });

  api.post('/payments/saved-card', async (c) => {
    const merchant = c.var.merchant;
    const input = await jsonBody(c, savedCardPaymentBody);
    const method = await deps.store.findPaymentMethod(merchant.merchantId, input.paymentMethodId);
    // Another customer's card is as unknown here as another merchant's.
    if (!method || method.customerId !== input.customerId || method.removedAt) {
      throw problems.notFound('Payment method not found');
    }
    requireProcessor(merchant, method.processor);
    const outcome = await chargeStoredCard(deps, {
      idempotencyKey: linkPaymentKey(input.linkId, input.paymentNumber),
      merchantId: merchant.merchantId,
      paymentMethodId: method.id,
      amount: String(input.amount),
      currency: input.currency,
      linkId: input.linkId,
      description: input.description ?? `Link ${input.linkId}`,
    }).catch(toProblem);
    if (
      outcome.kind === 'duplicate' &&
      (outcome.charge.kind !== 'stored-card' || outcome.charge.paymentMethodId !== method.id)
    ) {
      throw problems.conflict('PAYMENT_ATTEMPT_USED', 'This payment attempt was already made');
    }
    return c.json(chargeView(outcome.charge), outcome.kind === 'duplicate' ? 200 : 201);
  });

  api.get('/payments/:chargeId', async (c) => {
    const chargeId = c.req.param('chargeId');
    if (!UUID.test(chargeId)) throw problems.notFound('Payment not found');
    const charge = await deps.store.findCharge(c.var.merchant.merchantId, chargeId);
    if (!charge) throw problems.notFound('Payment not found');
    return c.json(chargeView(charge));
  });

  // PROCESSOR_B sends the browser back with its own hash only: the page finds the payment by it.
  api.get('/processors/:processor/payments/:processorReference', async (c) => {
    const processor = c.req.param('processor');
    if (!(PROCESSORS as readonly string[]).includes(processor)) throw problems.notFound('Payment not found');
    const charge = await deps.store.findChargeByProcessorReference(
      c.var.merchant.merchantId,
      processor as Processor,
      c.req.param('processorReference'),
    );
    if (!charge) throw problems.notFound('Payment not found');
    return c.json(chargeView(charge));
  });

  api.get('/links/:linkId/payments/:paymentNumber', async (c) => {
    const linkId = positiveId(c.req.param('linkId'), 'Payment');
    const paymentNumber = positiveId(c.req.param('paymentNumber'), 'Payment');
    const charge = await deps.store.findChargeByKey(linkPaymentKey(linkId, paymentNumber));
    if (!charge || charge.merchantId !== c.var.merchant.merchantId)
      throw problems.notFound('Payment not found');
    return c.json(chargeView(charge));
  });

  api.post('/card-registrations', async (c) => {
    const merchant = c.var.merchant;
    const input = await jsonBody(c, cardRegistrationBody);
    requireProcessor(merchant, input.processor);
    const { registration, form } = await openCardRegistration(deps, {
      ...input,
      merchantId: merchant.merchantId,
    }).catch(toProblem);
    return c.json({ registrationId: registration.id, processor: registration.processor, form }, 201);
  });

  api.post('/card-registrations/:registrationId/complete', async (c) => {
    const registrationId = c.req.param('registrationId');
    if (!UUID.test(registrationId)) throw problems.notFound('Card registration not found');
    const { saved, paymentMethods } = await completeCardRegistration(
      deps,
      c.var.merchant.merchantId,
      registrationId,
    ).catch(toProblem);
    const now = deps.clock.now();
    return c.json({
      saved: saved.map((method) => paymentMethodView(method, now)),
      paymentMethods: paymentMethods.map((method) => paymentMethodView(method, now)),
    });
  });

  api.get('/customers/:customerId/payment-methods', async (c) => {
    const customerId = positiveId(c.req.param('customerId'), 'Customer');
    const methods = await listPaymentMethods(deps, c.var.merchant.merchantId, customerId);
    const now = deps.clock.now();
    return c.json({ paymentMethods: methods.map((method) => paymentMethodView(method, now)) });
  });

  api.delete('/customers/:customerId/payment-methods/:paymentMethodId', async (c) => {
    const customerId = positiveId(c.req.param('customerId'), 'Payment method');
    const paymentMethodId = c.req.param('paymentMethodId');
    if (!UUID.test(paymentMethodId)) throw problems.notFound('Payment method not found');
    await removePaymentMethod(deps, c.var.merchant.merchantId, customerId, paymentMethodId).catch(toProblem);
    return c.body(null, 204);
  });

  return api;
}
