/**
 * The console benchmark's work, shared by `npm run bench:console` (console.bench.ts, the size) and
 * its CI smoke test (test-e2e/bench-console.e2e.test.ts, a tiny size): `rows` ledger rows of the demo
 * merchant spread over the last 29 days and today, among 20 merchants (the 19 others hold as many again
 * between them), inserted with generate_series (`insertLedgerRows`); the services as separate processes
 * on PostgreSQL and RabbitMQ; an owner of the merchant signed in to the console as a person is (the
 * operator's invitation from the development mailbox, a password, the second factor skipped, the sign-in
 * form), whose session cookie every console request carries. Then, each driven by autocannon for
 * `seconds` at `connections` after `warmupSeconds` of the same load not measured: home (`GET /console`)
 * beside the report it asks for (`GET /api/reports/summary` of 30 days per day, with an Api-Token), and
 * the payments page (`GET /console/payments`, the first page, and with a filter) beside the API call it
 * makes (`GET /api/payments?limit=50...`). The first summary, which totals the 29 days that are over, is timed apart.
 */
import autocannon from 'autocannon';
import postgres from 'postgres';
import { startProcesses } from '../scripts/processes';
import {
  benchServicesEnv,
  cleanUpOnInterrupt,
  demoToken,
  freshInfrastructure,
  insertLedgerRows,
  ROOT,
  servicePortsEnv,
} from './support';

export interface ConsoleBenchOptions {
  /** Ledger rows of the merchant (the 19 others hold as many between them). */
  rows: number;
  seconds: number;
  connections: number;
  /**
   * Before each page and each API call is measured, the same load this long, not measured (the services'
   * JIT, plans and pools warm, as bench:payments does); 0: one request each.
   */
  warmupSeconds?: number;
  /** Every service writes a CPU profile there when it stops (node --cpu-prof). */
  profileDir?: string;
  compiled: boolean;
  log: (line: string) => void;
}

export interface Measured {
  name: string;
  path: string;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Answers not 200, errors and timeouts. */
  failures: number;
}

export interface ConsoleBenchResult {
  /** Each console page beside the API call it makes, in order: home, payments, payments filtered. */
  pairs: Array<{ page: Measured; api: Measured }>;
  /** The first summary of the 30 days: it totals the 29 that are over (ms). */
  firstSummaryMs: number;
  /** The same summary again, from the daily totals (ms). */
  secondSummaryMs: number;
  /** Whether the second answer (from the kept totals) is the first's (summed from the rows). */
  totalsAgree: boolean;
  /** Rows inserted, the merchant's and the others'. */
  inserted: number;
}

const OTHER_MERCHANTS = 19;
const OWNER = 'owner@bench.example';
const PASSWORD = 'violet tractor umbrella 42';
/** Rows spread over the last 29 days and today: the range home's report covers. */
const SPAN_SECONDS = 29 * 86_400;

/** A console session: cookies kept, the CSRF token of the last form shown sent with the next post. */
class ConsoleClient {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(private readonly base: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private async keep(response: Response): Promise<{ status: number; text: string }> {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = (pair ?? '').split('=');
      if (!name) continue;
      const value = rest.join('=');
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const text = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, text };
  }

  async get(path: string) {
    return this.keep(
      await fetch(`${this.base}${path}`, { headers: { cookie: this.cookieHeader }, redirect: 'manual' }),
    );
  }

