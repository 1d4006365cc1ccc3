import type { CustomerEmailKind, DeclineCategory } from '@payrail/contracts';
import { formatMoney } from '@payrail/money';

/** An amount as the customer reads it, kept on one line (`Gs.` and its number never part). */
const money = (amount: string, currency: string, lang: EmailLang) =>
  formatMoney(amount, currency, lang).replace(/ /g, '\u00a0');
import type { IsoDate } from '@payrail/time';

/**
 * The e-mails to a merchant's customers (issue 29), in the customer's language: subject, plain text and
 * HTML. Pure: the application decides which to send and when; the relay puts the signed link where
 * `ACTION_PLACEHOLDER` stands (the link is made when the mail leaves, so it is never stored in clear).
 */

export const EMAIL_LANGUAGES = ['es', 'en'] as const;
export type EmailLang = (typeof EMAIL_LANGUAGES)[number];

export function emailLang(language: string | null | undefined): EmailLang {
  return language === 'en' ? 'en' : 'es';
}

export const ACTION_PLACEHOLDER = '{{action}}';

/** A signed link is valid this long, judged by the merchant's (possibly simulated) time. */
export const CARE_LINK_LIFETIME_MS = 7 * 24 * 3_600_000;

/** What a card shows in an e-mail: its brand and last 4, nothing else. */
export interface CardShown {
  brand: string;
  last4: string;
}

export type EmailFacts =
  | {
      kind: 'receipt';
      concept: string;
      amount: string;
      currency: string;
      paidAt: string;
      /** The merchant's local wall time of the payment, `yyyy-MM-dd HH:mm`. */
      paidAtLocal: string;
      paymentId: string;
      card: CardShown | null;
      bankTransfer: boolean;
      installment: number | null;
    }
  | {
      kind: 'payment-failed';
      concept: string;
      amount: string;
      currency: string;
      category: DeclineCategory;
      card: CardShown | null;
      installment: number;
    }
  | {
      kind: 'upcoming-debit';
      concept: string;
      amount: string;
      currency: string;
      paymentDate: IsoDate;
      card: CardShown | null;
      installment: number;
    }
  | { kind: 'card-expiring'; concept: string; card: CardShown; expiry: string; paymentDate: IsoDate }
  | { kind: 'past-due'; concept: string; amount: string; currency: string; installment: number }
  | { kind: 'cancelled'; concept: string; byDunning: boolean };

export interface ComposedEmail {
  kind: CustomerEmailKind;
  subject: string;
  text: string;
  html: string;
  /** Whether the body carries the signed link to the card change. */
  hasAction: boolean;
}

/** Why a charge was declined, in words a customer understands (never the processor's code). */
const DECLINE_REASON: Record<EmailLang, Record<DeclineCategory, string>> = {
  es: {
    soft: 'Tu banco no autorizó el cobro en este momento (por ejemplo, por fondos insuficientes o un límite de la tarjeta).',
    hard: 'Tu banco rechazó la tarjeta: ya no se puede cobrar con ella.',
    'card-blocked': 'La tarjeta quedó bloqueada para nuevos cobros después de varios rechazos.',
    'processor-down': 'El procesador de pagos no respondió; lo intentaremos de nuevo.',
  },
  en: {
    soft: 'Your bank did not authorise the charge this time (for example, insufficient funds or a card limit).',
    hard: 'Your bank refused the card: it can no longer be charged.',
    'card-blocked': 'The card was blocked for new charges after several declines.',
    'processor-down': 'The payment processor did not answer; we will try again.',
  },
};

