// The automatic-debit chaos run: many due installments charged while billing-scheduler, subscriptions and
// processor-gateway are killed with SIGKILL (twice each) and the broker is stopped and started
// (`rabbitmqctl stop_app`/`start_app`) once. After recovery the processor sandbox's ledger must show no
// installment charged twice, every installment must be `paid`, and that within 60 s of the last restart.
// Every service is its own process on a database of its own and on a private RabbitMQ node (the shared
// broker is never touched). `npm run chaos:billing`; CHAOS_SUBSCRIPTIONS (400) and CHAOS_INSTALLMENTS (5)
// set the size, CHAOS_CONCURRENCY (8) how many customers subscribe at once (scripts/chaos-billing.ts);
// test-e2e/billing-chaos.e2e.test.ts runs it under vitest.
import { DEMO_MERCHANT } from '@payrail/gateway';
import type { ServiceName } from '@payrail/runtime';
import { aStaticLink } from '@payrail/testing/mothers';
import { payOnPayPage } from '@payrail/testing/pay-page';
import {
  createScratchDatabase,
  LOCAL_POSTGRES_URL,
  type PrivateRabbitMq,
  startPrivateRabbitMq,
  type TestDatabase,
  uniqueName,
} from '@payrail/testing/standalone';
import postgres from 'postgres';
import { DEMO_TOKEN, type E2eSystem, startSystem } from './support';

const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
const INTERNAL_SECRET = 'chaos-internal-secret-0123456789';
const CARDS = ['4242424242424242', '5555555555554444'];
/** subscriptions allows 6 attempts per card in 24 hours: more due at once would be skipped, not charged. */
const MAX_DUE_PER_CARD = 5;
const APPROVED = '00';

export interface BillingChaosOptions {
  subscriptions?: number;
  /** Installments due per subscription (after the first, the link's payment); at most 5. */
  installments?: number;
  /** Customers subscribing at once. */
  concurrency?: number;
  /** The longest the system may take to converge after the last restart. */
  convergenceLimitSeconds?: number;
  /** The PostgreSQL server the run makes its database on (TEST_POSTGRES_URL, else the local one). */
  postgresUrl?: string;
  log?: (line: string) => void;
}

export interface Disruption {
  what: string;
  /** Seconds since the as-of run started. */
  at: number;
  /** Installments paid when it happened. */
  paidBefore: number;
  /** Seconds until the service answered /readyz again (or start_app returned). */
  downSeconds: number;
}

