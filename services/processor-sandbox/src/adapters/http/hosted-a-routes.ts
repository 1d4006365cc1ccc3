import { Hono } from 'hono';
import { type HostedResult, type ProcessorA, ProcessorAError } from '../../application/processor-a';
import type { SandboxCore } from '../../application/sandbox-state';
import { readCard } from '../../domain/cards';
import { CardInputError } from '../../domain/errors';
import {
  amountHint,
  cardFormPage,
  cardProblemText,
  type FormLang,
  formLang,
  iframeResultPage,
  messagePage,
  word,
} from './pages';
import { type SandboxContext, type SandboxEnv, sleep } from './sandbox-env';

/** The form's language: the URL's `lang`, the posted field, else the browser's (Spanish by default). */
const langOf = (c: SandboxContext, form: Record<string, unknown> = {}) =>
  formLang(c.req.query('lang'), form.lang, c.req.header('accept-language'));

/** Fields and URLs carry the language along, so that a form shown again or a cancel stays in it. */
const withLang = (path: string, lang: FormLang) => `${path}${path.includes('?') ? '&' : '?'}lang=${lang}`;

/** PROCESSOR_A's iframe pages: payment (`/checkout/new`) and card registration (`/checkout/register_card/new`). */
export function hostedARoutes(core: SandboxCore, processor: ProcessorA) {
  const router = new Hono<SandboxEnv>();

  const paymentForm = (lang: FormLang, processId: string, error?: string) => {
    const process = processor.describeProcess(processId);
    return cardFormPage({
      lang,
      title: word(lang, 'paymentTitle'),
      brand: word(lang, 'brandA'),
      action: '/checkout/new',
      hiddenFields: { process_id: processId },
      amount:
        process?.kind === 'payment' ? { amount: process.amount, currency: process.currency } : undefined,
      buttonTestId: 'pay-button',
      cancelUrl: withLang(`/checkout/new/cancel?process_id=${encodeURIComponent(processId)}`, lang),
      error,
    });
  };
  const registrationForm = (
    lang: FormLang,
    processId: string,
    hint: ReturnType<typeof amountHint>,
    error?: string,
  ) =>
    cardFormPage({
      lang,
      title: word(lang, 'registrationTitle'),
      brand: word(lang, 'brandA'),
      action: '/checkout/register_card/new',
      hiddenFields: { process_id: processId, ...(hint ?? {}) },
      amount: hint,
      buttonTestId: 'save-card-button',
      cancelUrl: withLang(`/checkout/register_card/cancel?process_id=${encodeURIComponent(processId)}`, lang),
      error,
    });

  const resultPage = (lang: FormLang, result: HostedResult) =>
    iframeResultPage({
      lang,
      outcome: result.outcome,
      responseCode: result.outcome === 'declined' ? (result.responseCode ?? undefined) : undefined,
      message: result.status,
      processId: result.processId,
      returnUrl: result.redirectUrl,
    });

  const openOr404 = (lang: FormLang, processId: string, kind: 'payment' | 'registration') => {
    const process = processor.describeProcess(processId);
    if (!process || process.kind !== kind) return word(lang, 'unknownProcess');
    if (!process.open) return word(lang, 'processUsed');
    return undefined;
  };

  router.get('/checkout/new', (c) => {
    const lang = langOf(c);
    const processId = c.req.query('process_id') ?? '';
    const problem = openOr404(lang, processId, 'payment');
    if (problem) return c.html(messagePage(lang, word(lang, 'paymentTitle'), problem), 404);
    return c.html(paymentForm(lang, processId));
  });

  router.post('/checkout/new', async (c) => {
    const form = await c.req.parseBody();
    const lang = langOf(c, form);
    const processId = String(form.process_id ?? '');
    const problem = openOr404(lang, processId, 'payment');
    if (problem) return c.html(messagePage(lang, word(lang, 'paymentTitle'), problem), 404);
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
      return c.html(resultPage(lang, result));
    } catch (error) {
      if (error instanceof CardInputError)
        return c.html(paymentForm(lang, processId, cardProblemText(lang, error.problem)), 400);
      if (error instanceof ProcessorAError)
        return c.html(messagePage(lang, word(lang, 'paymentTitle'), error.dsc), 400);
      throw error;
    }
  });

  router.get('/checkout/new/cancel', (c) => {
    const lang = langOf(c);
    try {
      return c.html(resultPage(lang, processor.cancelHosted(c.req.query('process_id') ?? '')));
    } catch (error) {
      if (error instanceof ProcessorAError)
        return c.html(messagePage(lang, word(lang, 'paymentTitle'), error.dsc), 400);
      throw error;
    }
  });

  router.get('/checkout/register_card/new', (c) => {
    const lang = langOf(c);
    const processId = c.req.query('process_id') ?? '';
    const problem = openOr404(lang, processId, 'registration');
    if (problem) return c.html(messagePage(lang, word(lang, 'registrationTitle'), problem), 404);
    return c.html(
      registrationForm(lang, processId, amountHint(c.req.query('amount'), c.req.query('currency'))),
    );
  });

  router.post('/checkout/register_card/new', async (c) => {
    const form = await c.req.parseBody();
    const lang = langOf(c, form);
    const hint = amountHint(form.amount, form.currency);
    const processId = String(form.process_id ?? '');
    const problem = openOr404(lang, processId, 'registration');
    if (problem) return c.html(messagePage(lang, word(lang, 'registrationTitle'), problem), 404);
    try {
      const card = readCard(
        {
          number: String(form.card_number ?? ''),
          expiry: String(form.card_expiry ?? ''),
          cvv: String(form.card_cvv ?? ''),
        },
        core.clock.now(),
      );
      return c.html(resultPage(lang, processor.registerHosted(processId, card)));
    } catch (error) {
      if (error instanceof CardInputError)
        return c.html(registrationForm(lang, processId, hint, cardProblemText(lang, error.problem)), 400);
      if (error instanceof ProcessorAError)
        return c.html(messagePage(lang, word(lang, 'registrationTitle'), error.dsc), 400);
      throw error;
    }
  });

  router.get('/checkout/register_card/cancel', (c) => {
    const lang = langOf(c);
    try {
      return c.html(resultPage(lang, processor.cancelRegistration(c.req.query('process_id') ?? '')));
    } catch (error) {
      if (error instanceof ProcessorAError)
        return c.html(messagePage(lang, word(lang, 'registrationTitle'), error.dsc), 400);
      throw error;
    }
  });

  return router;
}
