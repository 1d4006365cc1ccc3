import type { Charge } from '../domain/charge';
import { settlementOfStatus } from './settlements';
import type { ProcessorStatus } from '../ports/card-processor';
import { applySettlement, type ChargeDeps } from './settle-charge';

export interface JanitorReport {
  checked: number;
  settled: number;
}

/** How long a claimed charge is kept from other janitor replicas while one asks the processor. */
const LEASE_MS = 60_000;

/**
 * The janitor: asks the processor about every charge we could not settle (a lost reply, a crash between
 * writing the row and calling, an asynchronous charge, a hosted payment without its confirmation) and
 * settles it from the processor's answer. Until then nothing may retry the charge, because nothing has
 * announced it failed.
 */
export async function settleUnsettledCharges(deps: ChargeDeps, batchSize = 50): Promise<JanitorReport> {
  const report: JanitorReport = { checked: 0, settled: 0 };
  for (;;) {
    const now = deps.clock.now();
    const due = await deps.store.transaction((store) =>
      store.claimDueCharges(now, new Date(now.getTime() + LEASE_MS), batchSize),
    );
    for (const charge of due) {
      report.checked += 1;
      if (await checkOne(deps, charge)) report.settled += 1;
    }
    if (due.length < batchSize) return report;
  }
}

async function checkOne(deps: ChargeDeps, charge: Charge): Promise<boolean> {
  let status: ProcessorStatus;
  try {
    status = await deps.processors(charge.processor).queryStatus({
      reference: charge.reference,
      processorReference: charge.processorReference ?? undefined,
    });
  } catch (error) {
    status = { status: 'unreachable', reason: (error as Error).message };
  }
  return deps.store.transaction(async (store) => {
    const locked = await store.lockCharge(charge.id);
    if (!locked || (locked.status !== 'pending' && locked.status !== 'unknown')) return false;
    const now = deps.clock.now();
    const age = now.getTime() - locked.createdAt.getTime();
    const settlement = settlementOfStatus(locked, status, {
      hostedExpired: age >= deps.timings.hostedPaymentTtlMs,
      notFoundIsFinal: age >= deps.timings.notFoundFinalAfterMs,
    });
    if (!settlement) {
      await store.saveCharge({
        ...locked,
        statusChecks: locked.statusChecks + 1,
        lastError: status.status === 'unreachable' ? status.reason : locked.lastError,
        processorReference:
          ('processorReference' in status && status.processorReference) || locked.processorReference,
        nextCheckAt: new Date(now.getTime() + deps.timings.recheckAfterMs),
        updatedAt: now,
      });
      return false;
    }
    const after = await applySettlement(
      store,
      { ...locked, statusChecks: locked.statusChecks + 1 },
      settlement,
      now,
      deps.timings,
    );
    return after.status === 'succeeded' || after.status === 'failed';
  });
}
