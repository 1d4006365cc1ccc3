/**
 * The webhooks benchmark's work, shared by `npm run bench:webhooks` (webhooks.bench.ts, the issue's size)
 * and its CI smoke test (test-e2e/bench-webhooks.e2e.test.ts, a tiny size). The gateway runs as its own
 * process on PostgreSQL and RabbitMQ (the other services are not needed: the events are published on the
 * bus as the services' relays publish them) with 20 merchants, each with an endpoint at a local receiver
 * (webhook-receiver.ts, its own process) that answers 200 in 1–5 ms. `events` one-off payments
 * (`link.paid`, each of its own link, the links' `link.created` published first and not timed), the
 * merchants in turn:
 *
 * 1. burst: half of them published at once; deliveries per second from the first publish to the last
 *    arrival, and each event's time from its publish (the commit a relay publishes after) to its arrival;
 * 2. baseline: the same payloads, copied from the gateway's event log into a table, read, signed (the
 *    same Standard Webhooks HMAC) and POSTed by a bare loop with the gateway's concurrency (32 sends at
 *    once, a new connection per send as the gateway's sender makes); deliveries per second;
 * 3. steady: a quarter published at a share of the burst's rate (a tenth by default), every receiver answering: p50/p99;
 * 4. hanging: the last quarter at the same rate while merchant 20's receiver hangs 10 s per request: the
 *    other merchants' p50/p99, to set beside the steady phase's.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createEvent } from '../libs/contracts/src';
import { createRabbitMqBus } from '../libs/messaging/src';
import postgres from 'postgres';
import { signatureHeader } from '../services/gateway/src/application/webhooks/signature';
import { startProcesses } from '../scripts/processes';
import {
  type AutovacuumAction,
  autovacuumStandIn,
  benchServicesEnv,
  cleanUpOnInterrupt,
  cpuSnapshot,
  cpuUsed,
  freePort,
  freshInfrastructure,
  ROOT,
  servicePortsEnv,
  spawnTs,
  stopChild,
  waitReady,
} from './support';

export interface WebhooksBenchOptions {
  /** Events in all (a half in the burst, a quarter steady, a quarter with one receiver hanging). */
  events: number;
  merchants?: number;
  /**
   * The steady and hanging phases' rate as a share of the burst's deliveries/s (default 0.1). Isolation is
   * judged only where the steady phase keeps up: an overloaded phase's p99 is its queue's growth.
   */
  steadyShare?: number;
  /** The gateway writes a CPU profile there when it stops (node --cpu-prof). */
  profileDir?: string;
  /** How long the hanging receiver holds each request (ms). */
  hangMs?: number;
  compiled: boolean;
  log: (line: string) => void;
}

export interface Latency {
  count: number;
  p50: number;
  p99: number;
}

export interface WebhooksBenchResult {
  burst: {
    events: number;
    seconds: number;
    deliveriesPerSecond: number;
    latency: Latency;
    /** CPU ms a delivery in the burst: the gateway, PostgreSQL's backends of the bench's database, the receiver. */
    cpuMsPerDelivery: { gateway: number; postgres: number; receiver: number };
    /**
     * PostgreSQL's buffers a delivery in the burst (the bench's database, pg_stat_database): found in shared
     * buffers, and read from outside them (the OS's cache or the disk).
     */
    buffersPerDelivery: { hit: number; read: number };
    /** What the autovacuum stand-in did between the burst's first publish and its last arrival. */
    maintenance: AutovacuumAction[];
    /**
     * webhook_deliveries after the burst: its updates, the HOT ones, its dead row versions, its pages, and
     * each index's pages and the buffers read in it so far (nearly all in the burst: setup queues none).
     */
    deliveriesTable: string;
  };
  baseline: { events: number; seconds: number; deliveriesPerSecond: number };
  /** The burst's deliveries per second over the baseline's. */
  ratio: number;
  /** Events per second published in the steady and hanging phases. */
  rate: number;
  steady: Latency;
  /** The merchants other than the hanging one, while it hangs. */
  othersWhileHanging: Latency;
  /** Attempts to the hanging merchant's receiver it held about `hangMs` (answered late or timed out). */
  hangingHeld: number;
  /** Events published whose arrival was never seen (the hanging merchant's are not waited for). */
  missing: number;
  /** Webhook ids that arrived more than once (outside the hanging merchant). */
  duplicates: number;
  /** Tables the autovacuum stand-in vacuumed and analyzed in the whole run (0 where the server's is on). */
  maintenance: { vacuumed: number; analyzed: number };
}