const WORDS = {
  es: {
    greeting: (name: string) => (name ? `Hola, ${name}:` : 'Hola:'),
    card: (card: CardShown | null) => (card ? `${card.brand} terminada en ${card.last4}` : 'tu tarjeta'),
    installment: (n: number) => `cuota ${n}`,
    footer: (merchant: string) => `Recibís este correo porque pagás a ${merchant} con payrail.`,
    receiptSubject: (concept: string) => `Recibo de tu pago: ${concept}`,
    receiptIntro: (merchant: string) => `${merchant} recibió tu pago. Este es tu recibo.`,
    merchant: 'Comercio',
    concept: 'Concepto',
    amount: 'Importe',
    date: 'Fecha y hora',
    method: 'Medio de pago',
    transfer: 'Transferencia bancaria',
    paymentId: 'Identificador del pago',
    failedSubject: (concept: string) => `No pudimos cobrar tu pago de ${concept}`,
    failedIntro: (amount: string, card: string, inst: string) =>
      `No pudimos cobrar ${amount} (${inst}) con ${card}.`,
    failedAction: 'Cambiar la tarjeta',
    failedHint:
      'Podés darnos otra tarjeta con este botón; el enlace vale 7 días y una sola vez. Si no hacés nada, lo intentaremos de nuevo según el plan del comercio.',
    upcomingSubject: (concept: string, date: string) => `Tu próximo pago de ${concept} es el ${date}`,
    upcomingIntro: (amount: string, date: string, card: string) =>
      `El ${date} cobraremos ${amount} con ${card}.`,
    upcomingHint: 'No necesitás hacer nada si la tarjeta sigue vigente y con fondos.',
    expiringSubject: (concept: string) => `Tu tarjeta vence antes de tu próximo pago de ${concept}`,
    expiringIntro: (card: string, expiry: string, date: string) =>
      `${card} vence en ${expiry}, antes de tu próximo pago del ${date}.`,
    expiringAction: 'Cambiar la tarjeta',
    expiringHint:
      'Registrá otra tarjeta para que el pago no se rechace. El enlace vale 7 días y una sola vez.',
    pastDueSubject: (concept: string) => `Tu suscripción ${concept} tiene un pago pendiente`,
    pastDueIntro: (amount: string, inst: string) =>
      `No pudimos cobrar ${amount} (${inst}) después de varios intentos: tu suscripción quedó con un pago atrasado.`,
    pastDueAction: 'Pagar con otra tarjeta',
    pastDueHint: 'Con otra tarjeta la cuota se cobra al momento y la suscripción vuelve a estar al día.',
    cancelledSubject: (concept: string) => `Tu suscripción ${concept} fue cancelada`,
    cancelledIntro: (merchant: string, byDunning: boolean) =>
      byDunning
        ? `${merchant} canceló tu suscripción porque varios pagos no se pudieron cobrar. No se harán más cobros.`
        : `${merchant} canceló tu suscripción. No se harán más cobros.`,
  },
  en: {
    greeting: (name: string) => (name ? `Hello ${name},` : 'Hello,'),
    card: (card: CardShown | null) => (card ? `${card.brand} ending in ${card.last4}` : 'your card'),
    installment: (n: number) => `installment ${n}`,
    footer: (merchant: string) => `You get this e-mail because you pay ${merchant} with payrail.`,
    receiptSubject: (concept: string) => `Receipt for your payment: ${concept}`,
    receiptIntro: (merchant: string) => `${merchant} received your payment. Here is your receipt.`,
    merchant: 'Merchant',
    concept: 'Concept',
    amount: 'Amount',
    date: 'Date and time',
    method: 'Paid with',
    transfer: 'Bank transfer',
    paymentId: 'Payment id',
    failedSubject: (concept: string) => `We could not collect your payment for ${concept}`,
    failedIntro: (amount: string, card: string, inst: string) =>
      `We could not charge ${amount} (${inst}) to ${card}.`,
    failedAction: 'Change the card',
    failedHint:
      'You can give us another card with this button; the link works once, for 7 days. If you do nothing, we will try again as the merchant’s plan says.',
    upcomingSubject: (concept: string, date: string) => `Your next payment for ${concept} is on ${date}`,
    upcomingIntro: (amount: string, date: string, card: string) =>
      `On ${date} we will charge ${amount} to ${card}.`,
    upcomingHint: 'Nothing to do if the card is still valid and funded.',
    expiringSubject: (concept: string) => `Your card expires before your next payment for ${concept}`,
    expiringIntro: (card: string, expiry: string, date: string) =>
      `${card} expires at the end of ${expiry}, before your next payment on ${date}.`,
    expiringAction: 'Change the card',
    expiringHint: 'Register another card so the payment is not declined. The link works once, for 7 days.',
    pastDueSubject: (concept: string) => `Your subscription ${concept} has a payment overdue`,
    pastDueIntro: (amount: string, inst: string) =>
      `We could not charge ${amount} (${inst}) after several attempts: your subscription is past due.`,
    pastDueAction: 'Pay with another card',
    pastDueHint:
      'With another card the installment is charged at once and the subscription is up to date again.',
    cancelledSubject: (concept: string) => `Your subscription ${concept} was cancelled`,
    cancelledIntro: (merchant: string, byDunning: boolean) =>
      byDunning
        ? `${merchant} cancelled your subscription because several payments could not be collected. No more charges will be made.`
        : `${merchant} cancelled your subscription. No more charges will be made.`,
  },
} as const;

