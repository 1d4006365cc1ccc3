import { OwnerUnavailable } from '../ports/settlement-owners';
import { finishTransfer, type RegisterBankTransferDeps } from './register-bank-transfer';

export interface PendingSweepResult {
  settled: number;
  released: number;
  stillPending: number;
}

/**
 * A transfer stays `pending` when its notification crashed half-way or its owner could not be reached,
 * and nobody sent it again. The owner may have settled it already (then the link or installment is paid
 * but `bank-transfer.registered` is still to be written), so each is driven to its end: settled with its
 * event, or released when refused. Driving is safe next to a notification doing the same (the owners
 * settle once per reference; one `pending` → `settled` write wins).
 */
export async function finishPendingBankTransfers(
  deps: RegisterBankTransferDeps,
  options: { olderThanMs: number; limit: number },
): Promise<PendingSweepResult> {
  const olderThan = new Date(deps.clock.now().getTime() - options.olderThanMs);
  const pending = await deps.transfers.stalePending(olderThan, options.limit);
  const result: PendingSweepResult = { settled: 0, released: 0, stillPending: 0 };
  for (const { transfer, merchant } of pending) {
    try {
      const outcome = await finishTransfer(deps, merchant, transfer);
      if (outcome.kind === 'settled') result.settled += 1;
      else result.released += 1;
    } catch (error) {
      if (!(error instanceof OwnerUnavailable)) throw error;
      result.stillPending += 1;
    }
  }
  return result;
}
