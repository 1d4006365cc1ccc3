import { parseInstallmentChargeKey } from '@payrail/contracts';

/**
 * The keys batch consumers sort a batch by before handling it message by message, so that concurrent
 * batches lock rows in the same order. Only an order: a body that does not parse sorts first (its handler
 * then fails on it, alone, as it would unbatched).
 */

/** `data.<field>` of an event body when it is a number, else 0. */
export function numberInData(body: string, field: string): number {
  try {
    const value = (JSON.parse(body) as { data?: Record<string, unknown> }).data?.[field];
    return typeof value === 'number' ? value : 0;
  } catch {
    return 0;
  }
}

/** The installment an outcome is about: `data.installmentId`, or the one in `installment:<id>:attempt:<n>`. */
export function installmentOf(body: string): number {
  const direct = numberInData(body, 'installmentId');
  if (direct !== 0) return direct;
  try {
    const key = (JSON.parse(body) as { data?: { idempotencyKey?: unknown } }).data?.idempotencyKey;
    return typeof key === 'string' ? (parseInstallmentChargeKey(key)?.installmentId ?? 0) : 0;
  } catch {
    return 0;
  }
}
