import { linkPaymentKey, type MerchantContext, PROCESSORS, type Processor } from '@payrail/contracts';
import { jsonBody, requireMerchant } from '@payrail/http';
import { Hono } from 'hono';
import { completeCardRegistration, openCardRegistration } from '../../application/card-registration';
import { listPaymentMethods, removePaymentMethod } from '../../application/manage-payment-methods';
import { openHostedPayment } from '../../application/open-hosted-payment';
import { payLinkWithSavedCard } from '../../application/pay-link-with-saved-card';
import type { ChargeDeps } from '../../application/settle-charge';
import {
  CardRegistrationNotFound,
  CustomerNotFound,
  PaymentMethodNotFound,
  PaymentNotFound,
  type ProcessorGatewayError,
} from '../../domain/errors';
import { assertProcessorEnabled } from '../../domain/merchant-processors';
import {
  cardRegistrationBody,
  chargeView,
  describeChargesBody,
  hostedPaymentBody,
  paymentMethodView,
  savedCardPaymentBody,
} from './dto';

export interface InternalRoutesDeps extends ChargeDeps {
  internalSecret: string;
}

/** A positive id of the path; anything else names nothing there is (`notFound`). */
function positiveId(raw: string, notFound: () => ProcessorGatewayError): number {
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) throw notFound();
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
    assertProcessorEnabled(merchant.processors, input.processor);
    const { charge, form } = await openHostedPayment(deps, {
      ...input,
      amount: String(input.amount),
      merchantId: merchant.merchantId,
    });
    return c.json({ ...chargeView(charge), form }, 201);
  });

  api.post('/payments/saved-card', async (c) => {
    const merchant = c.var.merchant;
    const input = await jsonBody(c, savedCardPaymentBody);
    const outcome = await payLinkWithSavedCard(deps, {
      ...input,
      amount: String(input.amount),
      merchantId: merchant.merchantId,
      processors: merchant.processors,
    });
    return c.json(chargeView(outcome.charge), outcome.kind === 'duplicate' ? 200 : 201);
  });

  // The customer's receipts (links' `/pay/account`): what each charge took and from which card.
  api.post('/payments/describe', async (c) => {
    const input = await jsonBody(c, describeChargesBody);
    const found = await deps.stores.charges.describeCharges(c.var.merchant.merchantId, input.chargeIds);
    return c.json({
      payments: found.map((charge) => ({ ...charge, settledAt: charge.settledAt?.toISOString() ?? null })),
    });
  });

  api.get('/payments/:chargeId', async (c) => {
    const chargeId = c.req.param('chargeId');
    if (!UUID.test(chargeId)) throw new PaymentNotFound();
    const charge = await deps.stores.charges.findCharge(c.var.merchant.merchantId, chargeId);
    if (!charge) throw new PaymentNotFound();
    return c.json(chargeView(charge));
  });

  // PROCESSOR_B sends the browser back with its own hash only: the page finds the payment by it.
  api.get('/processors/:processor/payments/:processorReference', async (c) => {
    const processor = c.req.param('processor');
    if (!(PROCESSORS as readonly string[]).includes(processor)) throw new PaymentNotFound();
    const charge = await deps.stores.charges.findChargeByProcessorReference(
      c.var.merchant.merchantId,
      processor as Processor,
      c.req.param('processorReference'),
    );
    if (!charge) throw new PaymentNotFound();
    return c.json(chargeView(charge));
  });

  api.get('/links/:linkId/payments/:paymentNumber', async (c) => {
    const linkId = positiveId(c.req.param('linkId'), () => new PaymentNotFound());
    const paymentNumber = positiveId(c.req.param('paymentNumber'), () => new PaymentNotFound());
    const charge = await deps.stores.charges.findChargeByKey(linkPaymentKey(linkId, paymentNumber));
    if (!charge || charge.merchantId !== c.var.merchant.merchantId) throw new PaymentNotFound();
    return c.json(chargeView(charge));
  });

  api.post('/card-registrations', async (c) => {
    const merchant = c.var.merchant;
    const input = await jsonBody(c, cardRegistrationBody);
    assertProcessorEnabled(merchant.processors, input.processor);
    const { registration, form } = await openCardRegistration(deps, {
      ...input,
      merchantId: merchant.merchantId,
    });
    return c.json({ registrationId: registration.id, processor: registration.processor, form }, 201);
  });

  api.post('/card-registrations/:registrationId/complete', async (c) => {
    const registrationId = c.req.param('registrationId');
    if (!UUID.test(registrationId)) throw new CardRegistrationNotFound();
    const { saved, paymentMethods } = await completeCardRegistration(
      deps,
      c.var.merchant.merchantId,
      registrationId,
    );
    const now = deps.clock.now();
    return c.json({
      saved: saved.map((method) => paymentMethodView(method, now)),
      paymentMethods: paymentMethods.map((method) => paymentMethodView(method, now)),
    });
  });

  api.get('/customers/:customerId/payment-methods', async (c) => {
    const customerId = positiveId(c.req.param('customerId'), () => new CustomerNotFound());
    const methods = await listPaymentMethods(deps, c.var.merchant.merchantId, customerId);
    const now = deps.clock.now();
    return c.json({ paymentMethods: methods.map((method) => paymentMethodView(method, now)) });
  });

  api.delete('/customers/:customerId/payment-methods/:paymentMethodId', async (c) => {
    const customerId = positiveId(c.req.param('customerId'), () => new PaymentMethodNotFound());
    const paymentMethodId = c.req.param('paymentMethodId');
    if (!UUID.test(paymentMethodId)) throw new PaymentMethodNotFound();
    await removePaymentMethod(deps, c.var.merchant.merchantId, customerId, paymentMethodId);
    return c.body(null, 204);
  });

  return api;
}
