import { writeFileSync } from 'node:fs';
import { DEMO_MERCHANT } from '@payrail/gateway';
import type { MessageBus } from '@payrail/messaging';
import type { ServiceName } from '@payrail/runtime';
import {
  aStaticLink,
  payOnPayPage,
  type PayProcessor,
  type TcpProxy,
  tcpProxy,
  testAmqpUrl,
  testPostgresUrl,
  waitFor,
} from '@payrail/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, byNumber, type DebitApi, debitApi, type SubscriptionView } from './debit-support';
import {
  INTERNAL_SECRET,
  type SystemOnTestInfrastructure,
  sandbox,
  startOnTestInfrastructure,
} from './processor-support';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// The automatic-debit chaos run: customers subscribe on the hosted pay page (a card typed on the sandbox's
// form, both processors), then months of as-of runs are made while the system is hurt: services killed
// (SIGKILL) and restarted mid-run, every service's connections to RabbitMQ and to PostgreSQL cut (through
// TCP proxies; the shared servers are never touched), the processor down or losing its replies. The faults
// are drawn from a seed (`CHAOS_SEED`, printed, to replay a plan; timing still varies). What must hold
// whatever happened: the sandbox's ledger, not our tables, shows no installment approved twice, nothing
// charged that processor-gateway does not know of, an installment paid exactly when it was approved once
// and at its amount; the good cards end paid, the declining card failed; no message dead-lettered, no
// charge left unsettled, no service dead, no card number in any log.

const ADMIN_TOKEN = 'e2e-admin-token-chaos-0123456789';
const DOCUMENT = '4567890';
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 32));

/** Each customer's card and processor; the amounts differ so that a ledger entry names its customer. */
const CUSTOMERS: Array<{
  card: string;
  processor: PayProcessor;
  pays: boolean;
  firstApprovedByOverride?: boolean;
}> = [
  { card: '4242424242424242', processor: 'PARAGUAY.PROCESSOR_A', pays: true },
  { card: '5555555555554444', processor: 'PARAGUAY.PROCESSOR_B', pays: true },
  // Approved on the page, every later charge declined 51: dunned to the end.
  { card: '4000000000000341', processor: 'PARAGUAY.PROCESSOR_A', pays: false },
  // Approved, the reply lost: processor-gateway must ask the processor by our reference.
  { card: '4000000000000259', processor: 'PARAGUAY.PROCESSOR_A', pays: true },
  // Approved after 8 s, longer than PROCESSOR_TIMEOUT_MS: `unknown` first, settled by the janitor.
  { card: '4000000000000077', processor: 'PARAGUAY.PROCESSOR_B', pays: true },
  { card: '4242424242424242', processor: 'PARAGUAY.PROCESSOR_B', pays: true },
  // Declines 51 always; its first payment is approved by the sandbox's outcome override (the …0341 card
  // above counts its approved payments per card, so a second customer with it could not subscribe).
  { card: '4000000000009995', processor: 'PARAGUAY.PROCESSOR_B', pays: false, firstApprovedByOverride: true },
  { card: '5555555555554444', processor: 'PARAGUAY.PROCESSOR_A', pays: true },
];
const TOTAL_PERIODS = 3;
/** The services the debit flow crosses; the sandbox keeps its state in memory and stays up. */
const KILLABLE: ServiceName[] = ['billing-scheduler', 'subscriptions', 'processor-gateway', 'gateway'];
const EXTRA_CONSUMERS = ['processor-gateway.charge-on-charge-requested'];

let running: SystemOnTestInfrastructure<E2eSystem>;
let sql: postgres.Sql;
let system: E2eSystem;
let api: DebitApi;
let bus: MessageBus;
let brokerProxy: TcpProxy;
let databaseProxy: TcpProxy;
/** What was done, in order: the plan the seed drew, with the times it happened. */
const journal: string[] = [];
/** The services we killed and have not restarted yet: any other dead one is a finding. */
const down = new Set<ServiceName>();

/** mulberry32: a small seeded generator, so that a seed replays the same plan. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
const random = seeded(SEED);
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const pick = <T>(items: readonly T[]): T => items[between(0, items.length - 1)] as T;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The URL with its host and port replaced by the proxy's. */
function through(proxy: TcpProxy, url: string): string {
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return proxied.toString();
}