/** `2026-12-05` as `05/12/2026` (Spanish) or `2026-12-05` (English: unambiguous everywhere). */
export function showDate(date: IsoDate, lang: EmailLang): string {
  if (lang === 'en') return date;
  const [year, month, day] = date.split('-');
  return `${day}/${month}/${year}`;
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

interface Body {
  subject: string;
  paragraphs: string[];
  rows?: Array<[string, string]>;
  action?: { label: string; hint: string };
}

function bodyOf(facts: EmailFacts, lang: EmailLang, merchant: string): Body {
  const w = WORDS[lang];
  switch (facts.kind) {
    case 'receipt': {
      const amount = money(facts.amount, facts.currency, lang);
      const concept = facts.installment
        ? `${facts.concept} (${w.installment(facts.installment)})`
        : facts.concept;
      return {
        subject: w.receiptSubject(facts.concept),
        paragraphs: [w.receiptIntro(merchant)],
        rows: [
          [w.merchant, merchant],
          [w.concept, concept],
          [w.amount, amount],
          [w.date, facts.paidAtLocal],
          [w.method, facts.bankTransfer ? w.transfer : w.card(facts.card)],
          [w.paymentId, facts.paymentId],
        ],
      };
    }
    case 'payment-failed':
      return {
        subject: w.failedSubject(facts.concept),
        paragraphs: [
          w.failedIntro(
            money(facts.amount, facts.currency, lang),
            w.card(facts.card),
            w.installment(facts.installment),
          ),
          DECLINE_REASON[lang][facts.category],
        ],
        action: { label: w.failedAction, hint: w.failedHint },
      };
    case 'upcoming-debit':
      return {
        subject: w.upcomingSubject(facts.concept, showDate(facts.paymentDate, lang)),
        paragraphs: [
          w.upcomingIntro(
            money(facts.amount, facts.currency, lang),
            showDate(facts.paymentDate, lang),
            w.card(facts.card),
          ),
          w.upcomingHint,
        ],
      };
    case 'card-expiring':
      return {
        subject: w.expiringSubject(facts.concept),
        paragraphs: [w.expiringIntro(w.card(facts.card), facts.expiry, showDate(facts.paymentDate, lang))],
        action: { label: w.expiringAction, hint: w.expiringHint },
      };
    case 'past-due':
      return {
        subject: w.pastDueSubject(facts.concept),
        paragraphs: [
          w.pastDueIntro(money(facts.amount, facts.currency, lang), w.installment(facts.installment)),
        ],
        action: { label: w.pastDueAction, hint: w.pastDueHint },
      };
    case 'cancelled':
      return {
        subject: w.cancelledSubject(facts.concept),
        paragraphs: [w.cancelledIntro(merchant, facts.byDunning)],
      };
  }
}

/**
 * The e-mail of `facts` in `lang`. The HTML is a single table-less column with inline styles (mail readers
 * drop style sheets), readable at 390 px; its one action link is the only `href` marked `data-action`.
 */
export function composeEmail(
  facts: EmailFacts,
  lang: EmailLang,
  recipient: { firstName: string },
  merchant: string,
): ComposedEmail {
  const w = WORDS[lang];
  const body = bodyOf(facts, lang, merchant);
  const text = [
    w.greeting(recipient.firstName),
    '',
    ...body.paragraphs.flatMap((p) => [p, '']),
    ...(body.rows ? [...body.rows.map(([label, value]) => `${label}: ${value}`), ''] : []),
    ...(body.action ? [`${body.action.label}: ${ACTION_PLACEHOLDER}`, body.action.hint, ''] : []),
    '--',
    w.footer(merchant),
  ].join('\n');
  const e = escapeHtml;
  const rows = body.rows
    ? `<table role="presentation" style="width:100%;border-collapse:collapse;margin:16px 0">${body.rows
        .map(
          ([label, value]) =>
            `<tr><th scope="row" style="text-align:left;padding:6px 8px 6px 0;color:#4b5563;font-weight:normal;vertical-align:top">${e(label)}</th><td style="padding:6px 0;font-weight:600;word-break:break-word">${e(value)}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  const action = body.action
    ? `<p style="margin:24px 0 8px"><a data-action href="${ACTION_PLACEHOLDER}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${e(body.action.label)}</a></p><p style="color:#4b5563;font-size:14px">${e(body.action.hint)}</p>`
    : '';
  const html = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(body.subject)}</title></head><body style="margin:0;padding:0;background:#f3f4f6;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#111827"><main style="max-width:560px;margin:0 auto;padding:24px 16px"><div style="background:#ffffff;border-radius:8px;padding:24px"><h1 style="font-size:20px;margin:0 0 16px">${e(merchant)}</h1><p>${e(w.greeting(recipient.firstName))}</p>${body.paragraphs.map((p) => `<p>${e(p)}</p>`).join('')}${rows}${action}</div><p style="color:#4b5563;font-size:12px;margin:16px 8px">${e(w.footer(merchant))}</p></main></body></html>`;
  return { kind: facts.kind, subject: body.subject, text, html, hasAction: body.action !== undefined };
}

/** The month a card expires, `MM/YYYY`. */
export function cardExpiry(month: number, year: number): string {
  return `${String(month).padStart(2, '0')}/${year}`;
}

/** The last day a card can be charged: the end of its expiry month. */
export function cardLastDay(month: number, year: number): IsoDate {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(last).padStart(2, '0')}`;
}

/**
 * When the next attempt of a failed send is made: `schedule[attempts - 1]` after now (the last step
 * repeats), at the latest when the retry window from the mail's creation closes; after that it is given up
 * (null).
 */
export function nextAttemptAt(
  createdAt: Date,
  now: Date,
  attempts: number,
  scheduleMs: number[],
  windowMs: number,
): Date | null {
  const givesUpAt = createdAt.getTime() + windowMs;
  if (now.getTime() >= givesUpAt) return null;
  const step = scheduleMs[Math.min(attempts - 1, scheduleMs.length - 1)] ?? 60_000;
  // The last try is made when the window closes, not skipped because a long step would pass it.
  return new Date(Math.min(now.getTime() + step, givesUpAt));
}

/** How long a failed send is tried again: 3 days from the mail's creation. */
export const EMAIL_RETRY_WINDOW_MS = 3 * 24 * 3_600_000;
