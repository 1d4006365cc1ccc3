// The automatic-debit chaos run: many due installments charged while billing-scheduler, subscriptions,
// processor-gateway and the gateway are killed with SIGKILL (three times each, `rounds`), the broker is
// stopped and started (`rabbitmqctl stop_app`/`start_app`) once and PostgreSQL restarted (`pg_ctl restart
// -m fast`) once, while the gateway delivers the merchant's webhooks to a local receiver. After recovery the
// processor sandbox's ledger must show no installment charged twice, every installment must be `paid`,
// every webhook delivered (its delivery row `delivered`, its id seen by the receiver), and that within 60 s
// of the last fault. Every service is its own process on a PostgreSQL server and a RabbitMQ node of the
// run's own (started for it in a temporary directory: the shared servers are never restarted). The
// timeline of the faults is printed as they happen and again at the end. `npm run chaos:billing`;
// CHAOS_SUBSCRIPTIONS (400) and CHAOS_INSTALLMENTS (5) set the size, CHAOS_CONCURRENCY (8) how many
// customers subscribe at once (scripts/chaos-billing.ts); test-e2e/billing-chaos.e2e.test.ts runs it under
// vitest.
import http from 'node:http';
import { DEMO_MERCHANT } from '@payrail/gateway';
import type { ServiceName } from '@payrail/runtime';
import { aStaticLink } from '@payrail/testing/mothers';
import { payOnPayPage } from '@payrail/testing/pay-page';
import {
  createScratchDatabase,
  type PrivatePostgres,
  type PrivateRabbitMq,
  startPrivatePostgres,
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
  /** Rounds of kills: each kills billing-scheduler, subscriptions, processor-gateway and the gateway once. */
  rounds?: number;
  log?: (line: string) => void;
}

export interface Disruption {
  what: string;
  /** Seconds since the as-of run started. */
  at: number;
  /** Installments paid when it happened. */
  paidBefore: number;
  /** Seconds until the service answered /readyz again (or the server accepted connections again). */
  downSeconds: number;
}

export interface WebhookCheck {
  /** Envelopes in the gateway's event log (the merchant's endpoint takes each). */
  events: number;
  /** `PAYMENT_SUCCESS` envelopes among them (one per payment: at least one per due installment). */
  paymentSuccesses: number;
  /** Delivery rows not `delivered` (pending or failed). */
  undelivered: number;
  /** Event ids the receiver never saw. */
  missing: number;
  /** Ids the receiver saw more than once (at-least-once delivery: a kill mid-send sends again). */
  redelivered: number;
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
  webhooks: WebhookCheck;
  subscribeSeconds: number;
  runSeconds: number;
  /** From the last fault to every installment paid and every webhook delivered (null: not within the wait). */
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
  const rounds = options.rounds ?? 3;
  const limit = options.convergenceLimitSeconds ?? 60;
  const log = options.log ?? ((line: string) => console.log(`[chaos] ${line}`));
  if (installments < 1 || installments > MAX_DUE_PER_CARD)
    throw new Error(`installments must be 1..${MAX_DUE_PER_CARD} (the card's attempt cap)`);
  const due = subscriptions * installments;

