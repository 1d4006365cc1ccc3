import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { payOnPayPage, waitFor } from '@payrail/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { schedulerCaughtUp } from '../debit-support';
import { encodeTestSession, TEST_SESSION_COOKIE, type TestSession } from './console-sign-in';
import {
  ADMIN_TOKEN,
  type BrowserSystem,
  byTestId,
  CARDS,
  describeViolations,
  fillCardForm,
  loginCodeFor,
  type Merchant,
  MerchantApi,
  newCustomer,
  processorFrame,
  screenshot,
  seriousAccessibilityViolations,
  startBrowserSystem,
} from './harness';

// The merchant console's pages (issue 28, phase 1) in Debian's Chromium: the whole system as processes,
// the gateway with the test sign-in (`console-sign-in.ts`: who is signed in comes from a cookie the test
// sets; the pages act through the real public API with the merchant's real token) until the console's own
// sign-in lands. A merchant's owner creates a link in the console and a customer pays it in a second
// browser context; a subscription's installment is declined and retried by as-of billing runs and the
// console shows both attempts; an installment is cancelled; a webhook endpoint gets a test event that
// fails, and a retry from the delivery log delivers it. Then every page, in both languages, at 1280 and
// 390 px wide, with axe-core: no serious or critical violation.

const chromium = inject('chromium');

const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;
let owner: BrowserContext;

function ownerSession(language: 'es' | 'en' = 'es', role: 'owner' | 'viewer' = 'owner'): TestSession {
  return {
    user: {
      kind: 'merchant-user',
      userId: `user-${role}`,
      merchantId: merchant.id,
      email: role === 'owner' ? 'laura@gimnasio.example' : 'pablo@gimnasio.example',
      name: role === 'owner' ? 'Laura Benítez' : 'Pablo Ruiz',
      role,
      language,
    },
    token: merchant.apiToken,
  };
}

const operatorSession = (language: 'es' | 'en' = 'es'): TestSession => ({
  user: {
    kind: 'operator',
    userId: 'operator-1',
    email: 'ops@payrail.example',
    name: 'Operaciones',
    language,
  },
  token: ADMIN_TOKEN,
});

/** A browser context signed in as `session` (the test sign-in's cookie). */
async function signedIn(session: TestSession, viewport = WIDE): Promise<BrowserContext> {
  const context = await env.browser.newContext({ viewport, locale: 'es-PY' });
  await context.addCookies([
    { name: TEST_SESSION_COOKIE, value: encodeTestSession(session), url: env.gatewayUrl, httpOnly: true },
  ]);
  return context;
}

async function expectAccessible(page: Page, step: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, `${step}:\n${describeViolations(violations)}`).toEqual([]);
}

/** Opens a console path and expects the page (200) in the console's layout. */
async function open(page: Page, pathname: string, status = 200): Promise<void> {
  const response = await page.goto(`${env.gatewayUrl}${pathname}`);
  expect(response?.status(), `${pathname}: ${await response?.text().catch(() => '')}`).toBe(status);
}

