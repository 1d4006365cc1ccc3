import { Hono } from 'hono';
import { type HostedResult, type ProcessorA, ProcessorAError } from '../../application/processor-a';
import type { SandboxCore } from '../../application/sandbox-state';
import { CardInputError, readCard } from '../../domain/cards';
import { cardFormPage, iframeResultPage, messagePage } from './pages';
import { type SandboxEnv, sleep } from './sandbox-env';

const RESULT_TEXT: Record<HostedResult['outcome'], string> = {
  approved: 'approved',
  declined: 'declined',
  registered: 'registered',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** PROCESSOR_A's iframe pages: payment (`/checkout/new`) and card registration (`/checkout/register_card/new`). */
export function hostedARoutes(core: SandboxCore, processor: ProcessorA) {
  const router = new Hono<SandboxEnv>();

  const paymentForm = (processId: string, error?: string) => {
    const process = processor.describeProcess(processId);
    return cardFormPage({
      title: 'Pago con tarjeta',
      brand: 'Processor A sandbox',
      action: '/checkout/new',
      hiddenFields: { process_id: processId },
      amountLine: process?.kind === 'payment' ? `Total: ${process.amount} ${process.currency}` : undefined,
      buttonTestId: 'pay-button',
      buttonLabel: 'Pagar',
      cancelUrl: `/checkout/new/cancel?process_id=${encodeURIComponent(processId)}`,
      error,
    });
  };
  const registrationForm = (processId: string, error?: string) =>
    cardFormPage({
      title: 'Registrar tarjeta',
      brand: 'Processor A sandbox',
      action: '/checkout/register_card/new',
      hiddenFields: { process_id: processId },
      buttonTestId: 'save-card-button',
      buttonLabel: 'Guardar tarjeta',
      cancelUrl: `/checkout/register_card/cancel?process_id=${encodeURIComponent(processId)}`,
      error,
    });

  const resultPage = (result: HostedResult) => {
    const text =
      result.outcome === 'declined' ? `declined ${result.responseCode}` : RESULT_TEXT[result.outcome];
    return iframeResultPage({
      text,
      message: result.status,
      processId: result.processId,
      returnUrl: result.redirectUrl,
    });
  };

  const openOr404 = (processId: string, kind: 'payment' | 'registration') => {
    const process = processor.describeProcess(processId);
    if (!process || process.kind !== kind) return 'Proceso desconocido';
    if (!process.open) return 'Este proceso ya fue utilizado';
    return undefined;
  };

  router.get('/checkout/new', (c) => {
    const processId = c.req.query('process_id') ?? '';
    const problem = openOr404(processId, 'payment');
    if (problem) return c.html(messagePage('Pago', problem), 404);
    return c.html(paymentForm(processId));
  });

  router.post('/checkout/new', async (c) => {
    const form = await c.req.parseBody();
    const processId = String(form.process_id ?? '');
    const problem = openOr404(processId, 'payment');
    if (problem) return c.html(messagePage('Pago', problem), 404);
    try {
      const card = readCard(
        {
          number: String(form.card_number ?? ''),
          expiry: String(form.card_expiry ?? ''),
          cvv: String(form.card_cvv ?? ''),
        },
        core.clock.now(),
      );
      const result = await processor.payHosted(processId, card);
      if (result.delayMs > 0) await sleep(result.delayMs);
      return c.html(resultPage(result));
    } catch (error) {
      if (error instanceof CardInputError) return c.html(paymentForm(processId, error.message), 400);
      if (error instanceof ProcessorAError) return c.html(messagePage('Pago', error.dsc), 400);
      throw error;
    }
  });

  router.get('/checkout/new/cancel', (c) => {
    try {
      return c.html(resultPage(processor.cancelHosted(c.req.query('process_id') ?? '')));
    } catch (error) {
      if (error instanceof ProcessorAError) return c.html(messagePage('Pago', error.dsc), 400);
      throw error;
    }
  });

  router.get('/checkout/register_card/new', (c) => {
    const processId = c.req.query('process_id') ?? '';
    const problem = openOr404(processId, 'registration');
    if (problem) return c.html(messagePage('Tarjeta', problem), 404);
    return c.html(registrationForm(processId));
  });

  router.post('/checkout/register_card/new', async (c) => {
    const form = await c.req.parseBody();
    const processId = String(form.process_id ?? '');
    const problem = openOr404(processId, 'registration');
    if (problem) return c.html(messagePage('Tarjeta', problem), 404);
    try {
      const card = readCard(
        {
          number: String(form.card_number ?? ''),
          expiry: String(form.card_expiry ?? ''),
          cvv: String(form.card_cvv ?? ''),
        },
        core.clock.now(),
      );
      return c.html(resultPage(processor.registerHosted(processId, card)));
    } catch (error) {
      if (error instanceof CardInputError) return c.html(registrationForm(processId, error.message), 400);
      if (error instanceof ProcessorAError) return c.html(messagePage('Tarjeta', error.dsc), 400);
      throw error;
    }
  });

  router.get('/checkout/register_card/cancel', (c) => {
    try {
      return c.html(resultPage(processor.cancelRegistration(c.req.query('process_id') ?? '')));
    } catch (error) {
      if (error instanceof ProcessorAError) return c.html(messagePage('Tarjeta', error.dsc), 400);
      throw error;
    }
  });

  return router;
}
