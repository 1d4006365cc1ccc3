import { describe, expect, it } from 'vitest';
import { claimRunUntilDone, type RunDeps } from '../src/application/run-billing';
import type { ClaimedInstallment, RunStore } from '../src/ports/run-store';

// An operator's run claims in the background. When the database goes away in the middle (a batch, or the
// final mark), the claim is tried again until the run is claimed, instead of staying `claiming` until the
// process restarts (seen in the chaos run: a connection cut during `finishClaim`).

function installment(id: number): ClaimedInstallment {
  return {
    installmentId: id,
    subscriptionId: 1,
    merchantId: '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f',
    attempt: 1,
    dueOn: '2026-12-10',
    attemptOn: '2026-12-10',
    previouslyClaimedAt: null,
    reclaimedFrom: null,
  } as ClaimedInstallment;
}

/** A store with `due` installments to claim whose operations fail as `failures` says, once each. */
function flakyStore(due: number[], failures: Set<string>) {
  const claimed: number[] = [];
  const calls: string[] = [];
  let finished = 0;
  const fail = (what: string) => {
    calls.push(what);
    if (failures.delete(what)) throw new Error(`read ECONNRESET (${what})`);
  };
  const store = {
    async timezones() {
      return ['UTC'];
    },
    async claimBatch(_request: unknown, _at: Date, events: (rows: ClaimedInstallment[]) => unknown[]) {
      fail('claimBatch');
      const batch = due.filter((id) => !claimed.includes(id)).slice(0, 2);
      claimed.push(...batch);
      events(batch.map(installment));
      return batch.map(installment);
    },
    async hasUnclaimed() {
      return false;
    },
    async finishClaim() {
      fail('finishClaim');
      finished += 1;
    },
  } as unknown as RunStore;
  return { store, claimed, calls, finished: () => finished };
}

function deps(runs: RunStore, warnings: unknown[]): RunDeps {
  return {
    runs,
    clock: { now: () => new Date('2026-12-10T12:00:00Z') },
    simulatedTime: true,
    batchSize: 2,
    lockWaitMs: 0,
    reclaimAfterMs: 3_600_000,
    logger: { warn: (fields: unknown) => void warnings.push(fields) } as RunDeps['logger'],
  };
}

const run = {
  id: '6f1c8a2e-0b5d-4d7e-9a3f-2c1b0a9d8e7f',
  trigger: 'operator' as const,
  asOf: '2026-12-10' as const,
  merchantId: null,
  startedAt: new Date('2026-12-10T12:00:00Z'),
};

describe('claimRunUntilDone', () => {
  it('claims the rest and marks the run claimed after a failed batch and a failed final mark', async () => {
    const flaky = flakyStore([1, 2, 3, 4, 5], new Set(['finishClaim']));
    // The second batch fails once too: fail it on its second call.
    let batches = 0;
    const claimBatch = flaky.store.claimBatch.bind(flaky.store);
    flaky.store.claimBatch = async (...args: Parameters<RunStore['claimBatch']>) => {
      batches += 1;
      if (batches === 2) throw new Error('read ECONNRESET (second batch)');
      return claimBatch(...args);
    };
    const warnings: unknown[] = [];
    const pauses: number[] = [];
    await claimRunUntilDone(deps(flaky.store, warnings), run, {
      stopping: () => false,
      sleep: async (ms) => void pauses.push(ms),
    });
    expect(flaky.claimed).toEqual([1, 2, 3, 4, 5]);
    expect(flaky.finished()).toBe(1);
    expect(warnings).toHaveLength(2);
    expect(pauses).toEqual([250, 500]);
  });

  it('gives up and says why once the process is stopping: the next start resumes the run', async () => {
    const flaky = flakyStore([1], new Set(['finishClaim']));
    await expect(
      claimRunUntilDone(deps(flaky.store, []), run, { stopping: () => true, sleep: async () => undefined }),
    ).rejects.toThrow('ECONNRESET');
    expect(flaky.finished()).toBe(0);
  });
});
