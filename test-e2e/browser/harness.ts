import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import postgres from 'postgres';
import { type Browser, type BrowserContext, chromium, type Frame, type Page } from 'playwright-core';
import { schedulerCaughtUp } from '../debit-support';
import { CONSUMERS, type E2eSystem, ROOT, startSystem } from '../support';
import { CHROMIUM_ARGS } from './chromium';

// The whole system as processes on real PostgreSQL and RabbitMQ (like the other end-to-end tests), one
// headless Chromium for the whole file, a fresh browser context (cookies, storage) per customer, and the
// helpers a scenario reads like: a merchant, a link, a customer who signs in and pays.

export const ADMIN_TOKEN = 'browser-admin-token-0123456789abcdef';
/** A phone-sized viewport: the page is mobile first, and so are its screenshots. */
export const VIEWPORT = { width: 390, height: 844 };

export const CARDS = {
  approved: '4242424242424242',
  approvedMastercard: '5555555555554444',
  declined: '4000000000000002',
} as const;

type Json = Record<string, unknown>;

export interface Merchant {
  id: string;
  apiToken: string;
}

export interface CreatedLink {
  id: number;
  slug: string;
  publicPayUrl: string;
}

export interface LedgerEntry {
  processor: string;
  kind: 'charge' | 'rollback' | 'reversal';
  reference: string;
  amount: string;
  resultCode: string;
  last4: string;
}

