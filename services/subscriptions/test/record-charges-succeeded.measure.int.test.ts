import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { EventData } from '@payrail/contracts';
import { type Database, rowsOf } from '@payrail/db';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import {
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  testClock,
  uniqueName,
} from '@payrail/testing';
import type { SimulatedClock } from '@payrail/time';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeAttempts, installments, subscriptions } from '../src/adapters/postgres/schema';
import { subscriptionStores } from '../src/adapters/postgres/stores';
import {
  type ChargeOutcomeResult,
  type OfBatch,
  recordChargeSucceeded,
  recordChargesSucceeded,
} from '../src/application/record-charge-outcome';
import { installmentChargeKey } from '@payrail/contracts';
import { subscriptionsService } from '../src/service';
import { CONSUMERS } from '../../../scripts/processes';

/**
 * Not a test: the statements and the CPU of recording a batch of 50 approvals (a `processing` installment
 * of an active subscription each), by the batch and by the per-payment path the batch replaced (the
 * subscriptions locked at once, then `recordChargeSucceeded` for each payment in a savepoint). Prints the
 * figures; run with MEASURE_PAID_BATCH=1 (DATABASE_POOL_MAX=4).
 */
const BATCH = 50;
const ROUNDS = Number(process.env.MEASURE_PAID_BATCH_ROUNDS ?? 12);

let bus: MessageBus;
let svc: ServiceUnderTest;
let clock: SimulatedClock;
const exchange = uniqueName('paid_measure');
const queuePrefix = `${uniqueName('paid_measure')}.`;

const measuring = process.env.MEASURE_PAID_BATCH === '1';

beforeAll(async () => {
  if (!measuring) return;
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  clock = testClock(new Date('2026-02-10T15:00:00Z'));
  svc = await startService(subscriptionsService, { bus, clock });
});
afterAll(async () => {
  if (!measuring) return;
  await svc?.stop();
  await bus?.close();
  const consumers = CONSUMERS.filter((consumer) => consumer.startsWith('subscriptions.'));
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    consumers.map((consumer) => `${queuePrefix}${consumer}`),
  );
});

let nextLink = 5_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1_000;

/** `BATCH` active STATIC subscriptions of 4, each with installment 2 `processing` and its attempt requested. */
async function seed(db: Database): Promise<Array<EventData<'payment.succeeded'>>> {
  const merchantId = randomUUID();
  const at = new Date('2026-01-15T15:00:00Z');
  const subs = await db
    .insert(subscriptions)
    .values(
      Array.from({ length: BATCH }, () => ({
        merchantId,
        linkId: ++nextLink,
        type: 'STATIC' as const,
        status: 'active' as const,
        customIdentifier: 'CI-1',
        currency: 'PYG',
        firstAmount: '200000.00',
        installmentAmount: '150000.00',
        totalPeriods: 4,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
        timezone: 'America/Asuncion',
        createdOn: '2026-01-15',
        createdAt: at,
        activatedAt: at,
        paymentMethodId: randomUUID(),
        processor: 'PARAGUAY.PROCESSOR_A',
        customerId: 1,
      })),
    )
    .returning();
  const rows = await db
    .insert(installments)
    .values(
      subs.flatMap((sub) =>
        [1, 2, 3, 4].map((number) => ({
          subscriptionId: sub.id,
          number,
          paymentDate: `2026-0${number}-10`,
          amount: number === 1 ? '200000.00' : '150000.00',
          status:
            number === 1 ? ('paid' as const) : number === 2 ? ('processing' as const) : ('pending' as const),
          paidAt: number === 1 ? at : null,
          createdAt: at,
          updatedAt: at,
        })),
      ),
    )
    .returning();
  const charged = rows.filter((row) => row.number === 2);
  const cardOf = new Map(subs.map((sub) => [sub.id, sub.paymentMethodId as string]));
  await db.insert(chargeAttempts).values(
    charged.map((row) => ({
      installmentId: row.id,
      subscriptionId: row.subscriptionId,
      merchantId,
      attempt: 1,
      idempotencyKey: installmentChargeKey(row.id, 1),
      paymentMethodId: cardOf.get(row.subscriptionId) as string,
      processor: 'PARAGUAY.PROCESSOR_A',
      amount: row.amount,
      currency: 'PYG',
      status: 'requested' as const,
      requestedAt: new Date('2026-02-10T14:00:00Z'),
    })),
  );
  return charged.map((row) => ({
    idempotencyKey: installmentChargeKey(row.id, 1),
    chargeId: randomUUID(),
    merchantId,
    processor: 'PARAGUAY.PROCESSOR_A',
    amount: row.amount,
    currency: 'PYG',
    installmentId: row.id,
    attempt: 1,
    linkId: null,
    paymentMethodId: cardOf.get(row.subscriptionId) as string,
    paidAt: '2026-02-10T15:00:00.000Z',
    authorizationCode: '123456',
    processorReference: null,
    cardBrand: null,
    cardLast4: null,
  }));
}