  async post(path: string, fields: Record<string, string>) {
    const body = new URLSearchParams({ ...fields, csrf: this.csrf });
    return this.keep(
      await fetch(`${this.base}${path}`, {
        method: 'POST',
        body,
        headers: { cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
        redirect: 'manual',
      }),
    );
  }
}

/**
 * The merchant's first owner as the tests make one: invited by the operator (`POST
 * /admin/merchants/{id}/users`), the invitation's link read from the development mailbox, a password
 * chosen, the second factor skipped, signed in with the form. Returns the session's `Cookie` header.
 */
async function signedInOwner(base: string, adminToken: string, merchantId: string): Promise<string> {
  const invited = await fetch(`${base}/admin/merchants/${merchantId}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: OWNER, name: 'Bench Owner', role: 'owner' }),
  });
  if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${await invited.text()}`);
  let invitation: string | undefined;
  for (let tries = 0; tries < 100 && !invitation; tries += 1) {
    const mails = (await (await fetch(`${base}/dev/mailbox`)).json()) as Array<{ to: string; text: string }>;
    invitation = /https?:\/\/[^/\s]+(\/console\/\S+)/.exec(
      mails.find((mail) => mail.to === OWNER)?.text ?? '',
    )?.[1];
    if (!invitation) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!invitation) throw new Error('no invitation in the development mailbox');
  const client = new ConsoleClient(base);
  await client.get(invitation);
  const accepted = await client.post(invitation, { password: PASSWORD, confirmation: PASSWORD });
  if (accepted.status !== 303) throw new Error(`invitation not accepted: ${accepted.status}`);
  await client.get('/console/enrol');
  await client.post('/console/enrol/skip', {});
  await client.get('/console/login');
  const signedIn = await client.post('/console/login', { email: OWNER, password: PASSWORD, next: '' });
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status} ${signedIn.text.slice(0, 300)}`);
  const home = await client.get('/console');
  if (home.status !== 200 || !home.text.includes('data-testid="home-collected"'))
    throw new Error(`home answered ${home.status}: ${home.text.slice(0, 300)}`);
  return client.cookieHeader;
}

async function measure(
  name: string,
  url: string,
  headers: Record<string, string>,
  options: { seconds: number; connections: number },
): Promise<Measured> {
  const result = await autocannon({
    url,
    headers,
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    name,
    path: new URL(url).pathname + new URL(url).search,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** `yyyy-MM-dd` of an instant in a time zone. */
const localDay = (instant: Date, timezone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(instant);

const addDays = (day: string, count: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + count * 86_400_000).toISOString().slice(0, 10);

export async function runConsoleBench(options: ConsoleBenchOptions): Promise<ConsoleBenchResult> {
  const { log } = options;
  const infra = await freshInfrastructure('console');
  const token = demoToken();
  const ports = await servicePortsEnv();
  const env: Record<string, string> = {
    ...benchServicesEnv(infra, ports),
    DEMO_API_TOKEN: token,
    DEV_MAILBOX: 'true',
  };
  const base = `http://127.0.0.1:${ports.gatewayPort}`;
  const serviceOutput: string[] = [];
  let system: Awaited<ReturnType<typeof startProcesses>> | undefined;
  const forget = cleanUpOnInterrupt(async () => {
    await system?.stop();
  });
  try {
    system = await startProcesses({
      root: ROOT,
      env,
      port: ports.gatewayPort,
      compiled: options.compiled,
      nodeArgs: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
      output: (service, line) => serviceOutput.push(`[${service}] ${line}`),
    });
    const apiHeaders = { 'api-token': token };
    const profile = (await (await fetch(`${base}/api/merchant`, { headers: apiHeaders })).json()) as {
      id: string;
      timezone: string;
    };
    // The ledger after the migrations (its trigger in place), before anyone signs in.
    const sql = postgres(infra.databaseUrl, { max: 1, onnotice: () => {} });
    let started = Date.now();
    const secondsApart = SPAN_SECONDS / options.rows;
    await insertLedgerRows(sql, profile.id, { rows: options.rows, secondsApart });
    const perOther = Math.ceil(options.rows / OTHER_MERCHANTS);
    for (let index = 0; index < OTHER_MERCHANTS; index += 1)
      await insertLedgerRows(sql, crypto.randomUUID(), {
        rows: perOther,
        secondsApart: SPAN_SECONDS / perOther,
      });
    await sql`analyze processor_gateway.ledger`;
    const inserted = options.rows + perOther * OTHER_MERCHANTS;
    log(`inserted ${inserted} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await sql.end();

    const today = localDay(new Date(), profile.timezone);
    const summary = `${base}/api/reports/summary?from=${addDays(today, -29)}&to=${today}&groupBy=day`;
    started = performance.now();
    const first = await fetch(summary, { headers: apiHeaders });
    if (first.status !== 200) throw new Error(`the summary answered ${first.status}: ${await first.text()}`);
    const summed = await first.text();
    const firstSummaryMs = performance.now() - started;
    started = performance.now();
    const kept = await (await fetch(summary, { headers: apiHeaders })).text();
    const secondSummaryMs = performance.now() - started;
    // Nothing was written in between: the answer from the kept totals is the one summed from the rows.
    const totalsAgree = kept === summed;
    log(
      `first summary of 30 days (totals the 29 over): ${firstSummaryMs.toFixed(0)} ms; again: ${secondSummaryMs.toFixed(0)} ms; ` +
        `the same answer: ${totalsAgree ? 'yes' : 'NO'}`,
    );

    const cookie = await signedInOwner(base, env.ADMIN_TOKEN as string, profile.id);
    const each = { seconds: options.seconds, connections: options.connections };
    const warmup = options.warmupSeconds ?? 0;
    const signedIn = { cookie };
    const cases: Array<[string, string, string, string]> = [
      ['home', '/console', 'its report', summary.slice(base.length)],
      ['payments', '/console/payments', 'its list', '/api/payments?limit=50'],
      [
        'payments filtered',
        '/console/payments?status=declined',
        'its list',
        '/api/payments?status=declined&limit=50',
      ],
    ];
    const pairs: ConsoleBenchResult['pairs'] = [];
    for (const [pageName, pagePath, apiName, apiPath] of cases) {
      // Not measured: the same load for `warmupSeconds` (else one request), then measured.
      const warm = async (path: string, headers: Record<string, string>) => {
        if (warmup > 0) await measure('warm-up', `${base}${path}`, headers, { ...each, seconds: warmup });
        else await (await fetch(`${base}${path}`, { headers })).arrayBuffer();
      };
      await warm(pagePath, signedIn);
      const page = await measure(pageName, `${base}${pagePath}`, signedIn, each);
      await warm(apiPath, apiHeaders);
      const api = await measure(`${pageName}: ${apiName}`, `${base}${apiPath}`, apiHeaders, each);
      pairs.push({ page, api });
      for (const run of [page, api])
        log(
          `${run.name.padEnd(28)} GET ${run.path}: ${run.requestsPerSecond.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms` +
            (run.failures > 0 ? ` (${run.failures} failed)` : ''),
        );
    }
    return { pairs, firstSummaryMs, secondSummaryMs, totalsAgree, inserted };
  } catch (error) {
    log(serviceOutput.slice(-40).join('\n'));
    throw error;
  } finally {
    forget();
    await system?.stop();
    await infra.drop();
  }
}
