import { Hono } from 'hono';
import { type ProcessorB, ProcessorBError } from '../../application/processor-b';
import type { SandboxCore } from '../../application/sandbox-state';
import { CardInputError, readCard } from '../../domain/cards';
import { cardFormPage, messagePage } from './pages';
import { type SandboxContext, type SandboxEnv, sleep } from './sandbox-env';

/** PROCESSOR_B's full-page forms: payment (`/pagos/{hash}`) and card registration (`/pagos/tarjetas/{id}`). */
export function hostedBRoutes(core: SandboxCore, processor: ProcessorB) {
  const router = new Hono<SandboxEnv>();

  const paymentForm = (hash: string, options: { error?: string; returnLink?: string } = {}) => {
    const order = processor.describeOrder(hash);
    return cardFormPage({
      title: 'Pagar pedido',
      brand: 'Processor B sandbox',
      action: `/pagos/${encodeURIComponent(hash)}`,
      hiddenFields: {},
      amountLine: order ? `Total: Gs. ${order.amount}` : undefined,
      buttonTestId: 'pay-button',
      buttonLabel: 'Pagar',
      cancelUrl: processor.returnUrl(hash),
      ...options,
    });
  };
  const cardForm = (formId: string, error?: string) =>
    cardFormPage({
      title: 'Agregar tarjeta',
      brand: 'Processor B sandbox',
      action: `/pagos/tarjetas/${encodeURIComponent(formId)}`,
      hiddenFields: {},
      buttonTestId: 'save-card-button',
      buttonLabel: 'Guardar tarjeta',
      error,
    });

  const readFormCard = async (c: SandboxContext) => {
    const form = await c.req.parseBody();
    return readCard(
      {
        number: String(form.card_number ?? ''),
        expiry: String(form.card_expiry ?? ''),
        cvv: String(form.card_cvv ?? ''),
      },
      core.clock.now(),
    );
  };

  router.get('/pagos/tarjetas/:formId', (c) => {
    const formId = c.req.param('formId');
    const form = processor.hasCardForm(formId);
    if (!form) return c.html(messagePage('Tarjeta', 'Formulario inexistente'), 404);
    if (!form.open) return c.html(messagePage('Tarjeta', 'Formulario ya utilizado'), 400);
    return c.html(cardForm(formId));
  });

  router.post('/pagos/tarjetas/:formId', async (c) => {
    const formId = c.req.param('formId');
    try {
      const card = await readFormCard(c);
      return c.redirect(processor.registerHosted(formId, card).redirectUrl, 303);
    } catch (error) {
      if (error instanceof CardInputError) return c.html(cardForm(formId, error.message), 400);
      if (error instanceof ProcessorBError)
        return c.html(messagePage('Tarjeta', error.resultado), error.httpStatus === 404 ? 404 : 400);
      throw error;
    }
  });

  router.get('/pagos/:hash', (c) => {
    const hash = c.req.param('hash');
    const order = processor.describeOrder(hash);
    if (!order) return c.html(messagePage('Pedido', 'No existe pedido'), 404);
    if (order.paid) return c.html(messagePage('Pedido', 'El pedido ya fue pagado'), 400);
    if (!order.open) return c.html(messagePage('Pedido', 'El pedido está cancelado o en proceso'), 400);
    return c.html(paymentForm(hash));
  });

  router.post('/pagos/:hash', async (c) => {
    const hash = c.req.param('hash');
    try {
      const card = await readFormCard(c);
      const result = await processor.payHosted(hash, card);
      if (result.delayMs > 0) await sleep(result.delayMs);
      if (result.outcome === 'approved') return c.redirect(result.redirectUrl, 303);
      return c.html(
        paymentForm(hash, { error: `Pago rechazado: ${result.message}`, returnLink: result.redirectUrl }),
      );
    } catch (error) {
      if (error instanceof CardInputError) return c.html(paymentForm(hash, { error: error.message }), 400);
      if (error instanceof ProcessorBError)
        return c.html(messagePage('Pedido', error.resultado), error.httpStatus === 404 ? 404 : 400);
      throw error;
    }
  });

  return router;
}
