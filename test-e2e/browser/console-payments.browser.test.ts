import { readFile } from 'node:fs/promises';
import { waitFor } from '@payrail/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { acceptAndSignIn } from './console-sign-in';
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
  screenshot,
  seriousAccessibilityViolations,
  startBrowserSystem,
} from './harness';

// The console's Payments pages and home's money (issue 28 over the ledger of issue 27) in Debian's
// Chromium, signed in for real (the operator invites an owner and a viewer, who choose a password and sign
// in). A customer pays two links on PROCESSOR_B in a browser of their own; the owner finds the payments in
// the ledger (filters in the URL), refunds the first whole through the processor (the same day:
// succeeded), records a part of the second as given back by transfer, is refused more than is left (422)
// and a part by card (409), exports the filtered rows as CSV and reads them back. The viewer sees the
// payments without a refund button and a crafted refund form is refused by the API (403). Every page in
// both languages at 1280 and 390 px, axe-core clean.

const chromium = inject('chromium');
const WIDE = { width: 1280, height: 900 };

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;
let owner: BrowserContext;
let viewer: BrowserContext;

/** The operator invites `email` as `role`; the person sets a password, skips TOTP and signs in. */
async function personSignedIn(
  email: string,
  name: string,
  role: 'owner' | 'viewer',
): Promise<BrowserContext> {
  const invited = await fetch(`${env.gatewayUrl}/admin/merchants/${merchant.id}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, name, role }),
  });
  expect(invited.status, await invited.clone().text()).toBe(201);
  return acceptAndSignIn(env, email, { viewport: WIDE });
}

async function expectAccessible(page: Page, step: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, `${step}:\n${describeViolations(violations)}`).toEqual([]);
}

/** The user's language through the layout's switch (stored for the user), on the page it was on. */
async function switchTo(page: Page, lang: 'es' | 'en'): Promise<void> {
  if ((await page.locator('html').getAttribute('lang')) === lang) return;
  await byTestId(page, 'lang-switch').click();
  await expect.poll(() => page.locator('html').getAttribute('lang')).toBe(lang);
}

/** The page accessible in both languages, shot at 1280 and 390 px (`console/payments-<name>-<lang>-<width>`). */
async function shootEveryWay(page: Page, name: string): Promise<void> {
  for (const lang of ['es', 'en'] as const) {
    await switchTo(page, lang);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await expectAccessible(page, `${name} (${lang}, ${width})`);
      await screenshot(page, `console/payments-${name}-${lang}-${width}`);
    }
  }
  await page.setViewportSize(WIDE);
  await switchTo(page, 'es');
}

/** A one-off link paid by a customer on PROCESSOR_B (its own page, Mastercard …4444); its ledger id. */
async function paidOnProcessorB(
  label: string,
  amount: number,
  email: string,
): Promise<{ linkId: number; paymentId: string }> {
  const link = await api.link(merchant, {
    label,
    amount,
    handleValue: email,
    handleLabel: 'Sofía Duarte',
    customIdentifier: `CLI-${amount}`,
    singlePayment: true,
    creditAndDebitCard: true,
    recurrentPayment: false,
  });
  const customer = await newCustomer(env);
  const pay = await customer.newPage();
  await pay.goto(link.publicPayUrl);
  const signIn = byTestId(pay, 'pay-sign-in');
  await signIn.or(byTestId(pay, 'pay-submit')).first().waitFor({ timeout: 15_000 });
  if (await signIn.isVisible()) await signIn.click();
  const before = new Date(Date.now() - 2000);
  await byTestId(pay, 'login-email').fill(email);
  await byTestId(pay, 'login-send').click();
  await byTestId(pay, 'login-code').fill(await loginCodeFor(env, email, before));
  await byTestId(pay, 'login-verify').click();
  await byTestId(pay, 'pay-processor-PROCESSOR_B').check();
  await byTestId(pay, 'pay-submit').click();
  await pay.waitForURL((url) => url.origin === new URL(env.sandboxUrl).origin, { timeout: 15_000 });
  await fillCardForm(pay, { number: CARDS.approvedMastercard });
  await pay.locator('[data-testid="pay-status"][data-status="paid"]').waitFor({ timeout: 40_000 });
  await customer.close();
  const paymentId = await waitFor(
    async () => {
      const found = await api.request(
        merchant,
        'GET',
        `/api/payments?payRequestId=${link.id}&status=succeeded`,
      );
      return (found.payments as Array<{ id: string }>)[0]?.id;
    },
    30_000,
    250,
  );
  return { linkId: link.id, paymentId };
}

/** The refund form of a payment filled and sent to its confirmation step. */
async function reviewRefund(
  page: Page,
  paymentId: string,
  fields: { method: 'CARD' | 'BANK_TRANSFER'; amount?: string; reference?: string },
): Promise<void> {
  await page.goto(`${env.gatewayUrl}/console/payments/${paymentId}`);
  await byTestId(page, 'refund-new').click();
  await byTestId(page, fields.method === 'CARD' ? 'refund-method-card' : 'refund-method-transfer').check();
  if (fields.amount !== undefined) await byTestId(page, 'refund-amount').fill(fields.amount);
  if (fields.reference !== undefined) await byTestId(page, 'refund-reference').fill(fields.reference);
  await byTestId(page, 'refund-review').click();
  await byTestId(page, 'refund-confirm').waitFor();
}

describe.skipIf(!chromium.available)("the console's payments and home's money in Chromium (issue 28)", () => {
  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path);
    api = new MerchantApi(env);
    merchant = await api.merchant();
    owner = await personSignedIn('laura@gimnasio.example', 'Laura Benítez', 'owner');
    viewer = await personSignedIn('pablo@gimnasio.example', 'Pablo Ruiz', 'viewer');
  });
  afterAll(async () => env?.stop());

  it('a link paid on PROCESSOR_B is in payments and on home; refunded whole by the processor the same day', async () => {
    const { paymentId } = await paidOnProcessorB('Clase de yoga', 97000, 'sofia@example.com');
    const page = await owner.newPage();

    // Home: collected today, in 7 and 30 days, and today's bar of the chart.
    await page.goto(`${env.gatewayUrl}/console`);
    expect(await byTestId(page, 'home-collected-today').getAttribute('data-amount')).toBe('97000.00');
    expect(await byTestId(page, 'home-collected-30').locator('.value').getAttribute('data-amount')).toBe(
      '97000.00',
    );
    // Nothing declined, so nothing recovered by a retry.
    expect(await byTestId(page, 'home-recovered').locator('.value').getAttribute('data-count')).toBe('0');
    const bars = byTestId(page, 'home-chart').locator('rect');
    expect(await bars.count()).toBe(30);
    expect(await bars.last().getAttribute('data-amount')).toBe('97000.00');
    await shootEveryWay(page, 'home');

    // The ledger, filtered by the customer (a bookmarkable URL), the payment's row.
    await byTestId(page, 'nav-payments').click();
    await byTestId(page, 'filter-form').locator('[name=q]').fill('sofia@');
    await byTestId(page, 'filter-form').locator('button[type=submit]').click();
    await page.waitForURL(/\/console\/payments\?(.*&)?q=sofia%40/);
    const row = page.locator(`[data-testid="payment-row"][data-id="${paymentId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('succeeded');
    expect(await page.locator('[data-testid="payment-row"]').count()).toBe(1);
    await shootEveryWay(page, 'list');

    // The refund: the whole payment through PROCESSOR_B, with a confirmation step.
    await row.locator('a').first().click();
    await page.waitForURL(`${env.gatewayUrl}/console/payments/${paymentId}`);
    await byTestId(page, 'refund-new').click();
    expect(await byTestId(page, 'refund-amount').inputValue()).toBe('97000');
    await shootEveryWay(page, 'refund');
    // The confirmation page answers a POST: each language's is reached by the form again.
    for (const lang of ['es', 'en'] as const) {
      await switchTo(page, lang);
      await reviewRefund(page, paymentId, { method: 'CARD' });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await expectAccessible(page, `refund-confirm (${lang}, ${width})`);
        await screenshot(page, `console/payments-refund-confirm-${lang}-${width}`);
      }
    }
    await page.setViewportSize(WIDE);
    await switchTo(page, 'es');
    await reviewRefund(page, paymentId, { method: 'CARD' });
    expect((await byTestId(page, 'refund-review-amount').textContent())?.replace(/\D/g, '')).toBe('97000');
    // The confirmation form as it will be sent, to send it again after (a reload, a second click).
    const confirmation: Record<string, string> = {};
    for (const input of await byTestId(page, 'refund-review-form').locator('input[type=hidden]').all()) {
      confirmation[(await input.getAttribute('name')) ?? ''] = (await input.getAttribute('value')) ?? '';
    }
    expect(confirmation.idem).toMatch(/^[0-9a-f-]{36}$/);
    await byTestId(page, 'refund-confirm').click();
    await page.waitForURL(
      new RegExp(`/console/payments/${paymentId}\\?done=succeeded&refund=[0-9a-f-]{36}$`),
    );
    await byTestId(page, 'done-notice').waitFor();
    const refundRows = page.locator('[data-testid="refund-row"]');
    expect(await refundRows.count()).toBe(1);
    expect(await refundRows.first().getAttribute('data-status')).toBe('succeeded');
    expect(await byTestId(page, 'refund-new').count()).toBe(0);
    await shootEveryWay(page, 'detail');

    // The same form again (its Idempotency-Key): the same refund, never a second.
    const again = await page.evaluate(
      async ({ action, fields }) => {
        const response = await fetch(action, {
          method: 'POST',
          body: new URLSearchParams(fields),
          redirect: 'manual',
        });
        return response.type === 'opaqueredirect' ? 303 : response.status;
      },
      { action: `/console/payments/${paymentId}/refund`, fields: confirmation },
    );
    expect(again).toBe(303);
    // The ledger is written from the refund's events: it shows the refund a moment later.
    const payment = await waitFor(async () => {
      const found = await api.request(merchant, 'GET', `/api/payments/${paymentId}`);
      return found.refundedAmount === '97000.00' ? found : undefined;
    });
    expect(payment.refunds as unknown[]).toHaveLength(1);
    expect((payment.refunds as Array<{ status: string; processor: string }>)[0]).toMatchObject({
      status: 'succeeded',
      processor: 'PARAGUAY.PROCESSOR_B',
    });

    // Home: refunded in 30 days.
    await page.goto(`${env.gatewayUrl}/console`);
    expect(await byTestId(page, 'home-refunded').locator('.value').getAttribute('data-amount')).toBe(
      '97000.00',
    );
    await page.close();
  }, 300_000);

  it('an outside partial refund; more than is left (422) and a part by card (409) refused in both languages', async () => {
    const { paymentId } = await paidOnProcessorB('Clase de pilates', 64000, 'sofia.d@example.com');
    const page = await owner.newPage();
    await page.goto(`${env.gatewayUrl}/console/payments`);
    await switchTo(page, 'es');
    await reviewRefund(page, paymentId, { method: 'BANK_TRANSFER', amount: '20000', reference: 'DEV-0042' });
    await byTestId(page, 'refund-confirm').click();
    await page.waitForURL(
      new RegExp(`/console/payments/${paymentId}\\?done=succeeded&refund=[0-9a-f-]{36}$`),
    );
    expect(await page.locator('[data-testid="refund-row"][data-status="succeeded"]').count()).toBe(1);
    expect((await byTestId(page, 'payment-left').textContent())?.replace(/\D/g, '')).toBe('44000');

    await reviewRefund(page, paymentId, { method: 'BANK_TRANSFER', amount: '50000', reference: 'DEV-0043' });
    await byTestId(page, 'refund-confirm').click();
    const problem = byTestId(page, 'form-problem');
    await problem.waitFor();
    expect(await problem.getAttribute('data-code')).toBe('REFUND_AMOUNT_EXCEEDS_REFUNDABLE');
    expect(await problem.textContent()).toContain('supera lo que queda');
    await expectAccessible(page, 'refund refused (422)');
    await screenshot(page, 'console/payments-refund-refused-es-1280');

    await switchTo(page, 'en');
    await reviewRefund(page, paymentId, { method: 'CARD', amount: '10000' });
    await byTestId(page, 'refund-confirm').click();
    await problem.waitFor();
    expect(await problem.getAttribute('data-code')).toBe('PARTIAL_CARD_REFUND_NOT_POSSIBLE');
    expect(await problem.textContent()).toContain('only the whole payment');
    await screenshot(page, 'console/payments-refund-refused-en-1280');
    await switchTo(page, 'es');
    const payment = await waitFor(async () => {
      const found = await api.request(merchant, 'GET', `/api/payments/${paymentId}`);
      return found.refundedAmount === '20000.00' ? found : undefined;
    });
    expect(payment.refunds as unknown[]).toHaveLength(1);
    await waitFor(async () => {
      const found = await api.request(merchant, 'GET', '/api/payments?q=sofia&kind=REFUND');
      return (found.payments as unknown[]).length === 2 ? true : undefined;
    });

    // The export of the filtered rows, downloaded by the browser and read back.
    await page.goto(`${env.gatewayUrl}/console/payments?q=sofia`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      byTestId(page, 'payment-export').click(),
    ]);
    const csv = await readFile((await download.path()) as string, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]?.startsWith('id,kind,status,method,processor,amount,currency')).toBe(true);
    // Two payments and their two refunds that succeeded: every row of the filter, the header first.
    expect(lines).toHaveLength(5);
    expect(lines.some((line) => line.startsWith(`${paymentId},LINK_PAYMENT,succeeded,CARD`))).toBe(true);
    expect(lines.filter((line) => line.includes(',REFUND,succeeded,'))).toHaveLength(2);
    await page.close();
  }, 180_000);

  it('a viewer sees the payments without a refund button; a crafted refund form is refused 403 by the API', async () => {
    const [first] = (await api.request(merchant, 'GET', '/api/payments?kind=LINK_PAYMENT&status=succeeded'))
      .payments as Array<{ id: string }>;
    if (!first) throw new Error('no payment');
    const page = await viewer.newPage();
    await page.goto(`${env.gatewayUrl}/console/payments`);
    expect(await page.locator('[data-testid="payment-row"]').count()).toBeGreaterThanOrEqual(4);
    await page.goto(`${env.gatewayUrl}/console/payments?status=succeeded&kind=LINK_PAYMENT`);
    await page.locator(`[data-testid="payment-row"][data-id="${first.id}"]`).waitFor();
    const other = (await api.request(merchant, 'GET', '/api/payments?q=sofia.d&kind=LINK_PAYMENT'))
      .payments as Array<{
      id: string;
    }>;
    const open = other[0]?.id as string;
    await page.goto(`${env.gatewayUrl}/console/payments/${open}`);
    await byTestId(page, 'payment-status').waitFor();
    expect(await byTestId(page, 'refund-new').count()).toBe(0);
    await expectAccessible(page, 'payment as a viewer');
    const before = await api.request(merchant, 'GET', `/api/payments/${open}`);
    const csrf = (await page.locator('input[name=csrf]').first().getAttribute('value')) ?? '';
    const status = await page.evaluate(
      async ({ action, csrf }) => {
        const fields = {
          csrf,
          confirm: 'yes',
          idem: crypto.randomUUID(),
          method: 'CASH',
          amount: '1000',
        };
        const response = await fetch(action, {
          method: 'POST',
          body: new URLSearchParams(fields),
          redirect: 'manual',
        });
        return { status: response.status, html: await response.text() };
      },
      { action: `/console/payments/${open}/refund`, csrf },
    );
    expect(status.status).toBe(403);
    expect(status.html).toContain('data-testid="form-problem"');
    const after = await api.request(merchant, 'GET', `/api/payments/${open}`);
    expect(after.refunds).toEqual(before.refunds);
    await page.close();
  });
});
