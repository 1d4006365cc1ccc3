import { isBlocked } from '../domain/card-lock';
import { type Charge, NOT_PROCESSED } from '../domain/charge';
import type { PaymentMethod } from '../domain/payment-method';
import { settlementOfStatus } from './settlements';
import type { ProcessorStatus } from '../ports/card-processor';
import { sendStoredCardCharge } from './charge-stored-card';
import type { GatewayStores } from '../ports/unit-of-work';
import { applySettlement, type ChargeDeps } from './settle-charge';

export interface JanitorReport {
  checked: number;
  settled: number;
  /** Stored-card charges the processor did not know, sent again under their reference. */
  resent: number;
  /** Of the settled: stored-card charges failed `NOT_PROCESSED` because "not found" was at last believed. */
  notProcessed: number;
}

/** How long a claimed charge is kept from other janitor replicas while one asks the processor. */
const LEASE_MS = 60_000;

/**
 * The most requests one stored-card charge is sent with (the first and its re-sends). Past it, "not found"
 * waits for `notFoundFinalAfterMs` as before.
 */
export const MAX_PROCESSOR_CALLS = 3;

/**
 * The janitor: asks the processor about every charge we could not settle (a lost reply, a crash between
 * writing the row and calling, an asynchronous charge, a hosted payment without its confirmation) and
 * settles it from the processor's answer. Until then nothing may retry the charge, because nothing has
 * announced it failed.
 */
export async function settleUnsettledCharges(deps: ChargeDeps, batchSize = 50): Promise<JanitorReport> {
  const report: JanitorReport = { checked: 0, settled: 0, resent: 0, notProcessed: 0 };
  for (;;) {
    const now = deps.clock.now();
    const due = await deps.transaction((stores) =>
      stores.charges.claimDueCharges(now, new Date(now.getTime() + LEASE_MS), batchSize),
    );
    for (const charge of due) {
      report.checked += 1;
      const checked = await checkOne(deps, charge);
      if (checked.resent) report.resent += 1;
      if (checked.settled) report.settled += 1;
      if (checked.notProcessed) report.notProcessed += 1;
    }
    if (due.length < batchSize) return report;
  }
}

interface Checked {
  settled: boolean;
  resent?: boolean;
  notProcessed?: boolean;
}

async function checkOne(deps: ChargeDeps, charge: Charge): Promise<Checked> {
  let status: ProcessorStatus;
  try {
    status = await deps.processors(charge.processor).queryStatus({
      reference: charge.reference,
      processorReference: charge.processorReference ?? undefined,
    });
  } catch (error) {
    status = { status: 'unreachable', reason: (error as Error).message };
  }
  const checked = await deps.transaction(async (stores): Promise<Checked & { resend?: Resend }> => {
    const locked = await stores.charges.lockCharge(charge.id);
    if (!locked || (locked.status !== 'pending' && locked.status !== 'unknown')) return { settled: false };
    const now = deps.clock.now();
    const age = now.getTime() - locked.createdAt.getTime();
    const settlement = settlementOfStatus(locked, status, {
      hostedExpired: age >= deps.timings.hostedPaymentTtlMs,
      notFoundIsFinal: age >= deps.timings.notFoundFinalAfterMs,
    });
    const method = settlement ? undefined : await methodToSendAgain(stores, locked, status, now, deps);
    if (method) {
      // Counted and committed before the request leaves, so that a crash during it still counts; no other
      // janitor looks at the row before this call's deadline has passed.
      const resending: Charge = {
        ...locked,
        processorCalls: locked.processorCalls + 1,
        statusChecks: locked.statusChecks + 1,
        nextCheckAt: new Date(now.getTime() + deps.timings.callDeadlineMs),
        updatedAt: now,
      };
      await stores.charges.saveCharge(resending);
      return { settled: false, resend: { charge: resending, method } };
    }
    if (!settlement) {
      await stores.charges.saveCharge({
        ...locked,
        statusChecks: locked.statusChecks + 1,
        lastError: status.status === 'unreachable' ? status.reason : locked.lastError,
        processorReference:
          ('processorReference' in status && status.processorReference) || locked.processorReference,
        nextCheckAt: new Date(now.getTime() + deps.timings.recheckAfterMs),
        updatedAt: now,
      });
      return { settled: false };
    }
    const after = await applySettlement(
      stores,
      { ...locked, statusChecks: locked.statusChecks + 1 },
      settlement,
      now,
      deps.timings,
    );
    return {
      settled: after.status === 'succeeded' || after.status === 'failed',
      notProcessed: after.status === 'failed' && after.declineCode === NOT_PROCESSED,
    };
  });
  if (!checked.resend) return checked;
  return { settled: await sendAgain(deps, checked.resend.charge, checked.resend.method), resent: true };
}

interface Resend {
  charge: Charge;
  method: PaymentMethod;
}

/**
 * Whether a stored-card charge the processor says it does not know is to be sent again, and with which
 * card. Safe because both processors refuse a reference they already know ("process has already been
 * taken", "El pedido ya existe"), which the adapters answer as `unknown` or from the order's status: if
 * the first request did arrive, the second cannot charge; if it did not, the second is the charge. Only
 * once no call of ours can still be on its way (`callDeadlineMs` after the first, and each re-send is
 * awaited before the row is looked at again), a bounded number of times, with a card still usable.
 *
 * PROCESSOR_B's order left unpaid is sent again too: our process died (or lost `pagar`'s answer) between
 * opening the order and paying it, and otherwise the charge would wait until B cancels the order. The
 * re-send pays that order under the same reference, and B refuses it while an earlier `pagar` is in work.
 */
async function methodToSendAgain(
  stores: GatewayStores,
  charge: Charge,
  status: ProcessorStatus,
  now: Date,
  deps: ChargeDeps,
): Promise<PaymentMethod | undefined> {
  const nothingTaken =
    status.status === 'not-found' || (status.status === 'pending' && mayBeUnpaid(charge, status));
  if (!nothingTaken || charge.kind !== 'stored-card' || !charge.paymentMethodId) return undefined;
  if (charge.processorCalls < 1 || charge.processorCalls >= MAX_PROCESSOR_CALLS) return undefined;
  if (now.getTime() - charge.createdAt.getTime() < deps.timings.callDeadlineMs) return undefined;
  const method = await stores.paymentMethods.findPaymentMethod(charge.merchantId, charge.paymentMethodId);
  if (!method || method.removedAt || isBlocked(method.blockedUntil, now)) return undefined;
  return method;
}

/**
 * Whether B's undecided order may be one no `pagar` of ours reached. The row written before the call names
 * no order; a `pending` row naming one had its `pagar` accepted (the only `pending` answer that carries the
 * hash) or was already looked at and not sent again: B is left to decide. An `unknown` row may be either.
 */
function mayBeUnpaid(charge: Charge, status: Extract<ProcessorStatus, { status: 'pending' }>): boolean {
  if (status.unpaidOrder !== true) return false;
  return charge.status === 'unknown' || charge.processorReference === null;
}

async function sendAgain(deps: ChargeDeps, charge: Charge, method: PaymentMethod): Promise<boolean> {
  const after = await sendStoredCardCharge(deps, charge, method, descriptionOf(charge));
  return after.status === 'succeeded' || after.status === 'failed';
}

/** The description is not stored with the charge: the one the consumer and the link route would give. */
function descriptionOf(charge: Charge): string {
  if (charge.installmentId !== null) return `Installment ${charge.installmentId}`;
  if (charge.linkId !== null) return `Link ${charge.linkId}`;
  return `Charge ${charge.reference}`;
}
