import { createHash } from 'node:crypto';
import { formatAmount } from '@payrail/money';
import { v7 as timeOrderedUuid } from 'uuid';
import { IdempotencyKeyReused, PaymentNotRefundable, PaymentToRefundNotFound } from '../domain/errors';
import { planRefund, type Refund, type RefundAsked } from '../domain/refund';
import type { GatewayStores } from '../ports/unit-of-work';
import { refundEvent } from './refund-events';
import {
  applyRefundOutcome,
  outcomeOfReversal,
  type RefundDeps,
  type RefundState,
  sendReversal,
} from './settle-refund';

export interface RefundPaymentRequest {
  merchantId: string;
  /** The movement to give money back from. */
  paymentId: string;
  idempotencyKey: string;
  asked: RefundAsked;
}

/** The refund as it stands after the request; `created` false: the key's refund, made by an earlier request. */
export type RefundPaymentResult = RefundState & { created: boolean };

/** `150000`, `150000.0` and `150000.00` are one amount: the same request, whatever the spelling. */
function normalizedAmount(amount: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) return amount;
  const whole = (match[2] ?? '0').replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  return `${match[1]}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The request a key stands for: the same key with another request is refused, as the gateway does. */
export function fingerprintOfRefund(paymentId: string, asked: RefundAsked): string {
  const amount = asked.amount === null ? null : normalizedAmount(asked.amount);
  const canonical = JSON.stringify([paymentId, amount, asked.method, asked.reference, asked.reason]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** Rounds at most: a key another payment's request took meanwhile is met on the next round. */
const MAX_ROUNDS = 3;

type Opened =
  | { kind: 'created' | 'existing'; state: RefundState }
  /** The key was taken by a concurrent request of another payment: the next round finds it. */
  | { kind: 'key-taken' };

/**
 * `POST /api/payments/{id}/refunds`: gives money back from one of the merchant's movements, exactly once
 * per `Idempotency-Key`.
 *
 * 1. In one transaction, the payment's row locked (every writer of its refunds takes that lock first, so
 *    concurrent refunds of one payment are serialised and what is left is always read after the others):
 *    the key's refund, if any, is the answer (another request under it is refused); else the rules
 *    (`planRefund`: a refusal writes nothing) and the refund written: `pending` for the processor, with
 *    its first call counted, or `succeeded` for an outside refund with its `refund.succeeded`. Committed.
 * 2. A processor refund: the rollback or reversal is asked with no transaction open, and its answer applied
 *    (`applyRefundOutcome`). A lost answer leaves the refund `unknown`; the janitor settles it by a status
 *    query (`settleUnsettledRefunds`). A second replica or a retry under the key meets the row and calls
 *    nothing.
 */
export async function refundPayment(
  deps: RefundDeps,
  request: RefundPaymentRequest,
): Promise<RefundPaymentResult> {
  const fingerprint = fingerprintOfRefund(request.paymentId, request.asked);
  let opened: Opened = { kind: 'key-taken' };
  for (let round = 0; round < MAX_ROUNDS && opened.kind === 'key-taken'; round += 1) {
    opened = await deps.transaction((stores) => open(stores, deps, request, fingerprint));
  }
  if (opened.kind === 'key-taken')
    throw new Error(`Idempotency-Key of refund still taken after ${MAX_ROUNDS} rounds`);
  const { state } = opened;
  if (opened.kind === 'existing' || state.refund.mode === 'outside') {
    return { ...state, created: opened.kind === 'created' };
  }
  const result = await sendReversal(deps, state.refund, state.payment);
  return { ...(await applyRefundOutcome(deps, state.refund, outcomeOfReversal(result))), created: true };
}

async function open(
  stores: GatewayStores,
  deps: RefundDeps,
  request: RefundPaymentRequest,
  fingerprint: string,
): Promise<Opened> {
  const { merchantId, paymentId, idempotencyKey, asked } = request;
  const payment = await stores.refunds.lockPayment(merchantId, paymentId);
  if (!payment) {
    if (await stores.refunds.isRefund(merchantId, paymentId))
      throw new PaymentNotRefundable(paymentId, 'refund');
    throw new PaymentToRefundNotFound(paymentId);
  }
  const existing = await stores.refunds.findRefundByKey(merchantId, idempotencyKey);
  if (existing) {
    if (existing.fingerprint !== fingerprint) throw new IdempotencyKeyReused();
    // The key's refund is of this payment (the fingerprint names it): read under the same lock.
    return {
      kind: 'existing',
      state: { refund: existing, payment, totals: await stores.refunds.totalsOf(payment.id) },
    };
  }
  const totals = await stores.refunds.totalsOf(payment.id);
  const now = deps.clock.now();
  const plan = planRefund(payment, asked, totals, now);
  const outside = plan.mode === 'outside';
  const refund: Refund = {
    id: timeOrderedUuid(),
    merchantId,
    paymentId: payment.id,
    idempotencyKey,
    fingerprint,
    mode: plan.mode,
    method: asked.method,
    processor: outside ? null : payment.processor,
    amount: formatAmount(plan.amount),
    currency: payment.currency,
    reference: asked.reference,
    reason: asked.reason,
    status: outside ? 'succeeded' : 'pending',
    failureCode: null,
    failureMessage: null,
    // The first call is counted with the row, before it leaves: a crash during it still counts.
    processorCalls: outside ? 0 : 1,
    statusChecks: 0,
    lastError: null,
    linkId: payment.linkId,
    installmentId: payment.installmentId,
    subscriptionId: payment.subscriptionId,
    createdAt: now,
    updatedAt: now,
    // Not asked about before the call's deadline has passed: no call of ours can still be on its way then.
    nextCheckAt: new Date(now.getTime() + deps.timings.callDeadlineMs),
    scheduledAt: null,
    settledAt: outside ? now : null,
  };
  if (!(await stores.refunds.insertRefund(refund))) return { kind: 'key-taken' };
  const after = {
    committed: totals.committed + plan.amount,
    succeeded: totals.succeeded + (outside ? plan.amount : 0n),
  };
  if (outside) {
    const event = refundEvent(refund, after.succeeded, now);
    if (event) await stores.outbox.publish([event]);
  }
  return { kind: 'created', state: { refund, payment, totals: after } };
}
