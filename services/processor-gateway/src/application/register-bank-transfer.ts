import { createHash } from 'node:crypto';
import {
  type BankNotificationResponse,
  type Currency,
  createEvent,
  type MerchantContext,
} from '@payrail/contracts';
import type { Logger } from '@payrail/observability';
import {
  assertTransferDateNotFuture,
  type BankTransfer,
  type Settlement,
  type TransferNotification,
} from '../domain/bank-transfer';
import { BankReferenceReused, SettlementUnavailable } from '../domain/errors';
import type { BankTransferStore } from '../ports/bank-transfer-store';
import { OwnerUnavailable, type SettlementOwners, type SettlementRefusal } from '../ports/settlement-owners';

export interface RegisterBankTransferDeps {
  transfers: BankTransferStore;
  owners: SettlementOwners;
  clock: { now(): Date };
  logger: Logger;
}

export type RegistrationResult =
  /** Registered and settled now, or earlier by the same notification (the stored answer, again). */
  | { kind: 'settled'; response: BankNotificationResponse }
  /** The owner refused the target: nothing is registered, nothing changed. */
  | { kind: 'refused'; refusal: SettlementRefusal };

/** Sorted keys, so that one notification always gives one fingerprint. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

export function fingerprintOf(notification: TransferNotification): string {
  return createHash('sha256').update(canonical(notification)).digest('hex');
}

function responseFor(transfer: BankTransfer, settlement: Settlement, at: Date): BankNotificationResponse {
  const { notification } = transfer;
  const target = settlement.target;
  return {
    id: transfer.id,
    reference: notification.reference,
    bankName: notification.bankName,
    amount: settlement.amount,
    currency: settlement.currency as Currency,
    transferDate: notification.transferDate,
    note: notification.note,
    status: 'SETTLED',
    target:
      target.type === 'PAY_REQUEST'
        ? { type: 'PAY_REQUEST', payRequestId: target.payRequestId, statusId: target.statusId }
        : {
            type: 'INSTALLMENT',
            installmentId: target.installmentId,
            paymentDate: target.paymentDate,
            status: 'paid',
            customIdentifier: target.customIdentifier,
            customIdentifier2: target.customIdentifier2,
          },
    registeredAt: at.toISOString(),
  };
}

/**
 * Drives one claimed (`pending`) transfer to its end: asks the owner of its target to settle it, then
 * either stores the settlement with `bank-transfer.registered` (one transaction) or, on a refusal, removes
 * the claim. Safe to run twice at once or again after a crash: the owner settles once per reference and
 * only one `pending` → `settled` write wins. Throws `OwnerUnavailable` when the outcome is not known; the
 * row then stays `pending` until the same notification, or the sweep, drives it again.
 */
export async function finishTransfer(
  deps: RegisterBankTransferDeps,
  merchant: MerchantContext,
  transfer: BankTransfer,
): Promise<
  { kind: 'settled'; response: BankNotificationResponse } | { kind: 'refused'; refusal: SettlementRefusal }
> {
  if (transfer.status === 'settled') {
    const stored = await deps.transfers.responseOf(transfer.id);
    if (stored) return { kind: 'settled', response: stored as BankNotificationResponse };
  }
  const outcome = await deps.owners.settle(merchant, transfer.notification, transfer.txId);
  if (outcome.kind === 'refused') {
    await deps.transfers.release(transfer.id);
    return outcome;
  }
  const at = deps.clock.now();
  const { settlement } = outcome;
  const response = await deps.transfers.markSettled(transfer.id, {
    response: responseFor(transfer, settlement, at),
    at,
    event: (settled) =>
      createEvent(
        'bank-transfer.registered',
        {
          bankTransferId: settled.id,
          txId: settled.txId,
          merchantId: settled.merchantId,
          reference: settled.notification.reference,
          bankName: settled.notification.bankName,
          amount: settlement.amount,
          currency: settlement.currency as Currency,
          transferDate: settled.notification.transferDate,
          note: settled.notification.note,
          target:
            settlement.target.type === 'PAY_REQUEST'
              ? { type: 'PAY_REQUEST', linkId: settlement.target.payRequestId }
              : {
                  type: 'INSTALLMENT',
                  installmentId: settlement.target.installmentId,
                  subscriptionId: settlement.target.subscriptionId,
                },
          registeredAt: at.toISOString(),
        },
        at,
      ),
  });
  return { kind: 'settled', response: response as BankNotificationResponse };
}

/** At most this many rounds: a stale claim of another notification is finished first, then ours is made. */
const MAX_ROUNDS = 3;

/**
 * `POST /api/bank-notification/add`: registers a transfer made outside the service and settles what it
 * names, once per merchant and bank reference. The reference is claimed first (a `pending` row, committed),
 * so concurrent duplicates meet on one row; each drives it (the owners make that safe) and all answer the
 * one stored result. The same reference with other content is refused (`BankReferenceReused`); a refusal
 * by the owner leaves no row; an owner that could not be reached is `SettlementUnavailable` (logged).
 */
export async function registerBankTransfer(
  deps: RegisterBankTransferDeps,
  merchant: MerchantContext,
  notification: TransferNotification,
): Promise<RegistrationResult> {
  assertTransferDateNotFuture(notification.transferDate, merchant.timezone, deps.clock.now());
  try {
    return await claimAndFinish(deps, merchant, notification);
  } catch (error) {
    if (!(error instanceof OwnerUnavailable)) throw error;
    deps.logger.warn({ err: error }, 'bank transfer not settled: owner unavailable');
    throw new SettlementUnavailable();
  }
}

async function claimAndFinish(
  deps: RegisterBankTransferDeps,
  merchant: MerchantContext,
  notification: TransferNotification,
): Promise<RegistrationResult> {
  const fingerprint = fingerprintOf(notification);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const claimed = await deps.transfers.claim({ merchant, fingerprint, notification, at: deps.clock.now() });
    const { transfer } = claimed;
    const ours = transfer.fingerprint === fingerprint;
    if (transfer.status === 'settled' && !ours)
      throw new BankReferenceReused(notification.reference, transfer.id);
    // A pending row of other content is a notification left unfinished (a crash, an unreachable owner):
    // it came first, so it is finished with the context it came with before ours may take the reference.
    const outcome = await finishTransfer(deps, ours ? merchant : claimed.merchant, transfer);
    if (ours) return outcome;
    if (outcome.kind === 'settled') throw new BankReferenceReused(notification.reference, transfer.id);
  }
  throw new Error(`bank reference ${notification.reference} is still claimed after ${MAX_ROUNDS} rounds`);
}
