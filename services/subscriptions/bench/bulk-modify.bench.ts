/**
 * Benchmark of `PATCH /api/subscriptions/installments/bulk` (`npm run bench:bulk`): one request of
 * 200 subscriptions × 60 updates = 12 000 updates against real PostgreSQL, through the service's own
 * HTTP app in process, median of 5 runs after 3 warm-up runs; beside it, in the same go and interleaved with
 * those runs, a naive baseline that sends one UPDATE per installment (median of 3, after one warm-up run).
 * Not a test: it prints figures.
 *
 * PostgreSQL: the server of `DATABASE_URL`, else postgres://postgres@127.0.0.1:5432/postgres. The
 * benchmark creates its own database there and drops it at the end.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { aMerchant } from '@payrail/testing/mothers';
import { type DatabaseHandle, openDatabase, rowsOf } from '@payrail/db';
import { signMerchantContext } from '@payrail/http';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import { sql } from 'drizzle-orm';
import { installments, outbox, subscriptions } from '../src/adapters/postgres/schema';
import { subscriptionsService } from '../src/service';
import { seedActiveSubscriptions, seededPaymentDate } from './seed';

const SUBSCRIPTIONS = 200;
const UPDATES_PER_SUBSCRIPTION = 60;
const TOTAL_UPDATES = SUBSCRIPTIONS * UPDATES_PER_SUBSCRIPTION;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BASELINE_RUNS = Number(process.env.BENCH_BASELINE_RUNS ?? 3);
const WARMUP_RUNS = Number(process.env.BENCH_WARMUP_RUNS ?? 3);
const TARGET_MEDIAN_MS = 1_000;
const TARGET_RATIO = 10;
const SECRET = randomUUID();

const log = (line: string) => process.stdout.write(`[bench:bulk] ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function serverUrl(): string {
  return process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

function databaseUrl(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const admin = openDatabase({ url: serverUrl(), max: 1 });
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}

const merchant = aMerchant({ name: 'Bench merchant' });

/** Run `run` writes `160000.00 + run` cents, so every run changes every installment (and emits its event). */
function amountOfRun(run: number): string {
  return `160${String(run).padStart(3, '0')}.${String(run % 100).padStart(2, '0')}`;
}

function bulkBody(run: number): string {
  const amount = amountOfRun(run);
  return JSON.stringify({
    operations: Array.from({ length: SUBSCRIPTIONS }, (_, index) => ({
      custom_identifier: `BENCH-${index + 1}`,
      updates: Array.from({ length: UPDATES_PER_SUBSCRIPTION }, (_, k) => ({
        payment_date: seededPaymentDate(k + 2),
        amount: Number(amount),
      })),
    })),
  });
}

/** Same starting point for every run: seeded amounts back, outbox empty. */
async function reset(database: DatabaseHandle): Promise<void> {
  await database.db.execute(sql`update ${installments} set amount = 150000.00 where number >= 2`);
  await database.db.execute(sql`delete from ${outbox}`);
  await database.db.execute(sql`vacuum analyze ${installments}`).catch(() => undefined);
}

async function appliedAmounts(database: DatabaseHandle, amount: string): Promise<number> {
  const [row] = rowsOf<{ count: number }>(
    await database.db.execute(
      sql`select count(*)::int as count from ${installments} where amount = ${amount}::numeric`,
    ),
  );
  return Number(row?.count ?? 0);
}

