// The hosted pages: plain HTML on the sandbox's own origin, with `data-testid` hooks for browser tests.
// What a developer sees while integrating, framed by (or reached from) the merchant's pay page: in its
// language (Spanish unless told English) and with amounts as the pay page writes them (`Gs. 150.000`).

import { type DisplayLang, formatMoney } from '@payrail/money';
import type { CardInputProblem } from '../../domain/errors';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export type FormLang = DisplayLang;

const WORDS = {
  es: {
    brandA: 'Procesador A · entorno de pruebas',
    brandB: 'Procesador B · entorno de pruebas',
    paymentTitle: 'Pago con tarjeta',
    registrationTitle: 'Registrar tarjeta',
    orderTitle: 'Pagar pedido',
    addCardTitle: 'Agregar tarjeta',
    total: 'Total: {amount}',
    pay: 'Pagar',
    payAmount: 'Pagar {amount}',
    saveCard: 'Guardar tarjeta',
    registrationCharge:
      'La tarjeta queda registrada en el procesador y el comercio cobra {amount} con ella enseguida.',
    cardNumber: 'Número de tarjeta',
    expiry: 'Vencimiento (MM/AA)',
    expiryPlaceholder: 'MM/AA',
    cvv: 'Código de seguridad (CVV)',
    holder: 'Titular (como figura en la tarjeta)',
    cancel: 'Cancelar',
    backToMerchant: 'Volver al comercio',
    note: 'Procesador simulado: solo acepta las tarjetas de prueba.',
    resultTitle: 'Resultado',
    continue: 'Continuar',
    approved: 'Pago aprobado',
    declined: 'Pago rechazado (código {code})',
    registered: 'Tarjeta registrada',
    failed: 'No se pudo registrar la tarjeta',
    cancelled: 'Operación cancelada',
    paymentDeclined: 'Pago rechazado: {reason}',
    unknownProcess: 'Proceso desconocido',
    processUsed: 'Este proceso ya fue utilizado',
    noSuchForm: 'Formulario inexistente',
    formUsed: 'Formulario ya utilizado',
    noSuchOrder: 'No existe pedido',
    orderPaid: 'El pedido ya fue pagado',
    orderClosed: 'El pedido está cancelado o en proceso',
    'expiry-format': 'El vencimiento se escribe MM/AA',
    'expiry-month': 'El mes de vencimiento va de 01 a 12',
    expired: 'La tarjeta está vencida',
    'number-digits': 'El número de tarjeta tiene de 13 a 19 dígitos',
    'not-a-test-card': 'Solo se aceptan las tarjetas de prueba del sandbox (ver su README)',
    'cvv-digits': 'El CVV tiene 3 o 4 dígitos',
  },
  en: {
    brandA: 'Processor A · sandbox',
    brandB: 'Processor B · sandbox',
    paymentTitle: 'Card payment',
    registrationTitle: 'Register a card',
    orderTitle: 'Pay the order',
    addCardTitle: 'Add a card',
    total: 'Total: {amount}',
    pay: 'Pay',
    payAmount: 'Pay {amount}',
    saveCard: 'Save card',
    registrationCharge:
      'The card is registered with the processor and the merchant charges {amount} to it right away.',
    cardNumber: 'Card number',
    expiry: 'Expiry (MM/YY)',
    expiryPlaceholder: 'MM/YY',
    cvv: 'Security code (CVV)',
    holder: 'Cardholder (as on the card)',
    cancel: 'Cancel',
    backToMerchant: 'Back to the merchant',
    note: 'Simulated processor: only test cards are accepted.',
    resultTitle: 'Result',
    continue: 'Continue',
    approved: 'Payment approved',
    declined: 'Payment declined (code {code})',
    registered: 'Card registered',
    failed: 'The card could not be registered',
    cancelled: 'Cancelled',
    paymentDeclined: 'Payment declined: {reason}',
    unknownProcess: 'Unknown process',
    processUsed: 'This process was already used',
    noSuchForm: 'No such form',
    formUsed: 'This form was already used',
    noSuchOrder: 'No such order',
    orderPaid: 'The order is already paid',
    orderClosed: 'The order is cancelled or in process',
    'expiry-format': 'Write the expiry as MM/YY',
    'expiry-month': 'The expiry month is 01 to 12',
    expired: 'The card has expired',
    'number-digits': 'A card number has 13 to 19 digits',
    'not-a-test-card': 'Only the sandbox test cards are accepted (see its README)',
    'cvv-digits': 'The CVV has 3 or 4 digits',
  },
} satisfies Record<FormLang, Record<string, string>>;