  let broker: PrivateRabbitMq | undefined;
  let server: PrivatePostgres | undefined;
  let receiver: http.Server | undefined;
  let database: TestDatabase | undefined;
  let system: E2eSystem | undefined;
  let sql: postgres.Sql | undefined;
  const killedByUs = new Set<unknown>();
  const unexpectedExits: string[] = [];
  /** Set when the run stops the services itself: those exits are expected. */
  let stopping = false;
  try {
    log(
      `starting a private RabbitMQ node, a private PostgreSQL server and the services (${subscriptions} x ${installments} = ${due} due)`,
    );
    broker = await startPrivateRabbitMq({ name: 'payrail-chaos' });
    server = await startPrivatePostgres({ name: 'payrail-chaos-postgres' });
    database = await createScratchDatabase(server.url, 'chaos_billing');
    sql = postgres(database.url, { max: 4, onnotice: () => {} });
    // The merchant's webhook receiver: answers 200 at once, counts each id it is sent.
    const received = new Map<string, number>();
    receiver = http.createServer((request, response) => {
      const id = String(request.headers['webhook-id'] ?? '');
      request.resume();
      request.on('end', () => {
        if (id) received.set(id, (received.get(id) ?? 0) + 1);
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/payrail`;
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
      // The receiver is on this machine; a retry comes soon (a kill's or a restart's failed send).
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,...',
      WEBHOOK_RETRY_WINDOW: '1h',
      DATABASE_POOL_MAX: '6',
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
    await api(running, 'POST', '/api/webhook-endpoints', { url: receiverUrl, events: ['*'] });

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
    // The run's own queries ride out the PostgreSQL restart: asked again until the server is back.
    const paidCount = () =>
      retried(async () => {
        const [row] = await sql!<[{ paid: number }]>`
          select count(*)::int as paid from subscriptions.installments where number >= 2 and status = 'paid'`;
        return row.paid;
      });
    const webhookCheck = () =>
      retried(async (): Promise<WebhookCheck> => {
        const [counts] = await sql!<[{ events: number; successes: number; undelivered: number }]>`
          select (select count(*)::int from gateway.webhook_events) as events,
                 (select count(*)::int from gateway.webhook_events where kind = 'PAYMENT_SUCCESS') as successes,
                 (select count(*)::int from gateway.webhook_deliveries where status <> 'delivered') as undelivered`;
        const ids = await sql!<Array<{ id: string }>>`select id from gateway.webhook_events`;
        return {
          events: counts.events,
          paymentSuccesses: counts.successes,
          undelivered: counts.undelivered,
          missing: ids.filter(({ id }) => !received.has(id)).length,
          redelivered: [...received.values()].filter((count) => count > 1).length,
        };
      });
    const webhooksDone = (check: WebhookCheck) =>
      check.undelivered === 0 && check.missing === 0 && check.paymentSuccesses >= due;
    // The payments' webhooks: one PAYMENT_SUCCESS per installment, the first ones' (on the pay page) sent
    // before the run. Progress is the mean of the share paid and the share of their webhooks delivered.
    const deliveredSuccesses = () =>
      retried(async () => {
        const [row] = await sql!<[{ delivered: number }]>`
          select count(*)::int as delivered from gateway.webhook_deliveries
          where status = 'delivered' and kind = 'PAYMENT_SUCCESS'`;
        return row.delivered;
      });
    const successesBefore = await deliveredSuccesses();
    const successesExpected = due + subscriptions;
    const progress = async () => {
      const hooks = (await deliveredSuccesses()) - successesBefore;
      return (
        ((await paidCount()) / due + Math.max(0, hooks) / Math.max(1, successesExpected - successesBefore)) /
        2
      );
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
    const plan = faultPlan(rounds);
    for (const [index, target] of plan.entries()) {
      // Spaced over the run, the charges and the webhooks they cause: each waits for its share of the
      // progress (5 % to 95 %, so that the last fault leaves little to do), or goes ahead when nothing
      // has moved for 45 s (a stall the convergence check will report).
      const share = 0.05 + (0.9 * index) / (plan.length - 1);
      let seen = await progress();
      let progressAt = Date.now();
      while (seen < share && Date.now() - progressAt < 45_000) {
        await sleep(250);
        const now = await progress();
        if (now > seen) progressAt = Date.now();
        seen = now;
      }
      const paidBefore = await paidCount();
      const progressBefore = await progress();
      const at = seconds(runStarted);
      const downStarted = Date.now();
      if (target === 'rabbitmq') {
        await broker.restart();
      } else if (target === 'postgresql') {
        await server.restart();
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
        what: faultName(target),
        at,
        paidBefore,
        downSeconds: seconds(downStarted),
      };
      disruptions.push(disruption);
      log(
        `${disruption.what} at ${at} s (${paidBefore}/${due} paid, progress ${Math.round(100 * progressBefore)} %), back after ${disruption.downSeconds} s`,
      );
    }

    // Phase 3: convergence, waited for well past the limit so that a slow one is measured, not guessed.
    let convergenceSeconds: number | null = null;
    const waitUntil = lastRestart + Math.max(limit * 3, 180) * 1000;
    let lastReport = 0;
    let paidAt: number | null = null;
    let convergedAt: number | null = null;
    for (;;) {
      const paid = await paidCount();
      if (paid === due && paidAt === null) paidAt = seconds(lastRestart);
      const hooks = paid === due ? await webhookCheck() : undefined;
      if (hooks && webhooksDone(hooks)) {
        convergenceSeconds = seconds(lastRestart);
        convergedAt = seconds(runStarted);
        break;
      }
      if (Date.now() > waitUntil) break;
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(
          `converging: ${paid}/${due} paid${hooks ? `, webhooks ${hooks.undelivered} undelivered, ${hooks.missing} not received` : ''}, ${seconds(lastRestart)} s after the last fault`,
        );
      }
      await sleep(500);
    }
    const webhooks = await webhookCheck();
    const runSeconds = seconds(runStarted);
    log(
      convergenceSeconds === null
        ? `phase converge: not converged ${seconds(lastRestart)} s after the last fault`
        : `phase converge: every installment paid ${paidAt} s and every webhook delivered ${convergenceSeconds} s after the last fault (run ${runSeconds} s)`,
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
      webhooks,
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
      webhooksDone(webhooks) &&
      convergenceSeconds !== null &&
      convergenceSeconds <= limit &&
      unexpectedExits.length === 0;
    log(
      `summary: ${paid}/${due} paid, ${result.lost} lost, ${doubleCharges} double charges, ` +
        `${perInstallment.size} installments charged (${approved.length} approved ledger charges, ` +
        `${unknownCharges} unaccounted), scheduler rows not paid ${JSON.stringify(schedulerNotPaid)}, ` +
        `webhooks ${webhooks.events} events (${webhooks.paymentSuccesses} PAYMENT_SUCCESS), ${webhooks.undelivered} undelivered, ` +
        `${webhooks.missing} never received, ${webhooks.redelivered} received twice or more, ` +
        `converged ${convergenceSeconds ?? 'never'} s after the last fault (limit ${limit} s), ` +
        `unexpected exits ${unexpectedExits.length ? unexpectedExits.join(', ') : 'none'}: ${result.ok ? 'OK' : 'FAILED'}`,
    );
    log('timeline (seconds since the billing run started):');
    for (const d of disruptions)
      log(
        `  ${String(d.at).padStart(7)} s  ${d.what.padEnd(32)} ${d.paidBefore}/${due} paid, back after ${d.downSeconds} s`,
      );
    log(
      convergedAt === null
        ? `  ${String(runSeconds).padStart(7)} s  not converged (every installment paid: ${paidAt === null ? 'no' : `${paidAt} s after the last fault`})`
        : `  ${String(convergedAt).padStart(7)} s  converged: every installment paid ${paidAt} s, every webhook delivered ${convergenceSeconds} s after the last fault`,
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
    await server?.stop().catch(() => {});
    await broker?.stop().catch(() => {});
    receiver?.close();
  }
}

type Fault = ServiceName | 'rabbitmq' | 'postgresql';

/**
 * The faults in order: each round kills the four processes the charges and the webhooks go through; the
 * broker's restart after the first round, PostgreSQL's after the second (both between kills, so that each
 * recovery is seen alone).
 */
export function faultPlan(rounds: number): Fault[] {
  const round: Fault[] = ['billing-scheduler', 'subscriptions', 'processor-gateway', 'gateway'];
  const plan: Fault[] = [];
  for (let index = 0; index < rounds; index += 1) {
    plan.push(...round);
    if (index === 0) plan.push('rabbitmq');
    if (index === 1 || (rounds === 1 && index === 0)) plan.push('postgresql');
  }
  return plan;
}

export function faultName(fault: Fault): string {
  if (fault === 'rabbitmq') return 'rabbitmq stop_app/start_app';
  if (fault === 'postgresql') return 'postgresql restart -m fast';
  return `kill -9 ${fault}`;
}

/** Asked again while PostgreSQL restarts (up to a minute). */
async function retried<T>(query: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await query();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(500);
    }
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