beforeAll(async () => {
  const database = new URL(testPostgresUrl());
  const broker = new URL(testAmqpUrl());
  databaseProxy = await tcpProxy(database.hostname, Number(database.port || 5432));
  brokerProxy = await tcpProxy(broker.hostname, Number(broker.port || 5672));
  running = await startOnTestInfrastructure(
    'e2e_chaos',
    (infrastructure) =>
      startSystem((ports) => ({
        ...infrastructure,
        // The services reach both servers only through the proxies, which the incidents cut.
        DATABASE_URL: through(databaseProxy, infrastructure.DATABASE_URL as string),
        AMQP_URL: through(brokerProxy, infrastructure.AMQP_URL as string),
        DEMO_API_TOKEN: DEMO_TOKEN,
        ADMIN_TOKEN,
        INTERNAL_SECRET,
        PUBLIC_BASE_URL: ports.gatewayUrl,
        SIMULATED_TIME: 'true',
        BILLING_RUN_INTERVAL_MS: '0',
        // The slow card's 8 s reply outlasts the deadline: the charge is `unknown` until the janitor asks.
        PROCESSOR_TIMEOUT_MS: '4000',
        CHARGE_JANITOR_INTERVAL_MS: '1000',
        CHARGE_STALE_AFTER_MS: '1000',
        CHARGE_UNKNOWN_CHECK_AFTER_MS: '1000',
        CHARGE_RECHECK_AFTER_MS: '2000',
        // A row a killed processor-gateway committed before calling is unknown to the processor: believed
        // never made after this long (10 minutes by default), then failed, and retried on the next dunning day.
        CHARGE_NOT_FOUND_FINAL_AFTER_MS: '15000',
        LOG_LEVEL: 'info',
      })),
    EXTRA_CONSUMERS,
  );
  ({ system, sql, bus } = running);
  api = debitApi({
    gatewayUrl: system.gatewayUrl,
    apiToken: DEMO_TOKEN,
    adminToken: ADMIN_TOKEN,
    merchantId: DEMO_MERCHANT.merchantId,
  });
}, 180_000);

afterAll(async () => {
  console.info(`chaos seed ${SEED}\n${journal.join('\n')}`);
  // Every service's output, for reading what happened after a failure.
  if (process.env.CHAOS_LOGS) writeFileSync(process.env.CHAOS_LOGS, system?.logs.join('\n') ?? '');
  await running?.stop();
  await brokerProxy?.close();
  await databaseProxy?.close();
}, 60_000);

/** A STATIC link paid on the hosted page with a new card; answers its subscription once active. */
async function subscribe(index: number): Promise<SubscriptionView> {
  const customer = CUSTOMERS[index] as (typeof CUSTOMERS)[number];
  const amount = 100_000 + index * 1_000;
  const created = await api.call(
    'POST',
    '/api/saleitems/add',
    aStaticLink({
      customIdentifier: `chaos-${index}`,
      amount,
      installmentAmount: amount,
      totalPeriods: TOTAL_PERIODS,
      dayOfMonth: 10,
      noLoginRequired: true,
      documentNumber: DOCUMENT,
    }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const link = created.body as { id: number; slug: string };
  if (customer.firstApprovedByOverride)
    await sandbox(system, 'POST', '/outcomes', { last4: customer.card.slice(-4), codes: ['00'] });
  const paid = await payOnPayPage({
    gatewayUrl: system.gatewayUrl,
    sandboxUrl: system.urls['processor-sandbox'],
    slug: link.slug,
    documentNumber: DOCUMENT,
    processor: customer.processor,
    cardNumber: customer.card,
  });
  // The card is registered on the processor's form, then charged: the receipt says it was approved.
  expect(paid, `customer ${index}`).toEqual({ outcome: 'registered', location: `/pay/${link.slug}/receipt` });
  return waitFor(async () => {
    const listed = await api.call('GET', `/api/subscriptions?payRequestId=${link.id}`);
    const found = (listed.body as { subscriptions: Array<{ id: number }> }).subscriptions[0];
    const view = found && (await api.subscription(found.id));
    return view?.status === 'active' && view;
  }, 30_000);
}

const FAULTS = ['outage', 'lose-reply', 'duplicate-webhook', 'delay-webhook'] as const;

interface Incident {
  name: string;
  /** Processor faults are set before the run starts (they take the next calls); the rest happen during it. */
  when: 'before' | 'during';
  happen(): Promise<void>;
}

/**
 * Starts a killed service again, and again if it exits while starting (as Kubernetes would): on the shared
 * PostgreSQL a start may meet "too many clients" from other test runs, and a service that cannot migrate exits.
 */
async function restartLikeAnOrchestrator(name: ServiceName) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await system.restart(name);
    } catch (error) {
      if (attempt === 10) throw error;
      journal.push(`  (${name} exited while starting: ${(error as Error).message}; started again)`);
      await sleep(2_000);
    }
  }
}

