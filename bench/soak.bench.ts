/**
 * `npm run soak`: the system as separate processes under a mixed load for SOAK_MINUTES (default 30), one
 * table row a minute, then money against the sandbox's ledger, webhooks once per id and the verdict on
 * issue 31's targets (bench/soak.ts). Its last line is `soak: pass|fail` with the figures; the exit code
 * follows it.
 *
 * SOAK_RATE: operations started a second (default 200, some 500 HTTP requests a second: about half of what
 * link creation alone reached on the reference machine, docs/performance.md; lower it on a shared machine).
 * SOAK_DAY_SECONDS: real seconds per simulated day (default 10; a billing run as of each day).
 * SOAK_MAX_IN_FLIGHT: operations in flight at most (default 200; those over it are counted as shed).
 * SOAK_COMPILED=0: run the services from their TypeScript rather than compiled (`npm run build` first).
 * SOAK_LOGS=1: every service's output to stderr. DATABASE_URL and AMQP_URL as the benches (bench/support.ts).
 */
import { runSoak } from './soak';
import { buildServices, endBench, interruptedNow, log as logger, undoOnInterrupt } from './support';

const log = logger('soak');
const numberFrom = (value: string | undefined, fallback: number) =>
  value === undefined || value === '' ? fallback : Number(value);

async function main() {
  undoOnInterrupt(log);
  const compiled = process.env.SOAK_COMPILED !== '0';
  if (compiled) buildServices();
  const result = await runSoak({
    minutes: numberFrom(process.env.SOAK_MINUTES, 30),
    rate: numberFrom(process.env.SOAK_RATE, 200),
    daySeconds: numberFrom(process.env.SOAK_DAY_SECONDS, 10),
    maxInFlight: numberFrom(process.env.SOAK_MAX_IN_FLIGHT, 200),
    compiled,
    log,
    serviceOutput: process.env.SOAK_LOGS === '1' ? (line) => process.stderr.write(`${line}\n`) : undefined,
  });
  process.stdout.write(`${result.summary}\n`);
  endBench(result.pass ? 0 : 1);
}

main().catch((error) => {
  if (interruptedNow()) return endBench(1);
  log(`failed: ${(error as Error).stack ?? error}`);
  process.stdout.write(`soak: fail ${(error as Error).message}\n`);
  endBench(1);
});
