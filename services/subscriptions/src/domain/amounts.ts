import { amountCurrencyProblem } from '@payrail/contracts';
import { AmountNotInCurrency, type FieldPath } from './errors';

/** An amount of a request and the field it came in. */
export interface RequestAmount {
  amount: string;
  path: FieldPath;
}

/**
 * No fraction of a guaraní: every amount a request gives a subscription has at most the decimals of the
 * subscription's currency (`amountCurrencyProblem`, ISO 4217). Checked before anything changes; refuses
 * with every offending field.
 */
export function assertAmountsFitCurrency(currency: string, amounts: RequestAmount[]): void {
  const fields = amountsNotInCurrency(currency, amounts);
  if (fields.length > 0) throw new AmountNotInCurrency(fields);
}

/** The amounts that do not fit `currency`, each with its field and why (none: every one fits). */
export function amountsNotInCurrency(
  currency: string,
  amounts: RequestAmount[],
): Array<{ path: FieldPath; message: string }> {
  return amounts.flatMap(({ amount, path }) => {
    const message = amountCurrencyProblem(amount, currency);
    return message ? [{ path, message }] : [];
  });
}