export type Words = keyof (typeof WORDS)['es'];

/** A word of the forms in `lang`, its `{name}` placeholders filled. */
export function word(lang: FormLang, key: Words, values: Record<string, string> = {}): string {
  return WORDS[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

export const cardProblemText = (lang: FormLang, problem: CardInputProblem) => word(lang, problem);

const isLang = (value: string | undefined): value is FormLang => value === 'es' || value === 'en';

/**
 * The language of a form: `lang` of the URL (the pay page that frames or links to it passes its own), then
 * the form's own `lang` field (a post), then the browser's first of Spanish or English, else Spanish.
 */
export function formLang(
  query: string | undefined,
  field: unknown,
  acceptLanguage: string | undefined,
): FormLang {
  if (isLang(query)) return query;
  if (typeof field === 'string' && isLang(field)) return field;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const base = part.trim().split(';')[0]?.split('-')[0]?.toLowerCase();
    if (isLang(base)) return base;
  }
  return 'es';
}

/**
 * The amount the page around a card registration says is about to be charged (`amount` and `currency` of
 * the URL or of the form's fields): a display hint, charged by nobody here. Undefined when absent or not an
 * amount.
 */
export function amountHint(
  amount: unknown,
  currency: unknown,
): { amount: string; currency: string } | undefined {
  if (typeof amount !== 'string' || typeof currency !== 'string') return undefined;
  if (!/^\d{1,15}(\.\d{1,2})?$/.test(amount) || !/^[A-Z]{3}$/.test(currency)) return undefined;
  return { amount, currency };
}

export const money = (lang: FormLang, amount: string | number, currency: string) =>
  formatMoney(amount, currency, lang);

function layout(lang: FormLang, title: string, body: string): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:1rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.2rem;margin:0 0 .5rem}
label{display:block;margin:.6rem 0 .2rem;font-size:.9rem}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #9aa4b1;border-radius:4px}
.row{display:flex;gap:.75rem}.row>div{flex:1}
button{margin-top:1rem;width:100%;padding:.7rem;font-size:1rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer}
.money{white-space:nowrap}
.error{color:#b91c1c;margin:.6rem 0}.note{color:#57606a;font-size:.8rem;margin-top:1rem}
</style></head><body>${body}</body></html>`;
}

export interface CardFormOptions {
  lang: FormLang;
  title: string;
  /** The sandbox that shows it, e.g. "Processor A · sandbox". */
  brand: string;
  action: string;
  hiddenFields: Record<string, string>;
  /**
   * A payment: its own amount (shown as the total and on the button). A registration: the amount the
   * merchant's page said it charges next, when it said one (the button then reads as that payment).
   */
  amount?: { amount: string | number; currency: string };
  /** What the submit button does (`data-action`); its `data-testid` is always `card-submit`. */
  buttonTestId: 'pay-button' | 'save-card-button';
  cancelUrl?: string;
  error?: string;
  returnLink?: string;
}

export function cardFormPage(options: CardFormOptions): string {
  const { lang } = options;
  const hidden = Object.entries({ ...options.hiddenFields, lang })
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const amount = options.amount
    ? `<span class="money">${escapeHtml(money(lang, options.amount.amount, options.amount.currency))}</span>`
    : undefined;
  const payment = options.buttonTestId === 'pay-button';
  let amountLine = '';
  if (amount && payment) amountLine = `<p data-testid="amount">${word(lang, 'total', { amount })}</p>`;
  if (amount && !payment)
    amountLine = `<p data-testid="registration-charge">${word(lang, 'registrationCharge', { amount })}</p>`;
  // The button says what the customer does: pay that amount (a registration the payment follows too).
  const buttonLabel = amount ? word(lang, 'payAmount', { amount }) : word(lang, payment ? 'pay' : 'saveCard');
  return layout(
    lang,
    options.title,
    `<h1>${escapeHtml(options.brand)}</h1>
${amountLine}
${options.error ? `<p class="error" role="alert" data-testid="form-error">${escapeHtml(options.error)}</p>` : ''}
${options.returnLink ? `<p><a data-testid="return-link" href="${escapeHtml(options.returnLink)}">${word(lang, 'backToMerchant')}</a></p>` : ''}
<form method="post" action="${escapeHtml(options.action)}" autocomplete="off">${hidden}
<label for="card-number">${word(lang, 'cardNumber')}</label>
<input id="card-number" name="card_number" data-testid="card-number" inputmode="numeric" autocomplete="off" required>
<div class="row"><div><label for="card-expiry">${word(lang, 'expiry')}</label>
<input id="card-expiry" name="card_expiry" data-testid="card-expiry" placeholder="${word(lang, 'expiryPlaceholder')}" autocomplete="off" required></div>
<div><label for="card-cvv">${word(lang, 'cvv')}</label>
<input id="card-cvv" name="card_cvv" data-testid="card-cvv" type="password" inputmode="numeric" autocomplete="cc-csc" maxlength="4" pattern="[0-9]{3,4}" required></div></div>
<label for="card-holder">${word(lang, 'holder')}</label>
<input id="card-holder" name="card_holder" data-testid="card-holder" autocomplete="off">
<button type="submit" data-testid="card-submit" data-action="${options.buttonTestId}">${buttonLabel}</button>
</form>
${options.cancelUrl ? `<p><a data-testid="cancel-link" href="${escapeHtml(options.cancelUrl)}">${word(lang, 'cancel')}</a></p>` : ''}
<p class="note">${word(lang, 'note')}</p>`,
  );
}

/** The hosted result of a form: `approved`, `declined` (with its code), `registered`, `failed`, `cancelled`. */
export type FormOutcome = 'approved' | 'declined' | 'registered' | 'failed' | 'cancelled';

/** PROCESSOR_A's iframe result: tells the parent page, and goes to return_url itself when not framed. */
export function iframeResultPage(result: {
  lang: FormLang;
  outcome: FormOutcome;
  responseCode?: string;
  message: string;
  processId: string;
  returnUrl: string;
}): string {
  const payload = JSON.stringify({
    source: 'processor-a',
    message: result.message,
    status: result.message,
    process_id: result.processId,
    return_url: result.returnUrl,
  }).replace(/</g, '\\u003c');
  const text = word(result.lang, result.outcome, { code: result.responseCode ?? '' });
  return layout(
    result.lang,
    word(result.lang, 'resultTitle'),
    `<p data-testid="result" data-outcome="${result.outcome}" data-code="${escapeHtml(result.responseCode ?? '')}">${escapeHtml(text)}</p>
<p><a data-testid="return-link" href="${escapeHtml(result.returnUrl)}" target="_top">${word(result.lang, 'continue')}</a></p>
<script>
const result = ${payload};
window.parent.postMessage(result, '*');
if (window.top === window) window.location.replace(result.return_url);
</script>`,
  );
}

export function messagePage(lang: FormLang, title: string, text: string): string {
  return layout(lang, title, `<p data-testid="form-error" class="error">${escapeHtml(text)}</p>`);
}
