/**
 * Money in integer minor units (hundredths) as bigint: never a JS float. Amounts arrive as JSON numbers
 * or strings and leave as decimal strings with two places.
 */
export type Minor = bigint;

export class InvalidAmount extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAmount';
  }
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Parses `150000`, `150000.5`, `"150000.50"`. A JSON number is read through its shortest decimal form
 * (`String(10.1) === "10.1"`), which is exactly what the client wrote for any amount with at most two
 * decimals. More than two decimals, exponents, NaN and infinities are refused.
 */
export function parseAmount(input: number | string): Minor {
  if (typeof input === 'number' && !Number.isFinite(input)) throw new InvalidAmount('amount must be finite');
  const text = typeof input === 'number' ? String(input) : input.trim();
  const match = DECIMAL.exec(text);
  if (!match) {
    throw new InvalidAmount(
      /\.\d{3,}$/.test(text) ? 'amount has more than two decimals' : 'amount is not a decimal number',
    );
  }
  const [, sign, whole, fraction = ''] = match;
  const minor = BigInt(whole ?? '0') * 100n + BigInt(fraction.padEnd(2, '0'));
  return sign ? -minor : minor;
}

/** What `formatAmount` writes: the one form amounts take on the wire, in events and in numeric columns. */
export const AMOUNT_STRING_PATTERN = /^-?\d+\.\d{2}$/;

/** `1500050n` → `"15000.50"`. */
export function formatAmount(minor: Minor): string {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const whole = abs / 100n;
  const cents = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${cents}`;
}

/** Normalises any accepted amount to the two-decimal string used on the wire and in numeric columns. */
export function normalizeAmount(input: number | string): string {
  return formatAmount(parseAmount(input));
}

/** Whether the value is an amount with at most two decimals (for zod refinements). */
export function isAmount(input: unknown): input is number | string {
  if (typeof input !== 'number' && typeof input !== 'string') return false;
  try {
    parseAmount(input);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------
// Amounts shown to people.

/** The languages amounts are shown to people in: the pay page's and the sandbox forms' (Spanish first). */
export type DisplayLang = 'es' | 'en';

/** How each language writes numbers: Spanish `150.000,50`, English `150,000.50`. */
const SEPARATORS: Record<DisplayLang, { group: string; decimal: string }> = {
  es: { group: '.', decimal: ',' },
  en: { group: ',', decimal: '.' },
};

/**
 * Currencies as a customer reads them. The guaraní has no minor unit in use: `Gs. 150.000`. The euro
 * goes after the number in Spanish (`1.234,50 €`), before it in English (`€1,234.50`).
 */
const CURRENCY_STYLE: Record<
  string,
  { symbol: string; decimals: boolean; after?: DisplayLang[]; space: boolean }
> = {
  PYG: { symbol: 'Gs.', decimals: false, space: true },
  USD: { symbol: 'US$', decimals: true, space: true },
  EUR: { symbol: '€', decimals: true, after: ['es'], space: false },
};

function group(digits: string, separator: string): string {
  let out = '';
  for (let index = 0; index < digits.length; index++) {
    const fromEnd = digits.length - index;
    out += digits[index];
    if (fromEnd > 1 && (fromEnd - 1) % 3 === 0) out += separator;
  }
  return out;
}

/**
 * An amount (a decimal string or an integer, never a float) in a person's language and its currency, as
 * the pay page and the processor sandbox's forms show it. Digits are grouped by hand on the string.
 */
export function formatMoney(amount: string | number, currency: string, lang: DisplayLang): string {
  const normalized = formatAmount(parseAmount(amount));
  const negative = normalized.startsWith('-');
  const [whole = '0', cents = '00'] = (negative ? normalized.slice(1) : normalized).split('.');
  const style = CURRENCY_STYLE[currency] ?? { symbol: currency, decimals: true, space: true };
  const { group: groupSeparator, decimal } = SEPARATORS[lang];
  // A guaraní amount with cents (never accepted by the API, but not impossible in old data) still shows them.
  const showCents = style.decimals || cents !== '00';
  const number = `${negative ? '-' : ''}${group(whole, groupSeparator)}${showCents ? decimal + cents : ''}`;
  if (style.after?.includes(lang)) return `${number} ${style.symbol}`;
  return style.space || lang === 'es' ? `${style.symbol} ${number}` : `${style.symbol}${number}`;
}

/**
 * Decimal places of each currency's minor unit (ISO 4217). The guaraní has none: a PYG amount is a whole
 * number of guaraníes. Amounts are still kept in hundredths everywhere (one representation); this says
 * which hundredths a currency can hold.
 */
export const CURRENCY_DECIMALS: Readonly<Record<string, number>> = { PYG: 0, USD: 2, EUR: 2 };

/** The decimals of `currency` (two for a currency the table does not name). */
export function decimalsOf(currency: string): number {
  return CURRENCY_DECIMALS[currency] ?? 2;
}

/** Whether an amount in hundredths is one `currency` can hold: `9900050n` (99000.50) is not PYG. */
export function fitsCurrency(minor: Minor, currency: string): boolean {
  return minor % 10n ** BigInt(2 - decimalsOf(currency)) === 0n;
}
