import type { Logger } from '@payrail/observability';
import type { ChargeDeps } from './settle-charge';
import { settleUnsettledCharges } from './settle-unsettled-charges';

export interface ChargeJanitor {
  start(): void;
  stop(): Promise<void>;
  /** One pass now (tests and operators); waits for a pass already running. */
  runOnce(): Promise<{ checked: number; settled: number }>;
}

/** Runs `settleUnsettledCharges` every `intervalMs` (0: never on its own), one pass at a time. */
export function createChargeJanitor(deps: ChargeDeps, intervalMs: number, logger: Logger): ChargeJanitor {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<{ checked: number; settled: number }> | undefined;
  const runOnce = async () => {
    while (running) await running.catch(() => {});
    running = settleUnsettledCharges(deps);
    try {
      const report = await running;
      if (report.checked > 0) logger.info(report, 'charge janitor pass');
      return report;
    } finally {
      running = undefined;
    }
  };
  return {
    runOnce,
    start() {
      if (intervalMs <= 0 || timer) return;
      timer = setInterval(() => {
        if (running) return;
        runOnce().catch((error) => logger.error({ err: error }, 'charge janitor pass failed'));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => {});
    },
  };
}