async function main(): Promise<void> {
  const name = `bench_bulk_${Date.now().toString(36)}`;
  await onServer((admin) => admin.db.execute(sql.raw(`create database "${name}"`)));
  const database = openDatabase({ url: databaseUrl(name), max: 10 });
  try {
    await database.migrate(subscriptionsService.database as { schema: string; migrationsFolder: string });
    const [version] = rowsOf<{ server_version: string }>(await database.db.execute(sql`show server_version`));
    log(
      `${SUBSCRIPTIONS} subscriptions × ${UPDATES_PER_SUBSCRIPTION} updates = ${TOTAL_UPDATES} updates per request`,
    );
    log(`PostgreSQL ${version?.server_version} at ${new URL(serverUrl()).host}, database ${name}`);

    await seedActiveSubscriptions(database.db, {
      merchantId: merchant.merchantId,
      count: SUBSCRIPTIONS,
      pendingEach: UPDATES_PER_SUBSCRIPTION,
      identifierPrefix: 'BENCH-',
      linkIdBase: 1_000_000,
    });
    await database.db.execute(sql`analyze ${subscriptions}`);
    log(
      `seeded ${SUBSCRIPTIONS} active subscriptions with ${UPDATES_PER_SUBSCRIPTION} pending installments each`,
    );

    const bus = createInProcessBus();
    await bus.start();
    // The service is created but not started: no consumers, and no outbox relay publishing the events of
    // one run while the next is measured. Writing the outbox rows (one event per subscription) is part of
    // every run.
    const instance = await subscriptionsService.create({
      database,
      bus,
      logger: createLogger('subscriptions', 'silent'),
      clock: { now: () => new Date() },
      internalSecret: SECRET,
      env: {},
      upstream: () => async () => new Response('no upstream in the benchmark', { status: 503 }),
    });

    const send = async (run: number): Promise<number> => {
      await reset(database);
      const request = new Request('http://subscriptions.bench/api/subscriptions/installments/bulk', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...signMerchantContext(merchant, SECRET) },
        body: bulkBody(run),
      });
      const started = performance.now();
      const response = await instance.app.fetch(request);
      const body = (await response.json()) as { summary?: { updates_applied: number } };
      const elapsed = performance.now() - started;
      if (response.status !== 200 || body.summary?.updates_applied !== TOTAL_UPDATES) {
        throw new Error(`run ${run}: status ${response.status}, ${JSON.stringify(body).slice(0, 300)}`);
      }
      const applied = await appliedAmounts(database, amountOfRun(run));
      if (applied !== TOTAL_UPDATES)
        throw new Error(`run ${run}: ${applied} installments carry the new amount`);
      return elapsed;
    };

    // Baseline: what a naive implementation does, with every advantage left to it (one transaction, no
    // HTTP, no response to build, no events written): find each subscription, then one UPDATE per installment.
    const baselineRun = async (run: number): Promise<number> => {
      await reset(database);
      const amount = `170${String(run).padStart(3, '0')}.00`;
      const started = performance.now();
      await database.db.transaction(async (tx) => {
        for (let index = 0; index < SUBSCRIPTIONS; index += 1) {
          const [subscription] = rowsOf<{ id: string }>(
            await tx.execute(sql`
              select id::text as id from ${subscriptions}
              where merchant_id = ${merchant.merchantId}::uuid and custom_identifier = ${`BENCH-${index + 1}`}
                and status in ('pending', 'active')`),
          );
          for (let k = 0; k < UPDATES_PER_SUBSCRIPTION; k += 1) {
            await tx.execute(sql`
              update ${installments} set amount = ${amount}::numeric, updated_at = now()
              where subscription_id = ${Number(subscription?.id)} and payment_date = ${seededPaymentDate(k + 2)}::date
                and status = 'pending' and number >= 2`);
          }
        }
      });
      const elapsed = performance.now() - started;
      const applied = await appliedAmounts(database, amount);
      if (applied !== TOTAL_UPDATES) throw new Error(`baseline: ${applied} installments updated`);
      return elapsed;
    };

    // Warm-up, not counted: a running service has compiled its hot paths long before; the first runs of
    // a fresh process measure V8's compiler more than the request (both sides are warmed alike).
    for (let run = 0; run < WARMUP_RUNS; run += 1)
      log(`warm-up bulk run ${run + 1}/${WARMUP_RUNS} (not counted): ${seconds(await send(90 + run))}`);
    log(`warm-up baseline run (not counted): ${seconds(await baselineRun(99))}`);
    // Baseline runs are interleaved with the bulk runs, so that both see the same machine (a shared
    // machine's load changes by the second) and the ratio compares like with like.
    const runs: number[] = [];
    const baselines: number[] = [];
    for (let run = 1; run <= RUNS; run += 1) {
      const elapsed = await send(run);
      runs.push(elapsed);
      log(
        `bulk run ${run}/${RUNS}: ${seconds(elapsed)} (12 000 installments updated, their events in the outbox)`,
      );
      if (run % 2 === 1 && baselines.length < BASELINE_RUNS) {
        const baseline = await baselineRun(run);
        baselines.push(baseline);
        log(
          `baseline run ${baselines.length}/${BASELINE_RUNS}: ${seconds(baseline)} (12 000 UPDATE statements)`,
        );
      }
    }
    while (baselines.length < BASELINE_RUNS) baselines.push(await baselineRun(RUNS + baselines.length));

    const bulkMedian = median(runs);
    const baseline = median(baselines);
    const ratio = baseline / bulkMedian;
    log('');
    log(
      `set-based bulk request, median of ${RUNS}: ${seconds(bulkMedian)}   (runs: ${runs.map((ms) => (ms / 1000).toFixed(3)).join(', ')})`,
    );
    log(
      `naive baseline, one UPDATE per installment, median of ${BASELINE_RUNS}: ${seconds(baseline)}   (runs: ${baselines.map((ms) => (ms / 1000).toFixed(3)).join(', ')})`,
    );
    log(`ratio: ${ratio.toFixed(1)}× faster`);
    log(
      `targets: median < ${seconds(TARGET_MEDIAN_MS)}: ${bulkMedian < TARGET_MEDIAN_MS ? 'met' : 'MISSED'}; ` +
        `≥ ${TARGET_RATIO}× the baseline: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}`,
    );
    await bus.close();
  } finally {
    await database.close();
    await onServer((admin) => admin.db.execute(sql.raw(`drop database if exists "${name}" with (force)`)));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bench:bulk] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