/** One misfortune drawn from the seed; a service already being killed in this run is not killed again. */
function drawIncident(processorFaults: boolean, killed: Set<ServiceName>): Incident {
  const kinds = [
    'kill',
    'kill',
    'broker',
    'database',
    ...(processorFaults ? ['processor', 'processor'] : []),
  ];
  const kind = pick(kinds);
  const after = between(0, 1_500);
  const alive = KILLABLE.filter((name) => !killed.has(name));
  if (kind === 'kill' && alive.length > 0) {
    const name = pick(alive);
    killed.add(name);
    const downFor = between(0, 2_000);
    return {
      name: `+${after} ms kill -9 ${name}, restarted ${downFor} ms later`,
      when: 'during',
      happen: async () => {
        await sleep(after);
        down.add(name);
        await system.kill(name);
        await sleep(downFor);
        await restartLikeAnOrchestrator(name);
        down.delete(name);
      },
    };
  }
  if (kind !== 'processor') {
    const connection = kind === 'database' ? 'database' : 'broker';
    const proxy = connection === 'broker' ? brokerProxy : databaseProxy;
    const refusedFor = between(0, 3_000);
    return {
      name: `+${after} ms every ${connection} connection cut, new ones refused for ${refusedFor} ms`,
      when: 'during',
      happen: async () => {
        await sleep(after);
        proxy.pause();
        proxy.cutConnections();
        await sleep(refusedFor);
        proxy.resume();
      },
    };
  }
  const fault = pick(FAULTS);
  const processor = pick(['A', 'B']);
  const count = between(1, 3);
  return {
    name: `processor ${processor}: ${fault} × ${count}`,
    when: 'before',
    happen: async () => {
      await sandbox(system, 'POST', '/faults', {
        processor,
        fault,
        count,
        seconds: 3,
      });
    },
  };
}

/** Nothing in flight: no charge unsettled, no installment processing, no claim without its outcome. */
async function quiet(): Promise<boolean> {
  const [open] = await sql<Array<{ charges: number; processing: number; claimed: number }>>`
    select
      (select count(*) from processor_gateway.charges
        where idempotency_key like 'installment:%' and status in ('pending', 'unknown'))::int as charges,
      (select count(*) from subscriptions.installments where status = 'processing')::int as processing,
      (select count(*) from billing_scheduler.installments where state = 'claimed')::int as claimed`;
  return open?.charges === 0 && open.processing === 0 && open.claimed === 0;
}

/**
 * What is still in flight when the system did not settle, for the failure message: each installment left
 * `processing` with its attempts, processor-gateway's charges of it and the outcome events it wrote (and
 * whether subscriptions' inbox took them), billing-scheduler's row, the consumers' dead letters, and the
 * log lines that name it.
 */