/** The sandbox answers the next charges of a …4242 card on PROCESSOR_A with these codes (its test API). */
async function declineNextCharges(codes: string[]): Promise<void> {
  const response = await fetch(`${env.sandboxUrl}/__sandbox/outcomes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ last4: '4242', codes, processor: 'A' }),
  });
  expect(response.status, await response.text()).toBeLessThan(300);
}

/** An operator's as-of billing run for the merchant, until every installment it claimed is settled. */
async function billingRun(asOf: string): Promise<Record<string, unknown>> {
  await schedulerCaughtUp(env.sql);
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const started = await fetch(`${env.gatewayUrl}/admin/billing/runs`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ asOf, merchantId: merchant.id }),
  });
  expect(started.status).toBe(202);
  const { id } = (await started.json()) as { id: string };
  return waitFor(
    async () => {
      const run = (await (
        await fetch(`${env.gatewayUrl}/admin/billing/runs/${id}`, { headers: admin })
      ).json()) as Record<string, unknown>;
      return run.status === 'completed' ? run : undefined;
    },
    60_000,
    200,
  );
}

/** A STATIC subscription paid on the pay page (by document number, card …4242 on PROCESSOR_A). */
async function paidSubscription(label: string, amount: number) {
  const documentNumber = String(1_000_000 + Math.floor(Math.random() * 8_000_000));
  const link = await api.link(merchant, {
    label,
    amount,
    handleValue: 'ana@example.com',
    handleLabel: 'Ana Gómez',
    customIdentifier: `SOCIO-${documentNumber}`,
    singlePayment: false,
    creditAndDebitCard: true,
    recurrentPayment: true,
    installmentAmount: amount,
    totalPeriods: 4,
    dayOfMonth: 10,
    monthForSecondInstallment: 1,
    noLoginRequired: true,
    documentNumber,
  });
  const paid = await payOnPayPage({
    gatewayUrl: env.gatewayUrl,
    sandboxUrl: env.sandboxUrl,
    slug: link.slug,
    documentNumber,
    cardNumber: CARDS.approved,
  });
  expect(paid.location).toBe(`/pay/${link.slug}/receipt`);
  const subscription = await waitFor(
    async () => {
      const found = await api.subscriptionOf(merchant, link.id);
      return found?.status === 'active' ? found : undefined;
    },
    30_000,
    200,
  );
  return { link, subscription };
}

interface Receiver {
  url: string;
  status: number;
  received: string[];
  close(): Promise<void>;
}

/** A webhook receiver on this machine answering `status` (changed by the test). */
async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', status: 500, received: [], close: async () => {} };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      receiver.received.push(body);
      response.writeHead(receiver.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ received: receiver.status < 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/payrail`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

describe.skipIf(!chromium.available)('the merchant console in Chromium (issue 28, phase 1)', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path, {
      gatewayEntry: path.join(__dirname, 'console-gateway.main.ts'),
      env: {
        SIMULATED_TIME: 'true',
        BILLING_RUN_INTERVAL_MS: '0',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1h',
      },
    });
    api = new MerchantApi(env);
    merchant = await api.merchant();
    owner = await signedIn(ownerSession());
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await env?.stop();
  });

  it('a page without the sign-in is refused, and every form post needs the CSRF token', async () => {
    const anonymous = await fetch(`${env.gatewayUrl}/console/links`, { redirect: 'manual' });
    expect(anonymous.status).toBe(401);
    const cookie = `${TEST_SESSION_COOKIE}=${encodeTestSession(ownerSession())}`;
    const forged = await fetch(`${env.gatewayUrl}/console/links`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'label=x&amount=1000&handleValue=a%40b.c&handleLabel=A&singlePayment=true&creditAndDebitCard=true',
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    const page = await fetch(`${env.gatewayUrl}/console/links`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    // No inline script or style: the CSP allows the console's own files only.
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle="/);
  });

  it('a link created in the console, paid by a customer in another browser, is paid in the list and on home', async () => {
    const page = await owner.newPage();
    await open(page, '/console');
    await byTestId(page, 'nav-links').click();
    await byTestId(page, 'link-new').click();
    const form = byTestId(page, 'link-form');
    await form.locator('[name=label]').fill('Clase de spinning');
    await form.locator('[name=amount]').fill('85000');
    await form.locator('[name=handleLabel]').fill('Marta Ríos');
    await form.locator('[name=handleValue]').fill('marta@example.com');
    await form.locator('[name=customIdentifier]').fill('SPIN-0042');
    await byTestId(page, 'link-submit').click();
    const url = (await byTestId(page, 'link-url').textContent())?.trim() ?? '';
    expect(url).toMatch(/\/pay\/[\w-]+$/);
    const id = /\/console\/links\/(\d+)/.exec(page.url())?.[1];
    expect(id).toBeTruthy();
    expect(await byTestId(page, 'link-status').getAttribute('data-status')).toBe('pending');
    await byTestId(page, 'link-qr').waitFor();
    await screenshot(page, 'console/link-created');

    // The customer, in a browser of their own.
    const customer = await newCustomer(env);
    const pay = await customer.newPage();
    await pay.goto(url);
    await byTestId(pay, 'pay-sign-in').click();
    const before = new Date(Date.now() - 2000);
    await byTestId(pay, 'login-email').fill('marta@example.com');
    await byTestId(pay, 'login-send').click();
    await byTestId(pay, 'login-code').fill(await loginCodeFor(env, 'marta@example.com', before));
    await byTestId(pay, 'login-verify').click();
    await byTestId(pay, 'pay-processor-PROCESSOR_A').check();
    await byTestId(pay, 'pay-submit').click();
    await fillCardForm(await processorFrame(env, pay), { number: CARDS.approved });
    await pay.locator('[data-testid="pay-status"][data-status="paid"]').waitFor({ timeout: 40_000 });
    await customer.close();

    // Back in the console: paid in the list (filtered by status, a bookmarkable URL) and on home.
    await waitFor(async () => (await api.statusOf(merchant, Number(id))) === 200, 20_000, 200);
    await open(page, '/console/links?status=paid');
    const row = page.locator(`[data-testid="link-row"][data-id="${id}"]`);
    await row.waitFor();
    expect(await row.locator('[data-testid="link-status"]').getAttribute('data-status')).toBe('paid');
    await open(page, `/console/links?q=${encodeURIComponent('marta@')}`);
    expect(await page.locator('[data-testid="link-row"]').count()).toBe(1);
    await byTestId(page, 'nav-home').click();
    expect((await byTestId(page, 'home-links-paid').textContent())?.replace(/\D/g, '')).toBe('1');
    await page.close();
  });

  it('a subscription’s detail shows a declined installment and its retry; one installment is cancelled', async () => {
    const { link, subscription } = await paidSubscription('Membresía mensual', 120000);
    const second = subscription.installments.find((installment) => installment.number === 2);
    const third = subscription.installments.find((installment) => installment.number === 3);
    if (!second || !third) throw new Error('schedule');
    // Installment 2 is declined on its day (51, insufficient funds: retried a day later), then approved.
    await declineNextCharges(['51']);
    expect(await billingRun(second.paymentDate)).toMatchObject({ due: 1, failed: 1 });
    const retryOn = await waitFor(
      async () => {
        const [row] = await env.sql<Array<{ next: string | null }>>`
          select next_attempt_on::text as next from subscriptions.installments where id = ${second.installmentId}`;
        return row?.next ?? undefined;
      },
      20_000,
      200,
    );
    expect(await billingRun(retryOn)).toMatchObject({ due: 1, succeeded: 1 });

    const page = await owner.newPage();
    await open(page, '/console/subscriptions');
    await page.locator(`[data-testid="subscription-row"][data-id="${subscription.id}"] a`).first().click();
    const row = page.locator(`[data-testid="installment-row"][data-id="${second.installmentId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('paid');
    expect(await row.locator('[data-testid="installment-attempts"]').getAttribute('data-count')).toBe('2');
    await screenshot(page, 'console/subscription-retried');
    await row.locator('[data-testid="installment-open"]').click();
    const attempts = page.locator('[data-testid="attempt-row"]');
    expect(await attempts.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual([
      'failed',
      'succeeded',
    ]);
    expect(await attempts.first().textContent()).toContain('51');
    await screenshot(page, 'console/installment-attempts');

    // Cancel installment 3 from the subscription's schedule.
    await open(page, `/console/subscriptions/${subscription.id}`);
    await page
      .locator(
        `[data-testid="installment-row"][data-id="${third.installmentId}"] [data-testid="installment-cancel"]`,
      )
      .click();
    await byTestId(page, 'done-notice').waitFor();
    expect(
      await page
        .locator(`[data-testid="installment-row"][data-id="${third.installmentId}"]`)
        .getAttribute('data-status'),
    ).toBe('cancelled');
    const after = await api.subscriptionOf(merchant, link.id);
    expect(after?.installments.find((installment) => installment.number === 3)?.status).toBe('cancelled');
    await page.close();
  });

  it('a webhook endpoint made in the console: a test event fails, a retry from the delivery log delivers it', async () => {
    const page = await owner.newPage();
    await open(page, '/console');
    await byTestId(page, 'nav-developers').click();
    await byTestId(page, 'webhook-new').click();
    await page.locator('[data-testid="webhook-form"] [name=url]').fill(receiver.url);
    await page.locator('[data-testid="webhook-form"] [name=description]').fill('Contabilidad');
    await byTestId(page, 'webhook-submit').click();
    expect((await byTestId(page, 'webhook-secret').textContent())?.trim()).toMatch(/^whsec_/);
    receiver.status = 500;
    await byTestId(page, 'webhook-test').click();
    await page.waitForURL(/\/console\/developers\/deliveries/);
    // The first attempt fails (500): the delivery waits for its retry, an hour later.
    const failedRow = await waitFor(
      async () => {
        await page.reload();
        const row = page.locator('[data-testid="delivery-row"][data-event="WEBHOOK_TEST"]').first();
        return (await row.count()) > 0 && (await row.textContent())?.includes('500') ? row : undefined;
      },
      20_000,
      300,
    );
    expect(await failedRow.getAttribute('data-status')).toBe('pending');
    await screenshot(page, 'console/delivery-failed');
    receiver.status = 200;
    await failedRow.locator('[data-testid="delivery-retry"]').click();
    await byTestId(page, 'done-notice').waitFor();
    await waitFor(
      async () => {
        await page.reload();
        return (await page.locator('[data-testid="delivery-row"][data-status="delivered"]').count()) > 0;
      },
      20_000,
      300,
    );
    expect(receiver.received.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(receiver.received.at(-1) ?? '{}').event).toBe('WEBHOOK_TEST');
    await page.close();
  });

  it('a viewer is offered no write (the API refuses a crafted one: the sign-in’s role × action matrix)', async () => {
    const viewer = await signedIn(ownerSession('es', 'viewer'));
    const page = await viewer.newPage();
    await open(page, '/console/links');
    expect(await byTestId(page, 'link-new').count()).toBe(0);
    await open(page, '/console/developers');
    expect(await byTestId(page, 'webhook-new').count()).toBe(0);
    await viewer.close();
  });

  it('a read-only token made in the console is refused a write by the API (403)', async (context) => {
    const tokens = await fetch(`${env.gatewayUrl}/api/api-tokens`, {
      headers: { 'api-token': merchant.apiToken },
    });
    // The scoped tokens are the console sign-in's (its own branch); until they land there is nothing to test.
    if (tokens.status === 404) context.skip();
    const page = await owner.newPage();
    await open(page, '/console/developers/tokens');
    await page.locator('[data-testid="token-form"] [name=name]').fill('Informes');
    await byTestId(page, 'token-scope').selectOption('read-only');
    await byTestId(page, 'token-new').click();
    const token = (await byTestId(page, 'token-value').textContent())?.trim() ?? '';
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    const read = await fetch(`${env.gatewayUrl}/api/payrequests`, { headers: { 'api-token': token } });
    expect(read.status).toBe(200);
    const write = await fetch(`${env.gatewayUrl}/api/saleitems/add`, {
      method: 'POST',
      headers: { 'api-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({
        label: 'x',
        amount: 1000,
        handleValue: 'a@b.c',
        handleLabel: 'A',
        singlePayment: true,
        creditAndDebitCard: true,
      }),
    });
    expect(write.status).toBe(403);
    await page.close();
  });

  it('every page in Spanish and English, at 1280 and 390 px: no serious or critical accessibility violation', async () => {
    const links = (await (
      await fetch(`${env.gatewayUrl}/api/payrequests?limit=100`, {
        headers: { 'api-token': merchant.apiToken },
      })
    ).json()) as { payRequests: Array<{ id: number; recurrentPayment: boolean }> };
    const linkId = links.payRequests.find((link) => !link.recurrentPayment)?.id;
    const subscriptions = (await (
      await fetch(`${env.gatewayUrl}/api/subscriptions`, { headers: { 'api-token': merchant.apiToken } })
    ).json()) as { subscriptions: Array<{ id: number }> };
    const subscriptionId = subscriptions.subscriptions[0]?.id;
    const subscription = (await (
      await fetch(`${env.gatewayUrl}/api/subscriptions/${subscriptionId}`, {
        headers: { 'api-token': merchant.apiToken },
      })
    ).json()) as { installments: Array<{ installmentId: number; number: number }> };
    const installmentId = subscription.installments.find(
      (installment) => installment.number === 2,
    )?.installmentId;
    const endpoints = (await (
      await fetch(`${env.gatewayUrl}/api/webhook-endpoints`, { headers: { 'api-token': merchant.apiToken } })
    ).json()) as { endpoints: Array<{ id: string }> };
    const customers = (await (
      await fetch(`${env.gatewayUrl}/api/customers`, { headers: { 'api-token': merchant.apiToken } })
    ).json()) as { customers?: Array<{ id: number }> };
    const runs = (await (
      await fetch(`${env.gatewayUrl}/admin/billing/runs?merchantId=${merchant.id}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as { runs: Array<{ id: string }> };
    // The pages over the sign-in's own API (tokens, users, audit log) answer what the API answers: until it
    // lands on this branch, 404 (the page says so), and the page is still checked.
    const statusOf = async (apiPath: string) =>
      (await fetch(`${env.gatewayUrl}${apiPath}`, { headers: { 'api-token': merchant.apiToken } })).status ===
      404
        ? 404
        : 200;
    const expected: Record<string, number> = {
      'developers-tokens': await statusOf('/api/api-tokens'),
      'settings-users': await statusOf('/api/users'),
      'settings-audit': await statusOf('/api/audit-log'),
    };
    const merchantPages: Array<[string, string]> = [
      ['home', '/console'],
      ['links', '/console/links'],
      ['link-new', '/console/links/new'],
      ['link', `/console/links/${linkId}`],
      ['subscriptions', '/console/subscriptions'],
      ['subscription', `/console/subscriptions/${subscriptionId}`],
      ['installment', `/console/subscriptions/${subscriptionId}/installments/${installmentId}`],
      ['customers', '/console/customers'],
      ...(customers.customers?.[0]
        ? ([['customer', `/console/customers/${customers.customers[0].id}`]] as Array<[string, string]>)
        : []),
      ['developers-webhooks', '/console/developers'],
      ['webhook-new', '/console/developers/webhooks/new'],
      ['webhook', `/console/developers/webhooks/${endpoints.endpoints[0]?.id}`],
      ['developers-deliveries', '/console/developers/deliveries'],
      ['developers-events', '/console/developers/events'],
      ['developers-tokens', '/console/developers/tokens'],
      ['settings', '/console/settings'],
      ['settings-users', '/console/settings/users'],
      ['settings-audit', '/console/settings/audit'],
      ['settings-account', '/console/settings/account'],
    ];
    const operatorPages: Array<[string, string]> = [
      ['operator-merchants', '/console/operator'],
      ['operator-merchant-new', '/console/operator/merchants/new'],
      ['operator-merchant', `/console/operator/merchants/${merchant.id}`],
      ['operator-billing-runs', '/console/operator/billing-runs'],
      ['operator-billing-run', `/console/operator/billing-runs/${runs.runs[0]?.id}`],
    ];
    for (const language of ['es', 'en'] as const) {
      for (const viewport of [WIDE, PHONE]) {
        for (const [session, pages] of [
          [ownerSession(language), merchantPages],
          [operatorSession(language), operatorPages],
        ] as const) {
          const context = await signedIn(session, viewport);
          const page = await context.newPage();
          for (const [name, pathname] of pages) {
            await open(page, pathname, expected[name] ?? 200);
            expect(await page.getAttribute('html', 'lang')).toBe(language);
            await expectAccessible(page, `${name} (${language}, ${viewport.width} px)`);
            // Nothing wider than the screen: a phone scrolls down, never sideways.
            const overflow = (await page.evaluate(
              'document.documentElement.scrollWidth - window.innerWidth',
            )) as number;
            expect(
              overflow,
              `${name} (${language}, ${viewport.width} px) is wider than the screen`,
            ).toBeLessThanOrEqual(0);
            await screenshot(page, `console/${name}-${language}-${viewport.width}`);
          }
          await context.close();
        }
      }
    }
  });

  it('the language switch changes the language of every page for this user', async () => {
    const context = await signedIn(ownerSession('es'));
    const page = await context.newPage();
    await open(page, '/console/links');
    expect(await byTestId(page, 'nav-links').textContent()).toBe('Enlaces');
    await byTestId(page, 'lang-switch').click();
    await page.waitForURL(/\/console\/links$/);
    expect(await byTestId(page, 'nav-links').textContent()).toBe('Links');
    await open(page, '/console/subscriptions');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await context.close();
  });
});
