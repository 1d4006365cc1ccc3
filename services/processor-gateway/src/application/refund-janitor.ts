import type { Logger } from '@payrail/observability';
import type { RefundDeps } from './settle-refund';
import { type RefundJanitorReport, settleUnsettledRefunds } from './settle-unsettled-refunds';

export interface RefundJanitor {
  start(): void;
  stop(): Promise<void>;
  /** One pass now (tests and operators); waits for a pass already running. */
  runOnce(): Promise<RefundJanitorReport>;
}

/**
 * Runs `settleUnsettledRefunds` every `intervalMs` (the charges' janitor interval, `CHARGE_JANITOR_INTERVAL_MS`;
 * 0: never on its own), one pass at a time.
 */
export function createRefundJanitor(deps: RefundDeps, intervalMs: number, logger: Logger): RefundJanitor {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<RefundJanitorReport> | undefined;
  const runOnce = async () => {
    while (running) await running.catch(() => {});
    running = settleUnsettledRefunds(deps);
    try {
      const report = await running;
      if (report.checked > 0) logger.info(report, 'refund janitor pass');
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
        runOnce().catch((error) => logger.error({ err: error }, 'refund janitor pass failed'));
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
