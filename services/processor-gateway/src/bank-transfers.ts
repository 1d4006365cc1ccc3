import type { Database } from '@payrail/db';
import type { Logger } from '@payrail/observability';
import type { Clock, ServiceName, Upstream } from '@payrail/runtime';
import { bankNotificationRoutes } from './adapters/http/bank-notification-routes';
import { httpSettlementOwners } from './adapters/http/settlement-owners';
import { postgresBankTransferStore } from './adapters/postgres/bank-transfer-store';
import { finishPendingBankTransfers } from './application/finish-pending-bank-transfers';
import type { RegisterBankTransferDeps } from './application/register-bank-transfer';

export interface BankTransfersOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  internalSecret: string;
  upstream(name: ServiceName): Upstream;
  /** How often the sweep runs, and how old a `pending` row must be to be swept; 0 turns it off. */
  sweepIntervalMs: number;
}

/**
 * Bank notifications, composed: the public route (mounted under `/api`) and the sweep that finishes
 * transfers left `pending` (`BANK_TRANSFER_SWEEP_INTERVAL_MS`, default one minute; rows older than that).
 */
export function bankTransfers(options: BankTransfersOptions) {
  const deps: RegisterBankTransferDeps = {
    transfers: postgresBankTransferStore(options.db),
    owners: httpSettlementOwners({
      links: options.upstream('links'),
      subscriptions: options.upstream('subscriptions'),
      internalSecret: options.internalSecret,
    }),
    clock: options.clock,
    logger: options.logger,
  };
  const intervalMs = options.sweepIntervalMs;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  const sweep = async () => {
    try {
      const result = await finishPendingBankTransfers(deps, { olderThanMs: intervalMs, limit: 100 });
      if (result.settled + result.released + result.stillPending > 0) {
        options.logger.info(result, 'pending bank transfers swept');
      }
    } catch (error) {
      options.logger.warn({ err: error }, 'bank transfer sweep failed; will retry');
    }
  };

  return {
    deps,
    routes: bankNotificationRoutes({ ...deps, internalSecret: options.internalSecret }),
    start() {
      if (!(intervalMs > 0)) return;
      timer = setInterval(() => {
        running = sweep();
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
