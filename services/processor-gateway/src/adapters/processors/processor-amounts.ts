import { formatAmount, parseAmount } from '@payrail/money';

/** PROCESSOR_A: always two decimals, `"150000.00"`, also for guaraníes. */
export function amountForProcessorA(amount: string): string {
  return formatAmount(parseAmount(amount));
}

/**
 * PROCESSOR_B: a whole number of the currency unit (`150000`). An amount with cents cannot be sent without
 * rounding someone's money, so it is refused instead (`undefined`).
 */
export function amountForProcessorB(amount: string): string | undefined {
  const minor = parseAmount(amount);
  if (minor % 100n !== 0n) return undefined;
  return (minor / 100n).toString();
}

/** Back from a processor's wire format (number or string, with or without decimals) to ours. */
export function amountFromProcessor(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return formatAmount(parseAmount(value));
  } catch {
    return undefined;
  }
}
