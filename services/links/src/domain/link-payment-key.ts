/** `link:<id>:payment:<n>` → the attempt; any other key (an installment's) → undefined. */
export function linkPaymentOfKey(key: string): { linkId: number; paymentNumber: number } | undefined {
  const match = /^link:(\d{1,15}):payment:(\d{1,6})$/.exec(key);
  if (!match) return undefined;
  return { linkId: Number(match[1]), paymentNumber: Number(match[2]) };
}
