import {
  decodePosition,
  encodePosition,
  type LedgerFilter,
  type MovementText,
  type WrittenMovement,
} from '../domain/ledger';
import { PaymentToRefundNotFound } from '../domain/errors';
import type { LedgerStore } from '../ports/ledger-store';

export interface LedgerPage {
  movements: WrittenMovement[];
  nextCursor: string | null;
}

/**
 * One page of the merchant's movements, newest first, after `cursor` (checked by the caller: one of ours),
 * each written as JSON up to its instants.
 */
export async function listPayments(
  ledger: LedgerStore,
  merchantId: string,
  filter: LedgerFilter,
  cursor: string | undefined,
  limit: number,
): Promise<LedgerPage> {
  const after = cursor === undefined ? undefined : decodePosition(cursor);
  const page = await ledger.jsonPage(merchantId, filter, after, limit);
  return { movements: page.movements, nextCursor: page.next ? encodePosition(page.next) : null };
}

/**
 * Every matching movement, newest first, written as `as`, a batch at a time (each batch read when the
 * caller asks for it): what the CSV export streams, in memory a batch or two at most.
 */
export async function* everyPayment(
  ledger: LedgerStore,
  merchantId: string,
  filter: LedgerFilter,
  as: MovementText,
  batchSize = 1000,
): AsyncGenerator<WrittenMovement[]> {
  let after: ReturnType<typeof decodePosition>;
  for (;;) {
    const rows = await ledger.page(merchantId, filter, after, batchSize, as);
    if (rows.length === 0) return;
    yield rows.map((row) => row.movement);
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1]?.position;
  }
}

/** A movement of the merchant with its refunds (404 for another merchant's or none). */
export async function getPayment(ledger: LedgerStore, merchantId: string, id: string) {
  const movement = await ledger.find(merchantId, id);
  if (!movement) throw new PaymentToRefundNotFound(id);
  const refunds = movement.kind === 'REFUND' ? [] : await ledger.refundsOf(merchantId, id);
  return { movement, refunds };
}