async function stuckReport(): Promise<string> {
  const lines: string[] = [];
  const show = (title: string, rows: readonly unknown[]) =>
    lines.push(`${title}:`, ...rows.map((row) => `  ${JSON.stringify(row)}`));
  const stuck = await sql<Array<{ id: number }>>`
    select id from subscriptions.installments where status = 'processing' order by id`;
  for (const { id } of stuck) {
    const key = `installment:${id}:attempt:%`;
    lines.push(`installment ${id} processing`);
    show(
      ' attempts (subscriptions)',
      await sql`select attempt, status, charge_id, requested_at, settled_at from subscriptions.charge_attempts
        where installment_id = ${id} order by attempt`,
    );
    const charges = await sql<Array<{ id: string }>>`
      select id, attempt, status, decline_code, processor_calls, created_at, settled_at
      from processor_gateway.charges where idempotency_key like ${key} order by created_at`;
    show(' charges (processor-gateway)', charges);
    for (const charge of charges) {
      show(
        `  outcome events of charge ${charge.id} (processor-gateway's outbox, subscriptions' inbox)`,
        await sql`select o.id, o.type, o.created_at, o.published_at, o.attempts,
            (select string_agg(i.consumer, ', ') from subscriptions.inbox i where i.message_id = o.id::text) as taken_by
          from processor_gateway.outbox o where o.body like ${`%${charge.id}%`} order by o.created_at`,
      );
    }
    show(
      ' billing-scheduler',
      await sql`select state, attempt, due_on, claimed_at, updated_at from billing_scheduler.installments
        where installment_id = ${id}`,
    );
    const named = system.logs.filter(
      (line) => line.includes(`"installmentId":${id}`) || line.includes(key.slice(0, -1)),
    );
    lines.push(' log lines naming it (last 20):', ...named.slice(-20).map((line) => `  ${line}`));
  }
  for (const consumer of [...CONSUMERS, ...EXTRA_CONSUMERS]) {
    const letters = await bus.drainDeadLetters(consumer);
    if (letters.length > 0) show(`dead letters of ${consumer}`, letters);
  }
  return lines.join('\n');
}

/** Every service we did not kill must still run. */
function assertAlive() {
  for (const [name, child] of system.children) {
    if (down.has(name)) continue;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `${name} died (${child.exitCode ?? child.signalCode}):\n${system.logs
          .filter((line) => line.startsWith(`[${name}]`))
          .slice(-20)
          .join('\n')}`,
      );
  }
}

