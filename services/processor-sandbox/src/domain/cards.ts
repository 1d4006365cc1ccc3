import { CardInputError } from './errors';

/** Response codes the simulated processors answer; only `00` is an approval. */
export const APPROVED = '00';
export const DECLINE_CODES = ['05', '12', '14', '51', '54', '57', '61', '94', '96'] as const;
export type ResponseCode = typeof APPROVED | (typeof DECLINE_CODES)[number];

export function isResponseCode(value: string): value is ResponseCode {
  return value === APPROVED || (DECLINE_CODES as readonly string[]).includes(value);
}

export const RESPONSE_DESCRIPTIONS: Record<ResponseCode, string> = {
  '00': 'Transaccion aprobada',
  '05': 'No aprobada',
  '12': 'Transaccion invalida',
  '14': 'Tarjeta invalida',
  '51': 'Fondos insuficientes',
  '54': 'Tarjeta vencida',
  '57': 'Transaccion no permitida',
  '61': 'Excede el limite',
  '94': 'Transaccion duplicada',
  '96': 'Emisor no disponible',
};

/** What a test card does when it pays; the table of the README. */
export type CardBehaviour =
  | { kind: 'approve' }
  | { kind: 'decline'; code: ResponseCode; failsRegistration: boolean }
  /** Registers and pays its first payment; every later stored-card charge is refused with 51. */
  | { kind: 'first-payment-only' }
  /** Approved and committed, but the reply to the caller is lost. */
  | { kind: 'reply-lost' }
  /** Approved after a long processing time. */
  | { kind: 'slow'; delayMs: number };

const TEST_CARDS: Record<string, CardBehaviour> = {
  '4242424242424242': { kind: 'approve' },
  '5555555555554444': { kind: 'approve' },
  '4000000000000002': { kind: 'decline', code: '05', failsRegistration: true },
  '4000000000009995': { kind: 'decline', code: '51', failsRegistration: false },
  '4000000000000069': { kind: 'decline', code: '54', failsRegistration: true },
  '4000000000000341': { kind: 'first-payment-only' },
  '4000000000000259': { kind: 'reply-lost' },
  '4000000000000077': { kind: 'slow', delayMs: 8_000 },
};

export const SLOW_CARD_DELAY_MS = 8_000;

/**
 * A card typed on a hosted form. The full number stays inside the sandbox's memory; everything that
 * leaves it uses `masked`, `last4`, `brand` and the expiry.
 */
export interface EnteredCard {
  readonly number: string;
  readonly behaviour: CardBehaviour;
  readonly last4: string;
  readonly masked: string;
  readonly brand: 'Visa' | 'Mastercard';
  readonly expiryMonth: number;
  readonly expiryYear: number;
}

/** `MM/YY` (or `MM/YYYY`), and not before the month of `today`. */
export function parseExpiry(text: string, today: Date): { month: number; year: number } {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!match) throw new CardInputError('expiry-format', 'Expiry must look like MM/YY');
  const [, monthText = '', yearText = ''] = match;
  const month = Number(monthText);
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  if (month < 1 || month > 12) throw new CardInputError('expiry-month', 'Expiry month must be 01 to 12');
  const currentMonths = today.getUTCFullYear() * 12 + today.getUTCMonth();
  if (year * 12 + (month - 1) < currentMonths) throw new CardInputError('expired', 'The card has expired');
  return { month, year };
}

export function readCard(input: { number: string; expiry?: string; cvv?: string }, today: Date): EnteredCard {
  const number = input.number.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(number))
    throw new CardInputError('number-digits', 'Card number must have 13 to 19 digits');
  const behaviour = TEST_CARDS[number];
  // Refusing every other number keeps real cards from ever being typed into a test tool.
  if (!behaviour)
    throw new CardInputError('not-a-test-card', 'Only the sandbox test cards are accepted (see its README)');
  const cvv = input.cvv ?? '123';
  if (!/^\d{3,4}$/.test(cvv)) throw new CardInputError('cvv-digits', 'CVV must have 3 or 4 digits');
  const expiry = parseExpiry(input.expiry ?? defaultExpiry(today), today);
  return {
    number,
    behaviour,
    last4: number.slice(-4),
    masked: maskCardNumber(number),
    brand: number.startsWith('5') ? 'Mastercard' : 'Visa',
    expiryMonth: expiry.month,
    expiryYear: expiry.year,
  };
}

function defaultExpiry(today: Date): string {
  return `12/${String((today.getUTCFullYear() + 3) % 100).padStart(2, '0')}`;
}

export function maskCardNumber(number: string): string {
  return `${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`;
}

export function formatExpiry(card: Pick<EnteredCard, 'expiryMonth' | 'expiryYear'>): string {
  return `${String(card.expiryMonth).padStart(2, '0')}/${String(card.expiryYear % 100).padStart(2, '0')}`;
}

/** The code a test card gets by itself, before any override of the test API. */
export function naturalCode(
  card: Pick<EnteredCard, 'behaviour'>,
  context: { storedCharge: boolean; earlierApprovedPayments: number },
): ResponseCode {
  switch (card.behaviour.kind) {
    case 'decline':
      return card.behaviour.code;
    case 'first-payment-only':
      return context.storedCharge && context.earlierApprovedPayments > 0 ? '51' : APPROVED;
    default:
      return APPROVED;
  }
}