type Run = (
  tx: Database,
  items: Array<OfBatch<EventData<'payment.succeeded'>>>,
) => Promise<ChargeOutcomeResult[]>;

/** What `recordChargesSucceeded` did before the batch: the lock at once, then each payment on its own. */
const perPayment: Run = (tx, items) =>
  subscriptionStores(tx).transaction(async (stores) => {
    await stores.installments.findInstallmentsForUpdate(
      items.map(({ data }) => ({ merchantId: data.merchantId, installmentId: data.installmentId as number })),
    );
    const results: ChargeOutcomeResult[] = [];
    for (const { data, within } of items) {
      results.push(await within(() => recordChargeSucceeded({ stores, clock }, data)));
    }
    return results;
  });

const batched: Run = (tx, items) => recordChargesSucceeded({ stores: subscriptionStores(tx), clock }, items);

/** CPU time (ms) a local PostgreSQL backend used so far, from /proc (10 ms ticks). */
function backendCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
const TICKS_PER_SECOND = 100;

/**
 * Runs `run` in a transaction of its own, counting what postgres.js logs meanwhile (every statement, BEGIN,
 * SAVEPOINT and COMMIT included, not the backend's pid asked first; postgres.js never releases a savepoint) and the CPU of this process and of the
 * transaction's PostgreSQL backend.
 */
async function measured(db: Database, run: Run, items: Array<OfBatch<EventData<'payment.succeeded'>>>) {
  const options = (db as unknown as { $client: { options: { debug?: unknown } } }).$client.options;
  let statements = 0;
  let pid = 0;
  let backendBefore = 0;
  const before = options.debug;
  const texts: string[] = [];
  options.debug = (_connection: number, text: string) => {
    statements += 1;
    texts.push(text.replace(/\s+/g, ' ').slice(0, 60));
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  try {
    const value = await db.transaction(async (tx) => {
      const [row] = rowsOf<{ pid: number }>(await tx.execute(sql`select pg_backend_pid() as pid`));
      pid = Number(row?.pid);
      backendBefore = backendCpuMs(pid);
      return run(tx as unknown as Database, items);
    });
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return {
      value,
      statements: statements - 1,
      texts: texts.filter((text) => !text.includes('pg_backend_pid')),
      nodeMs: (used.user + used.system) / 1000,
      postgresMs: backendCpuMs(pid) - backendBefore,
      wallMs,
    };
  } finally {
    options.debug = before;
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

describe.skipIf(!measuring)('payment.succeeded batch of 50: statements and CPU', () => {
  it('prints the figures, per payment path and batch path', async () => {
    const db = svc.database.db;
    const figures: Record<
      string,
      { statements: number[]; nodeMs: number[]; postgresMs: number[]; wallMs: number[] }
    > = {
      'per payment': { statements: [], nodeMs: [], postgresMs: [], wallMs: [] },
      batch: { statements: [], nodeMs: [], postgresMs: [], wallMs: [] },
    };
    const runs: Array<[string, Run]> = [
      ['per payment', perPayment],
      ['batch', batched],
    ];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternating which goes first; the first two rounds a warm-up (JIT, prepared statements).
      for (const [name, run] of round % 2 === 0 ? runs : [...runs].reverse()) {
        const items = (await seed(db)).map((data) => ({ data, within: <T>(work: () => T) => work() }));
        const { value, texts, ...figure } = await measured(db, run, items);
        if (process.env.MEASURE_PAID_BATCH_VERBOSE === '1' && round === ROUNDS - 1) {
          console.log(`${name}, what was sent:\n${texts.slice(0, 14).join('\n')}`);
        }
        expect(value.every((result) => result.kind === 'paid')).toBe(true);
        if (round < 2) continue;
        const kept = figures[name] as (typeof figures)[string];
        kept.statements.push(figure.statements);
        kept.nodeMs.push(figure.nodeMs);
        kept.postgresMs.push(figure.postgresMs);
        kept.wallMs.push(figure.wallMs);
      }
    }
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    for (const [name, figure] of Object.entries(figures)) {
      const rounds = figure.nodeMs.length;
      console.log(
        `${name}: ${median(figure.statements)} statements for ${BATCH} payments (${(median(figure.statements) / BATCH).toFixed(2)} per payment); ` +
          `Node CPU median ${median(figure.nodeMs).toFixed(1)} ms a batch (${((median(figure.nodeMs) * 1000) / BATCH).toFixed(0)} µs a payment, min ${Math.min(...figure.nodeMs).toFixed(1)}, max ${Math.max(...figure.nodeMs).toFixed(1)}); ` +
          `PostgreSQL backend CPU ${(sum(figure.postgresMs) / rounds).toFixed(1)} ms a batch on average (10 ms ticks); ` +
          `wall median ${median(figure.wallMs).toFixed(1)} ms; ${rounds} rounds`,
      );
    }
  });
});
