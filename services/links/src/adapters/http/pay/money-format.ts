import { formatAmount, parseAmount } from '@payrail/money';
import type { Lang } from './i18n';

/** How each language writes numbers: Spanish `150.000,50`, English `150,000.50`. */
const SEPARATORS: Record<Lang, { group: string; decimal: string }> = {
  es: { group: '.', decimal: ',' },
  en: { group: ',', decimal: '.' },
};

/**
 * Currencies as the customer reads them. The guaraní has no minor unit in use: `Gs. 150.000`. The euro
 * goes after the number in Spanish (`1.234,50 €`), before it in English (`€1,234.50`).
 */
const CURRENCY_STYLE: Record<string, { symbol: string; decimals: boolean; after?: Lang[]; space: boolean }> =
  {
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
 * An amount (a decimal string, as the link keeps it) in the customer's language and the link's currency.
 * Digits are grouped by hand on the string: no float ever holds the amount.
 */
export function formatMoney(amount: string, currency: string, lang: Lang): string {
  const normalized = formatAmount(parseAmount(amount));
  const negative = normalized.startsWith('-');
  const [whole = '0', cents = '00'] = (negative ? normalized.slice(1) : normalized).split('.');
  const style = CURRENCY_STYLE[currency] ?? { symbol: currency, decimals: true, space: true };
  const { group: groupSeparator, decimal } = SEPARATORS[lang];
  // A guaraní amount with cents (never created by the API, but not impossible in old data) still shows them.
  const showCents = style.decimals || cents !== '00';
  const number = `${negative ? '-' : ''}${group(whole, groupSeparator)}${showCents ? decimal + cents : ''}`;
  if (style.after?.includes(lang)) return `${number} ${style.symbol}`;
  return style.space || lang === 'es' ? `${style.symbol} ${number}` : `${style.symbol}${number}`;
}
