/**
 * The charge idempotency key: processor-gateway charges each key at most once, and the key is what a
 * `payment.succeeded` / `payment.failed` says it settled. One key per attempt, built by whoever asks for the
 * charge and read back by whoever settles it:
 *
 * - `installment:<installmentId>:attempt:<n>`: automatic debit (subscriptions asks, billing-scheduler and
 *   subscriptions read the outcome);
 * - `link:<linkId>:payment:<n>`: the pay page (processor-gateway builds it from the link and the attempt
 *   number links gives it; links reads the outcome).
 *
 * The routing of payment events (`routing.ts`) tells the two apart by the first word.
 */

/** The kinds of charge a key names, by its first word. */
export const CHARGE_KEY_KINDS = ['link', 'installment'] as const;
export type ChargeKeyKind = (typeof CHARGE_KEY_KINDS)[number];

export interface InstallmentAttempt {
  installmentId: number;
  attempt: number;
}

export interface LinkPaymentAttempt {
  linkId: number;
  paymentNumber: number;
}

/** Automatic debit: one key per installment and attempt (`installment:12:attempt:3`). */
export function installmentChargeKey(installmentId: number, attempt: number): string {
  return `installment:${installmentId}:attempt:${attempt}`;
}

/** The pay page: one key per link and payment attempt (`link:7:payment:1`). */
export function linkPaymentKey(linkId: number, paymentNumber: number): string {
  return `link:${linkId}:payment:${paymentNumber}`;
}

const INSTALLMENT_KEY = /^installment:(\d+):attempt:(\d+)$/;
// The link's id and attempt number as links stores them: at most 15 and 6 digits, so both are exact numbers.
const LINK_PAYMENT_KEY = /^link:(\d{1,15}):payment:(\d{1,6})$/;

/** `installment:<id>:attempt:<n>` read back; undefined for any other key (a link's payment, a typo). */
export function parseInstallmentChargeKey(key: string): InstallmentAttempt | undefined {
  const match = INSTALLMENT_KEY.exec(key);
  if (!match) return undefined;
  return { installmentId: Number(match[1]), attempt: Number(match[2]) };
}

/** `link:<id>:payment:<n>` read back; undefined for any other key (an installment's, a typo). */
export function parseLinkPaymentKey(key: string): LinkPaymentAttempt | undefined {
  const match = LINK_PAYMENT_KEY.exec(key);
  if (!match) return undefined;
  return { linkId: Number(match[1]), paymentNumber: Number(match[2]) };
}
