/** Automatic debit: one key per installment and attempt. */
export function installmentChargeKey(installmentId: number, attempt: number): string {
  return `installment:${installmentId}:attempt:${attempt}`;
}

/** The pay page: one key per link and payment attempt. */
export function linkPaymentKey(linkId: number, paymentNumber: number): string {
  return `link:${linkId}:payment:${paymentNumber}`;
}
