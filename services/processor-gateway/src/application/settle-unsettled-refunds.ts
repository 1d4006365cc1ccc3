import type { Refund } from '../domain/refund';
import type { ProcessorStatus } from '../ports/card-processor';
import { applyRefundOutcome, outcomeOfReversal, type RefundDeps, sendReversal } from './settle-refund';

export interface RefundJanitorReport {
  checked: number;
  settled: number;
}

/** How long a claimed refund is kept from other janitor replicas while one asks the processor. */
const LEASE_MS = 60_000;

/**
 * The most requests one refund is sent with (the first and its re-sends). Both processors refuse a second
 * reversal of one payment (PROCESSOR_A `AlreadyRollbackedError`, PROCESSOR_B "ya fue reversado"), which the
 * adapters answer as what the processor holds, so a re-send never gives money back twice.
 */
export const MAX_REFUND_CALLS = 3;

/**
 * The janitor's pass over refunds not settled: one whose answer was lost (`unknown`), one written and never
 * sent (a crash between the commit and the call: `pending` past the call's deadline), one PROCESSOR_B holds
 * scheduled. Each is asked about by a status query of the payment: reversed → `succeeded`; still paid → a
 * scheduled refund waits, another is sent again (the first may never have arrived; counted before it
 * leaves, at most `MAX_REFUND_CALLS` in all) and settled from that answer; anything else is asked again
 * later. Never failed for want of an answer: the money may have gone back.
 */
export async function settleUnsettledRefunds(deps: RefundDeps, batchSize = 50): Promise<RefundJanitorReport> {
  const report: RefundJanitorReport = { checked: 0, settled: 0 };
  for (;;) {
    const now = deps.clock.now();
    const due = await deps.transaction((stores) =>
      stores.refunds.claimDueRefunds(now, new Date(now.getTime() + LEASE_MS), batchSize),
    );
    for (const refund of due) {
      report.checked += 1;
      if (await checkOne(deps, refund)) report.settled += 1;
    }
    if (due.length < batchSize) return report;
  }
}

async function checkOne(deps: RefundDeps, refund: Refund): Promise<boolean> {
  const payment = await deps.stores.refunds.findPayment(refund.merchantId, refund.paymentId);
  if (!payment?.reference || !refund.processor) {
    deps.logger?.error({ refundId: refund.id }, 'refund without a processor reference left unsettled');
    return false;
  }
  let status: ProcessorStatus;
  try {
    status = await deps.processors(refund.processor).queryStatus({
      reference: payment.reference,
      processorReference: payment.processorReference ?? undefined,
    });
  } catch (error) {
    status = { status: 'unreachable', reason: (error as Error).message };
  }
  if (status.status === 'reversed') {
    const after = await applyRefundOutcome(deps, refund, { status: 'succeeded' }, { statusCheck: true });
    return after.refund.status === 'succeeded';
  }
  const decision = await deps.transaction(async (stores) => {
    await stores.refunds.lockPayment(refund.merchantId, refund.paymentId);
    const locked = await stores.refunds.lockRefund(refund.id);
    if (!locked || !['pending', 'unknown', 'scheduled'].includes(locked.status)) return { send: false };
    const now = deps.clock.now();
    const sendAgain =
      status.status === 'paid' && locked.status !== 'scheduled' && locked.processorCalls < MAX_REFUND_CALLS;
    await stores.refunds.saveRefund({
      ...locked,
      statusChecks: locked.statusChecks + 1,
      processorCalls: locked.processorCalls + (sendAgain ? 1 : 0),
      lastError: status.status === 'unreachable' ? status.reason : locked.lastError,
      // A re-send is awaited before the row is looked at again; no other janitor takes it before its deadline.
      nextCheckAt: new Date(
        now.getTime() + (sendAgain ? deps.timings.callDeadlineMs : deps.timings.recheckAfterMs),
      ),
      updatedAt: now,
    });
    if (status.status === 'paid' && !sendAgain && locked.status !== 'scheduled') {
      deps.logger?.warn(
        { refundId: refund.id, processorCalls: locked.processorCalls },
        'refund still not reversed after its last request; asked again later',
      );
    }
    return { send: sendAgain };
  });
  if (!decision.send) return false;
  const result = await sendReversal(deps, refund, payment);
  const after = await applyRefundOutcome(deps, refund, outcomeOfReversal(result));
  return after.refund.status === 'succeeded' || after.refund.status === 'failed';
}