/** The gateway's `WEBHOOK_CONCURRENCY` default: the baseline loop sends as many at once. */
const CONCURRENCY = 32;
const HANGING = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;
}

function latencyOf(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

async function json<T>(
  url: string,
  init?: RequestInit & { body?: string },
): Promise<{ status: number; body: T }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** POSTs like the gateway's sender: a new connection per request (`agent: false`), the body whole. */
function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export async function runWebhooksBench(options: WebhooksBenchOptions): Promise<WebhooksBenchResult> {
  const { log } = options;
  const merchants = options.merchants ?? 20;
  const burstCount = Math.floor(options.events / 2);
  const steadyCount = Math.floor(options.events / 4);
  const hangingCount = options.events - burstCount - steadyCount;
  const infra = await freshInfrastructure('webhooks');
  const ports = await servicePortsEnv();
  const gatewayUrl = `http://127.0.0.1:${ports.gatewayPort}`;
  const adminToken = `bench-admin-${randomUUID()}`;
  const env = {
    ...benchServicesEnv(infra, ports),
    ADMIN_TOKEN: adminToken,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const receiverPort = await freePort();
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  const receiver = spawnTs('bench/webhook-receiver.ts', {
    PORT: String(receiverPort),
    HANG_MS: String(options.hangMs ?? 10_000),
  });
  const serviceOutput: string[] = [];
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  const bus = createRabbitMqBus({ url: infra.amqpUrl, exchange: infra.exchange });
  const sql = postgres(infra.databaseUrl, { max: 4, onnotice: () => {} });
  // This machine's PostgreSQL runs without autovacuum; a server in service has it (bench/support.ts).
  const maintenance = await autovacuumStandIn(infra.databaseUrl);
  const forget = cleanUpOnInterrupt(async () => {
    await system?.stop();
    await maintenance.stop();
    receiver.child.kill();
    // Closed before the broker's names are deleted (it would declare its exchange again).
    await bus.close().catch(() => undefined);
  });
  try {
    system = await startProcesses({
      root: ROOT,
      env,
      port: ports.gatewayPort,
      compiled: options.compiled,
      only: ['gateway'],
      nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
      output: (service, line) => serviceOutput.push(`[${service}] ${line}`),
    });
    await waitReady(`${receiverUrl}/__arrivals`, receiver.child);
    await bus.start();

    // The merchants and their endpoints (merchant i's receiver path is /m/<i>).
    const merchantIds: string[] = [];
    const secrets: string[] = [];
    for (let index = 1; index <= merchants; index += 1) {
      const merchant = await json<{ id: string; apiToken: string }>(`${gatewayUrl}/admin/merchants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({
          name: `Bench merchant ${index}`,
          instance: 'NATIONAL',
          processors: ['PARAGUAY.PROCESSOR_A'],
        }),
      });
      if (merchant.status !== 201) throw new Error(`merchant not created: ${JSON.stringify(merchant.body)}`);
      const endpoint = await json<{ secret: string }>(`${gatewayUrl}/api/webhook-endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-token': merchant.body.apiToken },
        body: JSON.stringify({ url: `${receiverUrl}/m/${index}`, events: ['PAYMENT_SUCCESS'] }),
      });
      if (endpoint.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(endpoint.body)}`);
      merchantIds.push(merchant.body.id);
      secrets.push(endpoint.body.secret);
    }
    const merchantOf = (linkId: number) => ((linkId - 1) % merchants) + 1;

    // Setup, not timed: every link's creation, so that each envelope carries its link's fields.
    const now = new Date();
    const publishAll = async (
      linkIds: number[],
      make: (linkId: number) => ReturnType<typeof createEvent>,
    ) => {
      for (let at = 0; at < linkIds.length; at += 500)
        await Promise.all(
          linkIds.slice(at, at + 500).map((linkId) => {
            const event = make(linkId);
            return bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
          }),
        );
    };
    const all = Array.from({ length: options.events }, (_, index) => index + 1);
    await publishAll(all, (linkId) =>
      createEvent(
        'link.created',
        {
          linkId,
          merchantId: merchantIds[merchantOf(linkId) - 1] as string,
          slug: `bench${linkId}`,
          label: 'Gym membership',
          amount: '150000.00',
          currency: 'PYG',
          customIdentifier: `member-${linkId}`,
          customIdentifier2: null,
          paymentMethods: ['PARAGUAY.PROCESSOR_A'],
          timezone: 'America/Asuncion',
          createdAt: now.toISOString(),
          createdOn: now.toISOString().slice(0, 10),
          recurrence: null,
        },
        now,
      ),
    );
    for (let waited = 0; ; waited += 250) {
      const [row] = await sql<
        Array<{ count: number }>
      >`select count(*)::int as count from gateway.webhook_links`;
      if (row?.count === options.events) break;
      if (waited > 120_000 + options.events * 5) throw new Error(`only ${row?.count} links projected`);
      await sleep(250);
    }
    log(`setup: ${merchants} merchants with an endpoint each, ${options.events} links projected`);

    const publishedAt = new Map<number, number>();
    const paid = (linkId: number) => {
      const at = new Date();
      publishedAt.set(linkId, at.getTime());
      const event = createEvent(
        'link.paid',
        {
          linkId,
          merchantId: merchantIds[merchantOf(linkId) - 1] as string,
          amount: '150000.00',
          currency: 'PYG',
          paidAt: at.toISOString(),
          txId: randomUUID(),
          recurrent: false,
          method: 'CARD',
          processor: 'PARAGUAY.PROCESSOR_A',
        },
        at,
      );
      return bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
    };
    /** Arrivals so far, read from the receiver incrementally: payRequestId → ms, and ids seen twice. */
    const arrivedAt = new Map<number, number>();
    const seenIds = new Set<string>();
    let duplicates = 0;
    let read = 0;
    const readArrivals = async () => {
      const { body } = await json<{ arrivals: Array<[number, number, number, string]> }>(
        `${receiverUrl}/__arrivals?after=${read}`,
      );
      read += body.arrivals.length;
      for (const [, linkId, at, id] of body.arrivals) {
        if (seenIds.has(id)) duplicates += 1;
        seenIds.add(id);
        if (!arrivedAt.has(linkId)) arrivedAt.set(linkId, at);
      }
    };
    const waitArrived = async (linkIds: number[], limitMs: number) => {
      const deadline = Date.now() + limitMs;
      for (;;) {
        await readArrivals();
        if (linkIds.every((linkId) => arrivedAt.has(linkId))) return;
        if (Date.now() > deadline) return;
        await sleep(200);
      }
    };
    const latencies = (linkIds: number[]) =>
      latencyOf(
        linkIds.flatMap((linkId) => {
          const arrived = arrivedAt.get(linkId);
          return arrived === undefined ? [] : [arrived - (publishedAt.get(linkId) as number)];
        }),
      );

    // 1. Burst.
    const burst = all.slice(0, burstCount);
    const measured = new Map([
      ['gateway', system.children.get('gateway')?.pid],
      ['receiver', receiver.child.pid],
    ]);
    const buffers = async () => {
      const [row] = await sql<Array<{ hit: number; read: number }>>`
        select blks_hit::float8 as hit, blks_read::float8 as read from pg_stat_database
         where datname = current_database()`;
      return row ?? { hit: 0, read: 0 };
    };
    const buffersBefore = await buffers();
    const cpuBefore = await cpuSnapshot(measured, sql);
    const burstStart = Date.now();
    for (let at = 0; at < burst.length; at += 500) await Promise.all(burst.slice(at, at + 500).map(paid));
    log(`burst: ${burst.length} events published in ${((Date.now() - burstStart) / 1000).toFixed(1)} s`);
    await waitArrived(burst, 120_000 + burstCount * 20);
    const cpu = cpuUsed(cpuBefore, await cpuSnapshot(measured, sql));
    const buffersAfter = await buffers();
    const lastArrival = Math.max(...burst.map((linkId) => arrivedAt.get(linkId) ?? 0));
    const burstSeconds = (lastArrival - burstStart) / 1000;
    const delivered = burst.filter((linkId) => arrivedAt.has(linkId)).length;
    const perDelivery = (name: string) => ((cpu.get(name) ?? 0) * 1000) / Math.max(1, delivered);
    const [table] = await sql<
      Array<{ updated: number; hot: number; dead: number; pages: number; indexPages: string }>
    >`
      select s.n_tup_upd::int as updated, s.n_tup_hot_upd::int as hot, s.n_dead_tup::int as dead,
             pg_relation_size(s.relid)::int / 8192 as pages,
             (select string_agg(format('%s %s pages (%s read)', i.indexrelname,
                                       pg_relation_size(i.indexrelid) / 8192, i.idx_blks_hit + i.idx_blks_read),
                                ', ' order by i.indexrelname)
                from pg_statio_user_indexes i where i.relid = s.relid) as "indexPages"
        from pg_stat_user_tables s
       where s.schemaname = 'gateway' and s.relname = 'webhook_deliveries'`;
    const burstResult = {
      events: delivered,
      seconds: burstSeconds,
      deliveriesPerSecond: delivered / burstSeconds,
      latency: latencies(burst),
      buffersPerDelivery: {
        hit: (buffersAfter.hit - buffersBefore.hit) / Math.max(1, delivered),
        read: (buffersAfter.read - buffersBefore.read) / Math.max(1, delivered),
      },
      cpuMsPerDelivery: {
        gateway: perDelivery('gateway'),
        postgres: perDelivery('postgres'),
        receiver: perDelivery('receiver'),
      },
      maintenance: maintenance.actions.filter(
        (action) => action.at + action.ms >= burstStart && action.at <= lastArrival,
      ),
      deliveriesTable: table
        ? `${table.updated} updates (${table.hot} HOT), ${table.dead} dead, ${table.pages} pages; its indexes: ${table.indexPages}`
        : 'not found',
    };
    log(
      `burst: ${burstResult.events} delivered in ${burstSeconds.toFixed(1)} s = ${burstResult.deliveriesPerSecond.toFixed(0)}/s, publish → arrival p50 ${burstResult.latency.p50} ms p99 ${burstResult.latency.p99} ms`,
    );
    const { cpuMsPerDelivery: cpuMs, buffersPerDelivery: buffersOf } = burstResult;
    log(
      `burst: CPU a delivery: gateway ${cpuMs.gateway.toFixed(2)} ms, PostgreSQL ${cpuMs.postgres.toFixed(2)} ms, receiver ${cpuMs.receiver.toFixed(2)} ms; PostgreSQL's buffers a delivery ${buffersOf.hit.toFixed(0)} in shared buffers, ${buffersOf.read.toFixed(1)} read from outside`,
    );
    log(`burst: webhook_deliveries after it: ${burstResult.deliveriesTable}`);
    log(
      `burst: the autovacuum stand-in meanwhile: ${
        burstResult.maintenance
          .map(
            (action) =>
              `${action.what} ${action.table} ${((action.at - burstStart) / 1000).toFixed(0)} s in (${action.ms} ms)`,
          )
          .join('; ') || 'nothing'
      }`,
    );

    // 2. Baseline: the burst's payloads as the gateway logged them, in a table of their own.
    await sql`create table public.bench_webhook_payloads (seq bigserial primary key, merchant int not null, id text not null, body text not null)`;
    const logged = await sql<Array<{ id: string; body: string; merchantId: string }>>`
      select id, body, merchant_id::text as "merchantId" from gateway.webhook_events order by seq`;
    const indexOf = new Map(merchantIds.map((id, index) => [id, index + 1]));
    const payloads = logged.map((row) => ({
      merchant: indexOf.get(row.merchantId) as number,
      id: row.id,
      body: row.body,
    }));
    for (let at = 0; at < payloads.length; at += 2_000)
      await sql`insert into public.bench_webhook_payloads ${sql(payloads.slice(at, at + 2_000))}`;
    const baselineStart = Date.now();
    let cursor = 0;
    let page: Array<{ seq: string; merchant: number; id: string; body: string }> = [];
    let pageAt = 0;
    let fetching: Promise<void> | undefined;
    const nextPayload = async () => {
      while (pageAt >= page.length) {
        if (!fetching)
          fetching = (async () => {
            page = await sql<Array<{ seq: string; merchant: number; id: string; body: string }>>`
              select seq, merchant, id, body from public.bench_webhook_payloads where seq > ${cursor} order by seq limit 500`;
            pageAt = 0;
            const last = page.at(-1) as { seq: string } | undefined;
            if (last) cursor = Number(last.seq);
          })().finally(() => {
            fetching = undefined;
          });
        await fetching;
        if (page.length === 0) return undefined;
      }
      return page[pageAt++];
    };
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (;;) {
          const payload = await nextPayload();
          if (!payload) return;
          const timestamp = Math.floor(Date.now() / 1000);
          const status = await post(
            `${receiverUrl}/m/${payload.merchant}`,
            {
              'content-type': 'application/json',
              'user-agent': 'payrail-bench-baseline',
              'webhook-id': `baseline-${payload.id}`,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': signatureHeader(
                [secrets[payload.merchant - 1] as string],
                payload.id,
                timestamp,
                payload.body,
              ),
            },
            payload.body,
          );
          if (status === 200) sent += 1;
        }
      }),
    );
    const baselineSeconds = (Date.now() - baselineStart) / 1000;
    const baselineResult = {
      events: sent,
      seconds: baselineSeconds,
      deliveriesPerSecond: sent / baselineSeconds,
    };
    log(
      `baseline: ${sent} POSTed in ${baselineSeconds.toFixed(1)} s = ${baselineResult.deliveriesPerSecond.toFixed(0)}/s`,
    );
    await readArrivals();

    // 3 and 4: a steady rate, a share of the burst's (`steadyShare`), first with every receiver answering,
    // then with one hanging.
    const rate = Math.max(1, Math.floor(burstResult.deliveriesPerSecond * (options.steadyShare ?? 0.1)));
    const steadily = async (linkIds: number[]) => {
      const start = Date.now();
      const pending: Array<Promise<void>> = [];
      for (const [index, linkId] of linkIds.entries()) {
        const due = start + (index * 1000) / rate;
        if (due > Date.now()) await sleep(due - Date.now());
        pending.push(paid(linkId));
      }
      await Promise.all(pending);
    };
    const steady = all.slice(burstCount, burstCount + steadyCount);
    await steadily(steady);
    await waitArrived(steady, 120_000 + steadyCount * 20);
    const steadyLatency = latencies(steady);
    log(
      `steady at ${rate}/s: ${steadyLatency.count} delivered, p50 ${steadyLatency.p50} ms p99 ${steadyLatency.p99} ms`,
    );
    await fetch(`${receiverUrl}/__hang/${HANGING}`, { method: 'POST' });
    const hanging = all.slice(burstCount + steadyCount);
    const others = hanging.filter((linkId) => merchantOf(linkId) !== HANGING);
    await steadily(hanging);
    await waitArrived(others, 120_000 + hangingCount * 20);
    const othersLatency = latencies(others);
    log(
      `merchant ${HANGING}'s receiver hanging, ${rate}/s: the others' ${othersLatency.count} delivered, p50 ${othersLatency.p50} ms p99 ${othersLatency.p99} ms`,
    );
    // The hanging receiver's attempts so far that it held (answered late or timed out): each held one
    // of its endpoint's send slots that long.
    const [held] = await sql<Array<{ count: number }>>`
      select count(*)::int as count from gateway.webhook_delivery_attempts a
      join gateway.webhook_deliveries d on d.id = a.delivery_id
      where d.merchant_id = ${merchantIds[HANGING - 1] as string}
        and a.duration_ms >= ${Math.floor((options.hangMs ?? 10_000) * 0.9)}`;
    const waitedFor = [...burst, ...steady, ...others];
    return {
      burst: burstResult,
      baseline: baselineResult,
      ratio: burstResult.deliveriesPerSecond / baselineResult.deliveriesPerSecond,
      rate,
      steady: steadyLatency,
      othersWhileHanging: othersLatency,
      hangingHeld: held?.count ?? 0,
      missing: waitedFor.filter((linkId) => !arrivedAt.has(linkId)).length,
      duplicates,
      maintenance: { vacuumed: maintenance.vacuumed, analyzed: maintenance.analyzed },
    };
  } catch (error) {
    log(serviceOutput.slice(-40).join('\n'));
    log(receiver.output.join(''));
    throw error;
  } finally {
    forget();
    await system?.stop();
    await maintenance.stop();
    await stopChild(receiver.child);
    await bus.close().catch(() => undefined);
    await sql.end();
    await infra.drop();
  }
}
