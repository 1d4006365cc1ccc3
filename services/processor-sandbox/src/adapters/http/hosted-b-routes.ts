import { Hono } from 'hono';
import { type ProcessorB, ProcessorBError } from '../../application/processor-b';
import type { SandboxCore } from '../../application/sandbox-state';
import { readCard } from '../../domain/cards';
import { CardInputError } from '../../domain/errors';
import {
  amountHint,
  cardFormPage,
  cardProblemText,
  type FormLang,
  formLang,
  messagePage,
  word,
} from './pages';
import { type SandboxContext, type SandboxEnv, sleep } from './sandbox-env';

/** The page's language: the URL's `lang` (the pay page passes its own), the posted field, else the browser's. */
const langOf = (c: SandboxContext, form: Record<string, unknown> = {}) =>
  formLang(c.req.query('lang'), form.lang, c.req.header('accept-language'));

/** PROCESSOR_B's full-page forms: payment (`/pagos/{hash}`) and card registration (`/pagos/tarjetas/{id}`). */
export function hostedBRoutes(core: SandboxCore, processor: ProcessorB) {
  const router = new Hono<SandboxEnv>();

  const paymentForm = (
    lang: FormLang,
    hash: string,
    options: { error?: string; returnLink?: string } = {},
  ) => {
    const order = processor.describeOrder(hash);
    return cardFormPage({
      lang,
      title: word(lang, 'orderTitle'),
      brand: word(lang, 'brandB'),
      action: `/pagos/${encodeURIComponent(hash)}`,
      hiddenFields: {},
      // PROCESSOR_B takes guaraníes only (`monto_total`, an integer).
      amount: order ? { amount: order.amount, currency: 'PYG' } : undefined,
      buttonTestId: 'pay-button',
      cancelUrl: processor.returnUrl(hash),
      ...options,
    });
  };
  const cardForm = (lang: FormLang, formId: string, hint: ReturnType<typeof amountHint>, error?: string) =>
    cardFormPage({
      lang,
      title: word(lang, 'addCardTitle'),
      brand: word(lang, 'brandB'),
      action: `/pagos/tarjetas/${encodeURIComponent(formId)}`,
      hiddenFields: { ...(hint ?? {}) },
      amount: hint,
      buttonTestId: 'save-card-button',
      error,
    });

  const readFormCard = (form: Record<string, unknown>) => {
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
    const lang = langOf(c);
    const formId = c.req.param('formId');
    const form = processor.hasCardForm(formId);
    const title = word(lang, 'addCardTitle');
    if (!form) return c.html(messagePage(lang, title, word(lang, 'noSuchForm')), 404);
    if (!form.open) return c.html(messagePage(lang, title, word(lang, 'formUsed')), 400);
    return c.html(cardForm(lang, formId, amountHint(c.req.query('amount'), c.req.query('currency'))));
  });

  router.post('/pagos/tarjetas/:formId', async (c) => {
    const formId = c.req.param('formId');
    const form = await c.req.parseBody();
    const lang = langOf(c, form);
    const hint = amountHint(form.amount, form.currency);
    try {
      const card = readFormCard(form);
      return c.redirect(processor.registerHosted(formId, card).redirectUrl, 303);
    } catch (error) {
      if (error instanceof CardInputError)
        return c.html(cardForm(lang, formId, hint, cardProblemText(lang, error.problem)), 400);
      if (error instanceof ProcessorBError)
        return c.html(
          messagePage(lang, word(lang, 'addCardTitle'), error.resultado),
          error.httpStatus === 404 ? 404 : 400,
        );
      throw error;
    }
  });

  router.get('/pagos/:hash', (c) => {
    const lang = langOf(c);
    const hash = c.req.param('hash');
    const order = processor.describeOrder(hash);
    const title = word(lang, 'orderTitle');
    if (!order) return c.html(messagePage(lang, title, word(lang, 'noSuchOrder')), 404);
    if (order.paid) return c.html(messagePage(lang, title, word(lang, 'orderPaid')), 400);
    if (!order.open) return c.html(messagePage(lang, title, word(lang, 'orderClosed')), 400);
    return c.html(paymentForm(lang, hash));
  });

  router.post('/pagos/:hash', async (c) => {
    const hash = c.req.param('hash');
    const form = await c.req.parseBody();
    const lang = langOf(c, form);
    try {
      const card = readFormCard(form);
      const result = await processor.payHosted(hash, card);
      if (result.delayMs > 0) await sleep(result.delayMs);
      if (result.outcome === 'approved') return c.redirect(result.redirectUrl, 303);
      return c.html(
        paymentForm(lang, hash, {
          error: word(lang, 'paymentDeclined', { reason: result.message ?? '' }),
          returnLink: result.redirectUrl,
        }),
      );
    } catch (error) {
      if (error instanceof CardInputError)
        return c.html(paymentForm(lang, hash, { error: cardProblemText(lang, error.problem) }), 400);
      if (error instanceof ProcessorBError)
        return c.html(
          messagePage(lang, word(lang, 'orderTitle'), error.resultado),
          error.httpStatus === 404 ? 404 : 400,
        );
      throw error;
    }
  });

  return router;
}