/** Receives the browser after a payment, at the merchant's `redirectUrl`: every request line kept. */
export interface MerchantSite {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

export interface BrowserSystem {
  system: E2eSystem;
  browser: Browser;
  sql: postgres.Sql;
  merchantSite: MerchantSite;
  gatewayUrl: string;
  sandboxUrl: string;
  stop(): Promise<void>;
}

async function startMerchantSite(): Promise<MerchantSite> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><title>Shop</title><main><h1>Thank you</h1></main></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface BrowserSystemOptions {
  /** More environment for every service (e.g. `SIMULATED_TIME`). */
  env?: Record<string, string>;
}

/** Everything a browser test file needs, started once (about 20 s on a two-core machine). */
export async function startBrowserSystem(
  executablePath: string,
  options: BrowserSystemOptions = {},
): Promise<BrowserSystem> {
  const testDb: TestDatabase = await createTestDatabase('browser');
  const exchange = uniqueName('browser_events');
  const queuePrefix = `${uniqueName('browser')}.`;
  const merchantSite = await startMerchantSite();
  let sandboxUrl = '';
  const system = await startSystem((ports) => {
    sandboxUrl = ports.sandboxUrl;
    return {
      DATABASE_URL: testDb.url,
      AMQP_URL: testAmqpUrl(),
      EVENTS_EXCHANGE: exchange,
      QUEUE_PREFIX: queuePrefix,
      ADMIN_TOKEN,
      INTERNAL_SECRET: 'browser-internal-secret-0123456789',
      // The browser reaches the pay page and the processors' forms at these very URLs.
      PUBLIC_BASE_URL: ports.gatewayUrl,
      PROCESSOR_SANDBOX_PUBLIC_URL: ports.sandboxUrl,
      DEV_MAILBOX: 'true',
      LOG_LEVEL: 'warn',
      ...options.env,
    };
  });
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  const sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  return {
    system,
    browser,
    sql,
    merchantSite,
    gatewayUrl: system.gatewayUrl,
    sandboxUrl,
    async stop() {
      await browser.close().catch(() => {});
      await system.stop();
      await merchantSite.close();
      await sql.end();
      await testDb.drop();
      await deleteBrokerTopology(
        testAmqpUrl(),
        exchange,
        CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
      ).catch(() => {});
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The merchant's side, through the gateway's public API.

export class MerchantApi {
  constructor(private readonly env: BrowserSystem) {}

  /** Any merchant API operation with the merchant's token; a status of 300 or more throws. */
  async request(merchant: Merchant, method: string, urlPath: string, body?: unknown): Promise<Json> {
    return this.call(method, urlPath, { 'api-token': merchant.apiToken }, body);
  }

  private async call(method: string, urlPath: string, headers: Json, body?: unknown) {
    const response = await fetch(`${this.env.gatewayUrl}${urlPath}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers } as Record<
        string,
        string
      >,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as Json) : {};
    if (response.status >= 300) throw new Error(`${method} ${urlPath}: ${response.status} ${text}`);
    return parsed;
  }

  /** A new merchant, every option on that a scenario may need: noLogin, SaaS, a callback on the test site. */
  async merchant(overrides: Json = {}): Promise<Merchant> {
    const created = await this.call(
      'POST',
      '/admin/merchants',
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      {
        name: 'Gimnasio Central',
        instance: 'NATIONAL',
        saasContract: true,
        noLoginEnabled: true,
        callbackUrl: `${this.env.merchantSite.origin}/payments/callback`,
        ...overrides,
      },
    );
    return { id: created.id as string, apiToken: created.apiToken as string };
  }

  async link(merchant: Merchant, body: Json): Promise<CreatedLink> {
    return (await this.call(
      'POST',
      '/api/saleitems/add',
      { 'api-token': merchant.apiToken },
      body,
    )) as unknown as CreatedLink;
  }

  async signedInUserLink(merchant: Merchant, body: Json): Promise<CreatedLink & { userId: number }> {
    return (await this.call(
      'POST',
      '/api/ext-app/payrequests/signed-in-user',
      { 'api-token': merchant.apiToken },
      body,
    )) as unknown as CreatedLink & { userId: number };
  }

  async statusOf(merchant: Merchant, id: number): Promise<number> {
    const link = await this.call('GET', `/api/payrequests/${id}`, { 'api-token': merchant.apiToken });
    return link.statusId as number;
  }

  async cancel(merchant: Merchant, id: number): Promise<void> {
    await this.call('POST', `/api/payrequests/${id}/cancel`, { 'api-token': merchant.apiToken });
  }

  async subscriptionOf(merchant: Merchant, payRequestId: number) {
    const page = await this.call('GET', `/api/subscriptions?payRequestId=${payRequestId}`, {
      'api-token': merchant.apiToken,
    });
    const [found] = page.subscriptions as Array<{ id: number; status: string }>;
    if (!found) return undefined;
    return (await this.call('GET', `/api/subscriptions/${found.id}`, {
      'api-token': merchant.apiToken,
    })) as {
      id: number;
      status: string;
      installments: Array<{
        installmentId: number;
        number: number;
        paymentDate: string;
        amount: string;
        status: string;
      }>;
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// What the processors and our own event log say.

export async function ledger(env: BrowserSystem): Promise<LedgerEntry[]> {
  const response = await fetch(`${env.sandboxUrl}/__sandbox/ledger`);
  return ((await response.json()) as { entries: LedgerEntry[] }).entries;
}

/** Charges of the sandbox ledger for one amount (each scenario pays an amount of its own). */
export async function chargesOf(env: BrowserSystem, amount: string): Promise<LedgerEntry[]> {
  const wanted = Number(amount);
  return (await ledger(env)).filter(
    (entry) => entry.kind === 'charge' && Number(entry.amount) === wanted && entry.resultCode === '00',
  );
}

/** The merchant's PAYMENT_SUCCESS events (its webhook log) of one amount. */
export async function paymentSuccesses(
  env: BrowserSystem,
  merchant: Merchant,
  amount: number,
): Promise<Array<{ data: { txId: string; amount: number } }>> {
  const rows = await env.sql<Array<{ body: string }>>`
    select body from gateway.webhook_events where merchant_id = ${merchant.id} and kind = 'PAYMENT_SUCCESS'`;
  return rows
    .map((row) => JSON.parse(row.body) as { data: { txId: string; amount: number } })
    .filter((event) => Number(event.data.amount) === amount);
}

/** An operator's as-of billing run for one merchant, once billing-scheduler has caught up, until it completes. */
export async function billingRun(env: BrowserSystem, merchant: Merchant, asOf: string): Promise<Json> {
  await schedulerCaughtUp(env.sql);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const started = await fetch(`${env.gatewayUrl}/admin/billing/runs`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ asOf, merchantId: merchant.id }),
  });
  if (started.status !== 202) throw new Error(`billing run: ${started.status} ${await started.text()}`);
  const { id } = (await started.json()) as { id: string };
  return waitFor(
    async () => {
      const response = await fetch(`${env.gatewayUrl}/admin/billing/runs/${id}`, { headers: admin });
      const run = (await response.json()) as Json;
      return run.status === 'completed' ? run : undefined;
    },
    60_000,
    200,
  );
}

/** The `link.paid` events links wrote for a link (its outbox, published or not). */
export async function linkPaidEvents(env: BrowserSystem, linkId: number): Promise<Json[]> {
  const rows = await env.sql<Array<{ body: string }>>`
    select body from links.outbox where type = 'link.paid' order by created_at`;
  return rows
    .map((row) => JSON.parse(row.body) as { data: Json })
    .filter((event) => event.data.linkId === linkId)
    .map((event) => event.data);
}

export async function waitForStatus(
  api: MerchantApi,
  merchant: Merchant,
  id: number,
  statusId: number,
  timeoutMs = 20_000,
): Promise<void> {
  await waitFor(async () => (await api.statusOf(merchant, id)) === statusId, timeoutMs, 200);
}

/** The newest one-time code the development mailbox holds for `email`. */
export async function loginCodeFor(env: BrowserSystem, email: string, after: Date): Promise<string> {
  return waitFor(
    async () => {
      const response = await fetch(`${env.gatewayUrl}/dev/mailbox`);
      if (response.status !== 200) return undefined;
      const messages = (await response.json()) as Array<{ to: string; text: string; sentAt: string }>;
      const mine = messages.find(
        (message) => message.to.toLowerCase() === email.toLowerCase() && new Date(message.sentAt) >= after,
      );
      return mine ? /\b(\d{6})\b/.exec(mine.text)?.[1] : undefined;
    },
    15_000,
    200,
  );
}

// ---------------------------------------------------------------------------------------------------
// The customer's side, in the browser.

export async function newCustomer(env: BrowserSystem, locale = 'es-PY'): Promise<BrowserContext> {
  return env.browser.newContext({ viewport: VIEWPORT, locale });
}

export const byTestId = (page: Page | Frame, id: string) => page.locator(`[data-testid="${id}"]`);

export interface CardDetails {
  number: string;
  expiry?: string;
  cvv?: string;
  holder?: string;
}

/** Fills and submits the processor's hosted card form, in an iframe or on the processor's own page. */
export async function fillCardForm(form: Page | Frame, card: CardDetails): Promise<void> {
  await byTestId(form, 'card-number').waitFor({ timeout: 15_000 });
  await byTestId(form, 'card-number').fill(card.number);
  await byTestId(form, 'card-expiry').fill(card.expiry ?? '12/30');
  await byTestId(form, 'card-cvv').fill(card.cvv ?? '123');
  await byTestId(form, 'card-holder').fill(card.holder ?? 'Ana Gomez');
  await byTestId(form, 'card-submit').click();
}

/** The processor's form inside our page (PROCESSOR_A): the frame served from the sandbox's origin. */
export async function processorFrame(env: BrowserSystem, page: Page): Promise<Frame> {
  const origin = new URL(env.sandboxUrl).origin;
  return waitFor(
    () => page.frames().find((frame) => frame !== page.mainFrame() && frame.url().startsWith(origin)),
    15_000,
    100,
  );
}

/** The page's `pay-status` hook: `pending`, `rejected`, `paid`, `expired` or `cancelled`. */
export async function payStatus(page: Page): Promise<string | null> {
  const status = byTestId(page, 'pay-status');
  await status.waitFor({ timeout: 15_000 });
  return status.getAttribute('data-status');
}

// ---------------------------------------------------------------------------------------------------
// Accessibility and screenshots.

const AXE_SOURCE = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core in the page itself (evaluated through the DevTools protocol, so the page's CSP stays on). */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  )) as AxeViolation[];
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`)
    .join('\n');
}

/**
 * A full-page screenshot of a main step. Into `docs/screenshots/` when `UPDATE_SCREENSHOTS=1` (the README
 * shows those), else into a scratch folder, so that a test run leaves the work tree as it was.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const folder =
    process.env.UPDATE_SCREENSHOTS === '1'
      ? path.join(ROOT, 'docs', 'screenshots')
      : path.join(ROOT, 'node_modules', '.cache', 'browser-screenshots');
  const file = path.join(folder, `${name}.png`);
  mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
