import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { payOnPayPage, waitFor } from '@payrail/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { schedulerCaughtUp } from '../debit-support';
import {
  acceptAndSignIn,
  authenticatorCode,
  cookieHeaderOf,
  mailedLink,
  nextTotpStep,
  PASSWORD,
  SESSION_COOKIE,
} from './console-sign-in';
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

// The merchant console (issue 28) in Debian's Chromium, on the whole system as processes and the console's
// own sign-in: the operator invites the merchant's first owner, who chooses a password, sets up TOTP and
// signs in (one browser context, signed in, for the tests after). The owner creates a link in the console
// and a customer pays it in a second browser context; a subscription's installment is declined and retried
// by as-of billing runs and the console shows both attempts; an installment is cancelled; a webhook
// endpoint gets a test event that fails, and a retry from the delivery log delivers it; a read-only token
// made in the console is refused a write; a viewer the owner invited is offered no write and refused a
// crafted one, and the audit log shows who did what. Then every page, in both languages, at 1280 and
// 390 px wide, with axe-core: no serious or critical violation (home with its money from the payments report).
// The payments pages, and home's figures checked against payments made in Chromium, are in
// console-payments.browser.test.ts.

const chromium = inject('chromium');

const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const OWNER = 'laura@gimnasio.example';
const VIEWER = 'pablo@gimnasio.example';
const OPERATOR = 'ops@payrail.example';

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;
/** The owner, signed in by the first test (TOTP on). */
let owner: BrowserContext;

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

/** The signed-in session's id in a browser context (its cookie). */
async function sessionIdOf(context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies(`${env.gatewayUrl}/console/`)).find(
    (cookie) => cookie.name === SESSION_COOKIE,
  )?.value;
}

/** How many links the merchant has (through the API with its own token). */
async function linkCount(): Promise<number> {
  const response = await fetch(`${env.gatewayUrl}/api/payrequests/summary`, {
    headers: { 'api-token': merchant.apiToken },
  });
  const { counts } = (await response.json()) as { counts: Record<string, number> };
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

/** The user's language, chosen with the layout's switch (stored for the user, every page in it after). */
async function chooseLanguage(page: Page, home: string, language: 'es' | 'en'): Promise<void> {
  await open(page, home);
  if ((await page.getAttribute('html', 'lang')) === language) return;
  const before =
    (await byTestId(page, 'nav-links').or(byTestId(page, 'nav-merchants')).first().textContent()) ?? '';
  await byTestId(page, 'lang-switch').click();
  await expect.poll(() => page.getAttribute('html', 'lang')).toBe(language);
  expect(
    await byTestId(page, 'nav-links').or(byTestId(page, 'nav-merchants')).first().textContent(),
  ).not.toBe(before);
}

/** The page, accessible, shot in both languages at both widths (`docs/screenshots/console/<name>-<lang>-<width>`). */
async function shootEveryWay(page: Page, name: string): Promise<void> {
  const url = new URL(page.url());
  for (const lang of ['es', 'en'] as const) {
    url.searchParams.set('lang', lang);
    await page.goto(url.toString());
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang);
    await expectAccessible(page, `${name} (${lang})`);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await screenshot(page, `console/${name}-${lang}-${width}`);
    }
  }
  await page.setViewportSize(WIDE);
  url.searchParams.set('lang', 'es');
  await page.goto(url.toString());
}