/** An as-of run while two or three incidents happen; then waits until the system is quiet again. */
async function chaoticRun(asOf: string, processorFaults: boolean) {
  const killed = new Set<ServiceName>();
  const incidents = Array.from({ length: between(2, 3) }, () => drawIncident(processorFaults, killed));
  const before = incidents.filter((incident) => incident.when === 'before');
  const during = incidents.filter((incident) => incident.when === 'during');
  journal.push(`run as of ${asOf}: ${incidents.map((incident) => incident.name).join('; ') || 'calm'}`);
  for (const incident of before) await incident.happen();
  const runId = await api.startRun(asOf);
  await Promise.all(during.map((incident) => incident.happen()));
  assertAlive();
  const run = await api.completedRun(runId, 120_000);
  try {
    await waitFor(
      async () => {
        assertAlive();
        return quiet();
      },
      60_000,
      250,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\nseed ${SEED}\n${journal.join('\n')}\n${await stuckReport()}`,
    );
  }
  journal.push(
    `  → due ${run.due}, requested ${run.requested}, succeeded ${run.succeeded}, failed ${run.failed}, skipped ${run.skipped}`,
  );
}

interface LedgerEntry {
  kind: string;
  reference: string;
  resultCode: string;
  amount: string;
}

/** `150000.00` (A) and `150000` (B) are the same amount. */
const plainAmount = (amount: string | number) => String(amount).replace(/\.0+$/, '');

describe(`automatic debit under chaos (CHAOS_SEED=${SEED})`, () => {
  it('months of runs through kills, cut connections and processor faults: each installment charged at most once, paid exactly when approved', async () => {
    const subscriptions: SubscriptionView[] = [];
    for (const index of CUSTOMERS.keys()) subscriptions.push(await subscribe(index));
    // The scheduler learns the schedules from subscriptions' events: wait until it has every installment.
    await waitFor(async () => {
      const [row] = await sql<Array<{ count: number }>>`
        select count(*)::int as count from billing_scheduler.installments`;
      return row?.count === CUSTOMERS.length * TOTAL_PERIODS;
    }, 30_000);

    // Every installment after the first falls on the same day of its month for every customer.
    const first = subscriptions[0] as SubscriptionView;
    for (let number = 2; number <= TOTAL_PERIODS; number++) {
      const day = byNumber(first, number).paymentDate;
      // The first attempts meet the processor's faults too; the dunning days (+1, +3, +5) only the kills
      // and cuts, so a good card is paid by the end whatever the processor did on its first day.
      await chaoticRun(day, true);
      for (const offset of [1, 3, 5]) await chaoticRun(addDays(day, offset), false);
    }
    // Read back through the gateway; a read may meet the shared server's own limits (too many clients), so
    // it is asked again.
    const views: SubscriptionView[] = [];
    for (const { id } of subscriptions) views.push(await waitFor(() => api.subscription(id), 30_000, 500));
    const charges = await sql<
      Array<{
        idempotency_key: string;
        reference: string;
        status: string;
        decline_code: string | null;
        processor_calls: number;
        status_checks: number;
        last_error: string | null;
        created_at: Date;
        settled_at: Date | null;
      }>
    >`
      select idempotency_key, reference, status, decline_code, processor_calls, status_checks, last_error,
             created_at, settled_at
        from processor_gateway.charges`;
    const keyOf = new Map(charges.map((charge) => [charge.reference, charge.idempotency_key]));
    const { entries } = await sandbox<{ entries: LedgerEntry[] }>(system, 'GET', '/ledger');
    const ledger = entries.filter((entry) => entry.kind === 'charge');
    const story = `seed ${SEED}\n${journal.join('\n')}`;

    // Nothing charged at the processor that processor-gateway does not know of.
    expect(
      ledger.filter((entry) => !keyOf.has(entry.reference)),
      story,
    ).toEqual([]);
    expect(
      charges.filter((charge) => charge.status === 'pending' || charge.status === 'unknown'),
      story,
    ).toEqual([]);

    for (const [index, view] of views.entries()) {
      const customer = CUSTOMERS[index] as (typeof CUSTOMERS)[number];
      for (const installment of view.installments.filter((each) => each.number > 1)) {
        const prefix = `installment:${installment.installmentId}:attempt:`;
        const attempts = ledger.filter((entry) => keyOf.get(entry.reference)?.startsWith(prefix));
        const approved = attempts.filter((entry) => entry.resultCode === '00');
        // What processor-gateway and the sandbox each hold of this installment's attempts, to explain a failure.
        const held = [
          ...charges
            .filter((charge) => charge.idempotency_key.startsWith(prefix))
            .map(
              (charge) =>
                `charge ${charge.idempotency_key} ref ${charge.reference}: ${charge.status} ${charge.decline_code ?? ''} calls ${charge.processor_calls} checks ${charge.status_checks} created ${charge.created_at.toISOString()} settled ${charge.settled_at?.toISOString() ?? '-'} ${charge.last_error ?? ''}`,
            ),
          ...attempts.map((entry) => `sandbox ${entry.reference}: ${entry.resultCode} ${entry.amount}`),
        ].join('\n');
        const what = `customer ${index} (${customer.card}, ${customer.processor}) installment ${installment.number}\n${held}\n${story}`;
        expect(approved.length, what).toBeLessThanOrEqual(1);
        // The declining card's 2nd installment is dunned to the end; its 3rd may still wait (the card's
        // 24-hour attempt cap counts real hours, and the simulated month passed in seconds).
        if (customer.pays || installment.number === 2)
          expect(installment.status, what).toBe(customer.pays ? 'paid' : 'failed');
        else expect(['failed', 'pending'], what).toContain(installment.status);
        if (customer.pays) {
          expect(
            approved.map((entry) => plainAmount(entry.amount)),
            what,
          ).toEqual([plainAmount(installment.amount)]);
        } else {
          expect(approved, what).toEqual([]);
          // Four attempts at most (the day and three retries); an outage may have taken one without a trace.
          expect(attempts.length, what).toBeLessThanOrEqual(4);
          expect(
            attempts.every((entry) => entry.resultCode === '51'),
            what,
          ).toBe(true);
        }
      }
      expect(view.status, `customer ${index}\n${story}`).toBe(customer.pays ? 'completed' : 'past_due');
    }

    // No step given up: every consumer's dead-letter queue is empty.
    for (const consumer of [...CONSUMERS, ...EXTRA_CONSUMERS])
      expect(await bus.drainDeadLetters(consumer), `${consumer}\n${story}`).toEqual([]);
    assertAlive();
    // Whatever failed and was logged, no card number was written.
    const logs = system.logs.join('\n');
    for (const { card } of CUSTOMERS) expect(logs.includes(card), card).toBe(false);
  }, 900_000);
});