export interface BillingChaosResult {
  due: number;
  paid: number;
  /** Installments not `paid` in subscriptions after the wait. */
  lost: number;
  /** billing-scheduler rows not `paid` (e.g. stuck in `claimed`). */
  schedulerNotPaid: Record<string, number>;
  approvedCharges: number;
  /** Installments with more than one approved charge, plus references approved more than once. */
  doubleCharges: number;
  /** Approved ledger charges no processor-gateway charge row accounts for. */
  unknownCharges: number;
  disruptions: Disruption[];
  subscribeSeconds: number;
  runSeconds: number;
  /** From the last restart to every installment paid (null: not within the wait). */
  convergenceSeconds: number | null;
  convergenceLimitSeconds: number;
  /** Services that exited without being killed by the run. */
  unexpectedExits: string[];
  ok: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (fromMs: number, toMs = Date.now()) => Math.round((toMs - fromMs) / 100) / 10;

export async function runBillingChaos(options: BillingChaosOptions = {}): Promise<BillingChaosResult> {
  const subscriptions = options.subscriptions ?? 400;
  const installments = options.installments ?? 5;
  const concurrency = options.concurrency ?? 8;
  const limit = options.convergenceLimitSeconds ?? 60;
  const log = options.log ?? ((line: string) => console.log(`[chaos] ${line}`));
  if (installments < 1 || installments > MAX_DUE_PER_CARD)
    throw new Error(`installments must be 1..${MAX_DUE_PER_CARD} (the card's attempt cap)`);
  const due = subscriptions * installments;

  let broker: PrivateRabbitMq | undefined;
  let database: TestDatabase | undefined;
  let system: E2eSystem | undefined;
  let sql: postgres.Sql | undefined;
  const killedByUs = new Set<unknown>();
  const unexpectedExits: string[] = [];
  /** Set when the run stops the services itself: those exits are expected. */
  let stopping = false;
  try {
    log(
      `starting a private RabbitMQ node, a database and the services (${subscriptions} x ${installments} = ${due} due)`,
    );
    broker = await startPrivateRabbitMq({ name: 'payrail-chaos' });
    database = await createScratchDatabase(
      options.postgresUrl ?? process.env.TEST_POSTGRES_URL ?? LOCAL_POSTGRES_URL,
      'chaos_billing',
    );
    sql = postgres(database.url, { max: 4, onnotice: () => {} });
    const amqpUrl = broker.url;
    const databaseUrl = database.url;
    system = await startSystem((ports) => ({
      DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      EVENTS_EXCHANGE: uniqueName('chaos_events'),
      QUEUE_PREFIX: `${uniqueName('chaos')}.`,
      DEMO_API_TOKEN: DEMO_TOKEN,
      ADMIN_TOKEN,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: ports.gatewayUrl,
      SIMULATED_TIME: 'true',
      BILLING_RUN_INTERVAL_MS: '0',
      LOG_LEVEL: 'warn',
    }));
    const running = system;
    const watchExits = () => {
      for (const [name, child] of running.children) {
        if (killedByUs.has(child) || (child as { watched?: boolean }).watched) continue;
        (child as { watched?: boolean }).watched = true;
        child.once('exit', (code, signal) => {
          if (!killedByUs.has(child) && !stopping)
            unexpectedExits.push(`${name} (${signal ?? `code ${code}`})`);
        });
      }
    };
    watchExits();

    // Phase 1: customers subscribe on the pay page, one subscription each.
    const subscribeStarted = Date.now();
    let next = 0;
    let subscribed = 0;
    const subscribeOne = async (index: number) => {
      const documentNumber = String(3_000_000 + index);
      const created = await api(running, 'POST', '/api/saleitems/add', {
        ...aStaticLink({
          label: `Chaos ${index}`,
          customIdentifier: `chaos-${index}`,
          totalPeriods: installments + 1,
          amount: 100_000 + index,
          installmentAmount: 100_000 + index,
          dayOfMonth: 10,
        }),
        noLoginRequired: true,
        documentNumber,
        paymentMethods: ['PARAGUAY.PROCESSOR_A'],
      });
      const { slug } = created as { slug: string };
      const paid = await payOnPayPage({
        gatewayUrl: running.gatewayUrl,
        sandboxUrl: running.urls['processor-sandbox'],
        slug,
        documentNumber,
        cardNumber: CARDS[index % CARDS.length] as string,
      });
      // A subscription's card is registered on the form, then charged: 'registered' is its approval.
      if (paid.outcome !== 'registered' && paid.outcome !== 'approved')
        throw new Error(`customer ${index}: the first payment was ${paid.outcome}`);
      subscribed += 1;
      if (subscribed % 50 === 0)
        log(`subscribed ${subscribed}/${subscriptions} (${seconds(subscribeStarted)} s)`);
    };
    await Promise.all(
      Array.from({ length: Math.min(concurrency, subscriptions) }, async () => {
        while (next < subscriptions) await subscribeOne(next++);
      }),
    );
    // Active in subscriptions and projected by billing-scheduler: every debit `scheduled`.
    await until(
      async () => {
        const [row] = await sql!<[{ scheduled: number }]>`
          select count(*)::int as scheduled from billing_scheduler.installments i
          join billing_scheduler.subscriptions s using (subscription_id)
          where i.number >= 2 and i.state = 'scheduled' and s.status = 'active'`;
        return row.scheduled === due;
      },
      120_000,
      'every debit scheduled in billing-scheduler',
    );
    const subscribeSeconds = seconds(subscribeStarted);
    log(
      `phase subscribe: ${subscriptions} subscriptions active, ${due} installments scheduled in ${subscribeSeconds} s`,
    );

    // Phase 2: one as-of run makes every debit due; the chaos happens while the charges flow.
    const [{ asOf }] = await sql<[{ asOf: string }]>`
      select max(payment_date)::text as "asOf" from billing_scheduler.installments`;
    const paidCount = async () => {
      const [row] = await sql!<[{ paid: number }]>`
        select count(*)::int as paid from subscriptions.installments where number >= 2 and status = 'paid'`;
      return row.paid;
    };
    const runStarted = Date.now();
    const run = await api(
      running,
      'POST',
      '/admin/billing/runs',
      { asOf, merchantId: DEMO_MERCHANT.merchantId },
      true,
    );
    log(`phase run: as of ${asOf}, run ${(run as { id: string }).id}`);

    const disruptions: Disruption[] = [];
    let lastRestart = runStarted;
    const plan: Array<ServiceName | 'rabbitmq'> = [
      'billing-scheduler',
      'subscriptions',
      'processor-gateway',
      'rabbitmq',
      'billing-scheduler',
      'subscriptions',
      'processor-gateway',
    ];
    for (const [index, target] of plan.entries()) {
      // Spaced over the run: each waits for its share of the payments (5 % to 90 %, so that the last
      // restart leaves little to do), or goes ahead when nothing has been paid for 45 s (a stall the
      // convergence check will report).
      const share = Math.ceil(due * (0.05 + (0.85 * index) / (plan.length - 1)));
      let seen = await paidCount();
      let progressAt = Date.now();
      while (seen < share && Date.now() - progressAt < 45_000) {
        await sleep(250);
        const now = await paidCount();
        if (now > seen) progressAt = Date.now();
        seen = now;
      }
      const paidBefore = await paidCount();
      const at = seconds(runStarted);
      const downStarted = Date.now();
      if (target === 'rabbitmq') {
        await broker.restart();
      } else {
        const child = running.children.get(target);
        killedByUs.add(child);
        await running.kill(target, 'SIGKILL');
        await sleep(1000);
        await running.restart(target);
        watchExits();
      }
      lastRestart = Date.now();
      const disruption = {
        what: target === 'rabbitmq' ? 'rabbitmq stop_app/start_app' : `kill -9 ${target}`,
        at,
        paidBefore,
        downSeconds: seconds(downStarted),
      };
      disruptions.push(disruption);
      log(
        `${disruption.what} at ${at} s (${paidBefore}/${due} paid), back after ${disruption.downSeconds} s`,
      );
    }

    // Phase 3: convergence, waited for well past the limit so that a slow one is measured, not guessed.
    let convergenceSeconds: number | null = null;
    const waitUntil = lastRestart + Math.max(limit * 3, 180) * 1000;
    let lastReport = 0;
    for (;;) {
      const paid = await paidCount();
      if (paid === due) {
        convergenceSeconds = seconds(lastRestart);
        break;
      }
      if (Date.now() > waitUntil) break;
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(`converging: ${paid}/${due} paid, ${seconds(lastRestart)} s after the last restart`);
      }
      await sleep(250);
    }
    const runSeconds = seconds(runStarted);
    log(
      convergenceSeconds === null
        ? `phase converge: not converged ${seconds(lastRestart)} s after the last restart`
        : `phase converge: every installment paid ${convergenceSeconds} s after the last restart (run ${runSeconds} s)`,
    );

    // Phase 4: the checks, the sandbox's ledger as judge of what was charged.
    const { entries } = (await (
      await fetch(`${running.urls['processor-sandbox']}/__sandbox/ledger`)
    ).json()) as { entries: Array<{ kind: string; reference: string; resultCode: string }> };
    const approved = entries.filter((entry) => entry.kind === 'charge' && entry.resultCode === APPROVED);
    const charges = await sql<Array<{ reference: string; installmentId: number | null }>>`
      select reference, installment_id as "installmentId" from processor_gateway.charges`;
    const installmentOf = new Map(charges.map((charge) => [charge.reference, charge.installmentId]));
    const perReference = new Map<string, number>();
    const perInstallment = new Map<number, number>();
    let unknownCharges = 0;
    for (const entry of approved) {
      perReference.set(entry.reference, (perReference.get(entry.reference) ?? 0) + 1);
      if (!installmentOf.has(entry.reference)) unknownCharges += 1;
      const installmentId = installmentOf.get(entry.reference);
      if (installmentId) perInstallment.set(installmentId, (perInstallment.get(installmentId) ?? 0) + 1);
    }
    const doubleCharges =
      [...perReference.values()].filter((count) => count > 1).length +
      [...perInstallment.values()].filter((count) => count > 1).length;
    const paid = await paidCount();
    const schedulerRows = await sql<Array<{ state: string; count: number }>>`
      select state, count(*)::int as count from billing_scheduler.installments
      where number >= 2 and state <> 'paid' group by state`;
    const schedulerNotPaid = Object.fromEntries(schedulerRows.map((row) => [row.state, row.count]));
    const result: BillingChaosResult = {
      due,
      paid,
      lost: due - paid,
      schedulerNotPaid,
      approvedCharges: perInstallment.size,
      doubleCharges,
      unknownCharges,
      disruptions,
      subscribeSeconds,
      runSeconds,
      convergenceSeconds,
      convergenceLimitSeconds: limit,
      unexpectedExits: [...unexpectedExits],
      ok: false,
    };
    result.ok =
      result.lost === 0 &&
      result.doubleCharges === 0 &&
      result.unknownCharges === 0 &&
      Object.keys(schedulerNotPaid).length === 0 &&
      convergenceSeconds !== null &&
      convergenceSeconds <= limit &&
      unexpectedExits.length === 0;
    log(
      `summary: ${paid}/${due} paid, ${result.lost} lost, ${doubleCharges} double charges, ` +
        `${perInstallment.size} installments charged (${approved.length} approved ledger charges, ` +
        `${unknownCharges} unaccounted), scheduler rows not paid ${JSON.stringify(schedulerNotPaid)}, ` +
        `converged ${convergenceSeconds ?? 'never'} s after the last restart (limit ${limit} s), ` +
        `unexpected exits ${unexpectedExits.length ? unexpectedExits.join(', ') : 'none'}: ${result.ok ? 'OK' : 'FAILED'}`,
    );
    if (!result.ok) {
      const errors = system.logs.filter((line) => /error|fatal|unhandled/i.test(line)).slice(-30);
      for (const line of errors) log(`  ${line}`);
    }
    return result;
  } finally {
    stopping = true;
    await system?.stop().catch(() => {});
    await sql?.end().catch(() => {});
    await database?.drop().catch(() => {});
    await broker?.stop().catch(() => {});
  }
}

async function api(system: E2eSystem, method: string, path: string, body?: unknown, admin = false) {
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'api-token': DEMO_TOKEN }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