describe.skipIf(!chromium.available)('the merchant console in Chromium (issue 28)', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path, {
      env: {
        SIMULATED_TIME: 'true',
        BILLING_RUN_INTERVAL_MS: '0',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1h',
      },
    });
    api = new MerchantApi(env);
    merchant = await api.merchant();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await env?.stop();
  });

  it('invitation → password → TOTP → sign-in (the session id changes at login)', async () => {
    const invited = await fetch(`${env.gatewayUrl}/admin/merchants/${merchant.id}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: OWNER, name: 'Laura Benítez', role: 'owner' }),
    });
    expect(invited.status).toBe(201);
    const invitation = await mailedLink(env, OWNER);

    owner = await env.browser.newContext({ viewport: WIDE, locale: 'es-PY' });
    const page = await owner.newPage();
    await page.goto(invitation);
    await byTestId(page, 'invite-password').waitFor();
    await shootEveryWay(page, 'invitation');
    // A common password is refused on the page itself.
    await byTestId(page, 'invite-password').fill('Qwerty123456');
    await page.locator('#confirmation').fill('Qwerty123456');
    await byTestId(page, 'invite-submit').click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('más comunes');
    await byTestId(page, 'invite-password').fill(PASSWORD);
    await page.locator('#confirmation').fill(PASSWORD);
    await byTestId(page, 'invite-submit').click();

    const secretField = byTestId(page, 'totp-secret');
    await secretField.waitFor();
    expect(await page.locator('svg.qr').count()).toBe(1);
    await shootEveryWay(page, 'enrol');
    const secret = ((await secretField.textContent()) ?? '').trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const enrolledAt = Date.now();
    await byTestId(page, 'totp-code').fill(authenticatorCode(secret, enrolledAt));
    await byTestId(page, 'totp-submit').click();
    await byTestId(page, 'recovery-codes').waitFor();
    expect(await byTestId(page, 'recovery-codes').locator('li').count()).toBe(10);
    await expectAccessible(page, 'recovery codes');

    await page.goto(`${env.gatewayUrl}/console/login`);
    await byTestId(page, 'login-email').waitFor();
    await shootEveryWay(page, 'login');
    await byTestId(page, 'login-email').fill(OWNER);
    await byTestId(page, 'login-password').fill(PASSWORD);
    await byTestId(page, 'login-submit').click();
    const totp = byTestId(page, 'login-totp');
    await totp.waitFor();
    await shootEveryWay(page, 'second-factor');
    const halfWay = await sessionIdOf(owner);
    expect(halfWay).toBeTruthy();
    // The enrolment's code was used once: it is refused again, and the authenticator's next one is taken.
    await totp.fill(authenticatorCode(secret, enrolledAt));
    await byTestId(page, 'login-submit').click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    await nextTotpStep(enrolledAt);
    await byTestId(page, 'login-totp').fill(authenticatorCode(secret));
    await byTestId(page, 'login-submit').click();
    await page.waitForURL(`${env.gatewayUrl}/console`);

    const session = (await owner.cookies(`${env.gatewayUrl}/console/`)).find(
      (cookie) => cookie.name === SESSION_COOKIE,
    );
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    expect(session?.value).not.toBe(halfWay);
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await byTestId(page, 'nav-links').waitFor();
    await page.close();
  });

  it('without a session a page sends the browser to sign in; a form posted without its CSRF token is refused', async () => {
    const anonymous = await fetch(`${env.gatewayUrl}/console/links`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/console/login?next=%2Fconsole%2Flinks');
    const context = await env.browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${env.gatewayUrl}/console/subscriptions`);
    await page.waitForURL(/\/console\/login\?next=%2Fconsole%2Fsubscriptions$/);
    await page.goto(`${env.gatewayUrl}/console/operator`);
    await page.waitForURL(/\/console\/login\?next=%2Fconsole%2Foperator$/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Ingreso del operador');
    await context.close();

    // The owner's own cookies, but a form without the page's token: refused before any page runs.
    const cookie = await cookieHeaderOf(owner, env.gatewayUrl);
    const before = await linkCount();
    const forged = await fetch(`${env.gatewayUrl}/console/links`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'label=x&amount=1000&handleValue=a%40b.c&handleLabel=A&singlePayment=true&creditAndDebitCard=true',
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(await linkCount()).toBe(before);
    const signedIn = await fetch(`${env.gatewayUrl}/console/links`, { headers: { cookie } });
    expect(signedIn.status).toBe(200);
    const html = await signedIn.text();
    // No inline script or style: the CSP allows the console's own files only.
    expect(signedIn.headers.get('content-security-policy')).toContain("script-src 'self'");
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
    // Paid on the link's own page too.
    await row.locator('a').first().click();
    await page.waitForURL(new RegExp(`/console/links/${id}$`));
    expect(await byTestId(page, 'link-status').getAttribute('data-status')).toBe('paid');
    await screenshot(page, 'console/link-paid');
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

  it('a read-only token made in the console reads, and the API refuses it a write (403); revoked, it is 401', async () => {
    const page = await owner.newPage();
    await open(page, '/console');
    await byTestId(page, 'nav-developers').click();
    await page.locator('a[href="/console/developers/tokens"]').first().click();
    await page.locator('[data-testid="token-form"] [name=name]').fill('Informes');
    await byTestId(page, 'token-scope').selectOption('read-only');
    await byTestId(page, 'token-new').click();
    const token = (await byTestId(page, 'token-value').textContent())?.trim() ?? '';
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    await screenshot(page, 'console/token-created');
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
    expect(await write.json()).toMatchObject({ code: 'FORBIDDEN' });
    // Listed without its value; revoked from the list, it no longer reads.
    await open(page, '/console/developers/tokens');
    expect(await page.content()).not.toContain(token);
    const row = page.locator('[data-testid="token-row"]', { hasText: 'Informes' });
    await row.locator('[data-testid="token-revoke"]').click();
    await byTestId(page, 'done-notice').waitFor();
    const revoked = await fetch(`${env.gatewayUrl}/api/payrequests`, { headers: { 'api-token': token } });
    expect(revoked.status).toBe(401);
    await page.close();
  });

  it('the owner invites a viewer in the console; the viewer is offered no write, a crafted one is refused, and the audit log says who did what', async () => {
    const page = await owner.newPage();
    await open(page, '/console/settings/users');
    const invite = byTestId(page, 'user-invite-form');
    await invite.locator('[name=email]').fill(VIEWER);
    await invite.locator('[name=name]').fill('Pablo Ruiz');
    await invite.locator('[data-testid="user-role"]').selectOption('viewer');
    await byTestId(page, 'user-invite').click();
    await byTestId(page, 'done-notice').waitFor();
    const invitedRow = page.locator('[data-testid="user-row"][data-role="viewer"]');
    expect(await invitedRow.textContent()).toContain(VIEWER);

    const viewer = await acceptAndSignIn(env, VIEWER, { viewport: WIDE });
    const mine = await viewer.newPage();
    await open(mine, '/console/links');
    expect(await byTestId(mine, 'link-new').count()).toBe(0);
    await open(mine, '/console/developers');
    expect(await byTestId(mine, 'webhook-new').count()).toBe(0);
    await open(mine, '/console/developers/tokens');
    expect(await byTestId(mine, 'token-new').count()).toBe(0);
    // The viewer crafts the owner's form with a valid CSRF token of their own page: the API refuses it.
    await open(mine, '/console/links');
    const csrf = await mine.locator('input[name=csrf]').first().getAttribute('value');
    const before = await linkCount();
    const crafted = await fetch(`${env.gatewayUrl}/console/links`, {
      method: 'POST',
      headers: {
        cookie: await cookieHeaderOf(viewer, env.gatewayUrl),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        csrf: csrf ?? '',
        label: 'Hecho por el visor',
        amount: '1000',
        handleValue: 'x@example.com',
        handleLabel: 'X',
        singlePayment: 'true',
        creditAndDebitCard: 'true',
      }).toString(),
      redirect: 'manual',
    });
    expect(crafted.status).toBe(403);
    expect(await linkCount()).toBe(before);
    await viewer.close();

    // The audit log, as the owner: the viewer's refused write and the owner's own writes, each with who.
    await open(page, '/console/settings/audit?operationId=createPaymentLink');
    const rows = page.locator('[data-testid="audit-row"]');
    await rows.first().waitFor();
    const seen = await rows.evaluateAll((all) =>
      all.map((row) => `${row.getAttribute('data-actor')} ${row.getAttribute('data-status')}`),
    );
    expect(seen).toContain(`${VIEWER} 403`);
    expect(seen.filter((row) => row.startsWith(`${OWNER} 2`))).toHaveLength(1);
    await open(page, '/console/settings/audit');
    const operations = await rows.evaluateAll((all) =>
      all.map((row) => `${row.getAttribute('data-operation')} ${row.getAttribute('data-actor')}`),
    );
    for (const write of [
      'inviteUser',
      'createApiToken',
      'deleteApiToken',
      'createWebhookEndpoint',
      'testWebhookEndpoint',
      'retryWebhookDelivery',
      'cancelInstallment',
    ])
      expect(operations).toContain(`${write} ${OWNER}`);
    await screenshot(page, 'console/audit-log');
    await page.close();
  });

  it('another merchant’s link is not found in the console (404, not 403), nor through the API', async () => {
    const other = await api.merchant({ name: 'Otro comercio' });
    const theirs = await api.link(other, {
      label: 'De otro',
      amount: 5000,
      handleValue: 'x@example.com',
      handleLabel: 'X',
      singlePayment: true,
      creditAndDebitCard: true,
    });
    const page = await owner.newPage();
    await open(page, `/console/links/${theirs.id}`, 404);
    const cancel = await fetch(`${env.gatewayUrl}/console/links/${theirs.id}/cancel`, {
      method: 'POST',
      headers: {
        cookie: await cookieHeaderOf(owner, env.gatewayUrl),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        csrf: (await page.locator('input[name=csrf]').first().getAttribute('value')) ?? '',
        confirm: 'yes',
      }).toString(),
      redirect: 'manual',
    });
    expect(cancel.status).toBe(404);
    expect(await api.statusOf(other, theirs.id)).toBe(1);
    await page.close();
  });

  /** The pages to check (ids of what the tests above made) and the operator's console account, signed in. */
  const everyPage = async () => {
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
    ).json()) as { customers: Array<{ id: number }> };
    const runs = (await (
      await fetch(`${env.gatewayUrl}/admin/billing/runs?merchantId=${merchant.id}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json()) as { runs: Array<{ id: string }> };
    expect([
      linkId,
      subscriptionId,
      installmentId,
      endpoints.endpoints[0],
      customers.customers[0],
      runs.runs[0],
    ]).not.toContain(undefined);
    const merchantPages: Array<[string, string]> = [
      ['home', '/console'],
      ['links', '/console/links'],
      ['link-new', '/console/links/new'],
      ['link', `/console/links/${linkId}`],
      ['subscriptions', '/console/subscriptions'],
      ['subscription', `/console/subscriptions/${subscriptionId}`],
      ['installment', `/console/subscriptions/${subscriptionId}/installments/${installmentId}`],
      ['customers', '/console/customers'],
      ['customer', `/console/customers/${customers.customers[0]?.id}`],
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
      ['account-password', '/console/account/password'],
      ['account-two-factor', '/console/account/two-factor'],
    ];
    const operatorPages: Array<[string, string]> = [
      ['operator-merchants', '/console/operator'],
      ['operator-merchant-new', '/console/operator/merchants/new'],
      ['operator-merchant', `/console/operator/merchants/${merchant.id}`],
      ['operator-billing-runs', '/console/operator/billing-runs'],
      ['operator-billing-run', `/console/operator/billing-runs/${runs.runs[0]?.id}`],
    ];
    // The operator's own console account (not the bearer token), invited through the admin API.
    const invited = await fetch(`${env.gatewayUrl}/admin/operators`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: OPERATOR, name: 'Operaciones' }),
    });
    expect(invited.status).toBe(201);
    const operator = await acceptAndSignIn(env, OPERATOR, { viewport: WIDE, next: '/console/operator' });
    return { merchantPages, operatorPages, operator };
  };
  let pagesToCheck: ReturnType<typeof everyPage> | undefined;

  // Each language a test of its own (about two minutes each on a shared two-core machine).
  it.each(['es', 'en'] as const)(
    'every page in %s, at 1280 and 390 px: no serious or critical accessibility violation, nothing wider than the screen',
    async (language) => {
      pagesToCheck ??= everyPage();
      const { merchantPages, operatorPages, operator } = await pagesToCheck;
      for (const [context, pages, home] of [
        [owner, merchantPages, '/console/links'],
        [operator, operatorPages, '/console/operator'],
      ] as const) {
        const page = await context.newPage();
        await chooseLanguage(page, home, language);
        for (const viewport of [WIDE, PHONE]) {
          await page.setViewportSize(viewport);
          for (const [name, pathname] of pages) {
            await open(page, pathname);
            expect(await page.getAttribute('html', 'lang'), `${name} (${language})`).toBe(language);
            await expectAccessible(page, `${name} (${language}, ${viewport.width} px)`);
            // Nothing wider than the screen: a phone scrolls down, never sideways.
            const overflow = (await page.evaluate(
              'document.documentElement.scrollWidth - window.innerWidth',
            )) as number;
            expect(
              overflow,
              `${name} (${language}, ${viewport.width} px) is wider than the screen`,
            ).toBeLessThanOrEqual(0);
            // Every section of the navigation in sight: none hidden off to the side of a bar that scrolls.
            const navOutside = (await page.evaluate(
              `[...document.querySelectorAll('nav.main a')].filter((a) => { const box = a.getBoundingClientRect(); return box.left < 0 || box.right > window.innerWidth; }).map((a) => a.dataset.testid)`,
            )) as string[];
            expect(
              navOutside,
              `${name} (${language}, ${viewport.width} px): navigation out of sight`,
            ).toEqual([]);
            await screenshot(page, `console/${name}-${language}-${viewport.width}`);
          }
        }
        // Back to Spanish, the default, for whatever runs after.
        if (language !== 'es') await chooseLanguage(page, home, 'es');
        await page.close();
      }
    },
    300_000,
  );
});
