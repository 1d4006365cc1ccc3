import { normalizeAmount } from '@payrail/money';
import { v7 as timeOrderedUuid } from 'uuid';
import { CARD_BLOCKED_CODE, isBlocked } from '../domain/card-lock';
import type { Charge, Settlement, StoredCardDraft } from '../domain/charge';
import type { PaymentMethod } from '../domain/payment-method';
import { settlementOfCharge } from './settlements';
import { PaymentMethodNotFound } from '../domain/errors';
import { newProcessorReference } from './processor-references';
import type { ChargeResult } from '../ports/card-processor';
import { applySettlement, type ChargeDeps } from './settle-charge';

export interface StoredCardChargeRequest {
  idempotencyKey: string;
  merchantId: string;
  paymentMethodId: string;
  amount: string;
  currency: string;
  installmentId?: number | null;
  attempt?: number | null;
  linkId?: number | null;
  description: string;
}

export type StoredCardChargeOutcome =
  /** This call made (or refused) the charge; `charge` is its state afterwards. */
  | { kind: 'charged'; charge: Charge }
  /** The key was charged before (a redelivery, another replica): nothing was done. */
  | { kind: 'duplicate'; charge: Charge };

/** A stored-card charge row as it is first committed, `pending`, before the processor hears of it. */
export function newStoredCardCharge(
  request: StoredCardChargeRequest,
  on: { paymentMethodId: string; processorCalls: number; now: Date; timings: ChargeDeps['timings'] },
): StoredCardDraft {
  const { now } = on;
  return {
    // Time-ordered (UUIDv7): each new charge goes at the end of the primary key's index, not on a random page.
    id: timeOrderedUuid(),
    idempotencyKey: request.idempotencyKey,
    merchantId: request.merchantId,
    kind: 'stored-card',
    installmentId: request.installmentId ?? null,
    attempt: request.attempt ?? null,
    linkId: request.linkId ?? null,
    paymentMethodId: on.paymentMethodId,
    reference: newProcessorReference(),
    processorReference: null,
    amount: normalizeAmount(request.amount),
    currency: request.currency,
    status: 'pending',
    declineCode: null,
    declineCategory: null,
    retryable: null,
    authorizationCode: null,
    hostedForm: null,
    processorCalls: on.processorCalls,
    statusChecks: 0,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    // Past the call's deadline a row still `pending` has no live call of ours behind it (a crash between
    // this commit and the answer): the janitor asks the processor then, and sends it again if unknown there.
    nextCheckAt: new Date(now.getTime() + on.timings.callDeadlineMs),
    settledAt: null,
  };
}

/**
 * Charges a saved card exactly once per idempotency key. The row is committed `pending` before the
 * processor hears of it, so that a crash, a lost reply or a second replica never leads to a second charge:
 * the unique key stops the replica, and the janitor settles what the processor did with the first.
 */
export async function chargeStoredCard(
  deps: ChargeDeps,
  request: StoredCardChargeRequest,
): Promise<StoredCardChargeOutcome> {
  const opened = await deps.transaction(async (stores) => {
    const existing = await stores.charges.findChargeByKey(request.idempotencyKey);
    if (existing) return { kind: 'duplicate' as const, charge: existing };
    const method = await stores.paymentMethods.findPaymentMethod(request.merchantId, request.paymentMethodId);
    if (!method) throw new PaymentMethodNotFound();
    const now = deps.clock.now();
    const blocked = isBlocked(method.blockedUntil, now);
    const charge: Charge = {
      ...newStoredCardCharge(request, {
        paymentMethodId: method.id,
        processorCalls: blocked || method.removedAt ? 0 : 1,
        now,
        timings: deps.timings,
      }),
      processor: method.processor,
    };
    if (!(await stores.charges.insertCharge(charge))) {
      const winner = await stores.charges.findChargeByKey(request.idempotencyKey);
      return { kind: 'duplicate' as const, charge: winner as Charge };
    }
    if (method.removedAt) {
      const settled = await applySettlement(
        stores,
        charge,
        {
          status: 'failed',
          declineCode: 'PAYMENT_METHOD_REMOVED',
          category: 'hard',
          retryable: false,
          processorReference: null,
        },
        now,
        deps.timings,
      );
      return { kind: 'settled' as const, charge: settled };
    }
    if (blocked) {
      // Our own counter answers for the processor: calling it again would only add a decline.
      const settled = await applySettlement(
        stores,
        charge,
        {
          status: 'failed',
          declineCode: CARD_BLOCKED_CODE,
          category: 'card-blocked',
          retryable: false,
          processorReference: null,
        },
        now,
        deps.timings,
      );
      return { kind: 'settled' as const, charge: settled };
    }
    return { kind: 'call' as const, charge, method };
  });
  if (opened.kind === 'duplicate') return opened;
  if (opened.kind === 'settled') return { kind: 'charged', charge: opened.charge };

  const { charge, method } = opened;
  return { kind: 'charged', charge: await sendStoredCardCharge(deps, charge, method, request.description) };
}

/**
 * Sends a committed stored-card charge to the processor under its reference and applies the answer. Also
 * the janitor's re-send: a reference the processor already knows is refused there, never charged twice.
 */
export async function sendStoredCardCharge(
  deps: ChargeDeps,
  charge: Charge,
  method: Pick<PaymentMethod, 'customerRef' | 'cardRef'>,
  description: string,
): Promise<Charge> {
  const settlement = await askProcessorToCharge(deps, charge, method, description);
  return settleStoredCardCharge(deps, charge.id, settlement);
}

/**
 * The processor's answer to a committed stored-card charge, as what it means for the charge row. `charge`
 * is the row as this send wrote it (the first send's new row, or the janitor's re-send): its `updatedAt`
 * starts the send window, and a failure is applied only while the row still reads as this send left it.
 */
export async function askProcessorToCharge(
  deps: ChargeDeps,
  charge: Charge,
  method: Pick<PaymentMethod, 'customerRef' | 'cardRef'>,
  description: string,
): Promise<Settlement> {
  let result: ChargeResult;
  try {
    result = await deps.processors(charge.processor).chargeStoredCard({
      reference: charge.reference,
      customerRef: method.customerRef,
      cardRef: method.cardRef,
      amount: charge.amount,
      currency: charge.currency,
      description,
      sendBy: new Date(charge.updatedAt.getTime() + deps.timings.sendWindowMs),
    });
  } catch (error) {
    // A bug or an unexpected answer after the request may have left: the janitor asks the processor.
    result = { kind: 'unknown', reason: `adapter error: ${(error as Error).message}` };
  }
  const settlement = settlementOfCharge(result);
  if (settlement.status !== 'failed') return settlement;
  return {
    ...settlement,
    sentAs: { processorCalls: charge.processorCalls, statusChecks: charge.statusChecks },
  };
}

/** Applies a processor's answer to one charge, in a transaction of its own with the row locked. */
export function settleStoredCardCharge(
  deps: ChargeDeps,
  chargeId: string,
  settlement: Settlement,
): Promise<Charge> {
  return deps.transaction(async (stores) => {
    const locked = await stores.charges.lockCharge(chargeId);
    if (!locked) throw new Error(`charge ${chargeId} vanished`);
    return applySettlement(stores, locked, settlement, deps.clock.now(), deps.timings);
  });
}
