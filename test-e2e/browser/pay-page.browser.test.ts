import type { Page } from 'playwright-core';
import { waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type BrowserSystem,
  byTestId,
  CARDS,
  chargesOf,
  describeViolations,
  fillCardForm,
  linkPaidEvents,
  loginCodeFor,
  type Merchant,
  MerchantApi,
  newCustomer,
  payStatus,
  processorFrame,
  screenshot,
  seriousAccessibilityViolations,
  startBrowserSystem,
  waitForStatus,
} from './harness';

// The "Must show" of the hosted pay page (issue 9), in Debian's Chromium through playwright-core: a
// customer opens `publicPayUrl`, signs in, pays once or subscribes, with a new card on either processor's
// hosted form or a saved card. The whole system runs as processes on real PostgreSQL and RabbitMQ; the
// processor sandbox (its own origin) is the processors, and its ledger says how many charges were made.
// Each scenario pays an amount of its own, so the ledger can be read per scenario.

const chromium = inject('chromium');

/** Scenario `n` of the "Must show". */
function scenario(n: number, name: string, body: () => Promise<void>): void {
  it(`${n}. ${name}`, body);
}

const PROCESSOR_A = 'PARAGUAY.PROCESSOR_A';
const PROCESSOR_B = 'PARAGUAY.PROCESSOR_B';

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;

const oneOff = (label: string, amount: number, extra: Record<string, unknown> = {}) => ({
  label,
  amount,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
  ...extra,
});

/** Runs axe-core on the page: no serious or critical violation. */
async function expectAccessible(page: Page, step: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, `${step}:\n${describeViolations(violations)}`).toEqual([]);
}

/** On the link page without a session: follow the page's own sign-in (or identify) link. */
async function followSignIn(page: Page): Promise<void> {
  const signIn = byTestId(page, 'pay-sign-in');
  const ready = byTestId(page, 'pay-submit').or(byTestId(page, 'pay-saved-card'));
  await signIn.or(ready).first().waitFor({ timeout: 15_000 });
  if (await signIn.isVisible()) await signIn.click();
}

/** Signs in with e-mail and the one-time code from the development mailbox, back on the link page. */
async function signIn(page: Page, email: string, shots?: { login: string; code: string }): Promise<void> {
  await followSignIn(page);
  const emailField = byTestId(page, 'login-email');
  await emailField.waitFor({ timeout: 15_000 });
  if (shots) {
    await screenshot(page, shots.login);
    await expectAccessible(page, 'login page');
  }
  const before = new Date(Date.now() - 2000);
  await emailField.fill(email);
  await byTestId(page, 'login-send').click();
  const codeField = byTestId(page, 'login-code');
  await codeField.waitFor({ timeout: 15_000 });
  if (shots) {
    await screenshot(page, shots.code);
    await expectAccessible(page, 'code page');
  }
  await codeField.fill(await loginCodeFor(env, email, before));
  await byTestId(page, 'login-verify').click();
  await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
}

/** Chooses a processor for a new card and submits; answers the page or frame that holds the card form. */
async function startNewCard(page: Page, processor: 'PROCESSOR_A' | 'PROCESSOR_B', save = false) {
  await byTestId(page, `pay-processor-${processor}`).check();
  if (save) await byTestId(page, 'pay-save-card').check();
  await byTestId(page, 'pay-submit').click();
  if (processor === 'PROCESSOR_A') return processorFrame(env, page);
  // PROCESSOR_B: the browser leaves for the processor's own page.
  await page.waitForURL((url) => url.origin === new URL(env.sandboxUrl).origin, { timeout: 15_000 });
  return page;
}

/**
 * Back on our page after the processor (through the iframe's message, B's return, the waiting page that
 * refreshes itself): the state the page ends on, paid (receipt) or rejected (the link page again).
 */
async function finalStatus(page: Page): Promise<string | null> {
  const settled = page
    .locator(
      '[data-testid="pay-status"][data-status="paid"], [data-testid="pay-status"][data-status="rejected"]',
    )
    .first();
  await settled.waitFor({ timeout: 40_000 });
  return settled.getAttribute('data-status');
}

async function expectOneCharge(amount: string, processor?: string, last4?: string): Promise<void> {
  // A second charge would come right after the first: give it time to show before counting.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const charges = await chargesOf(env, amount);
  expect(charges, JSON.stringify(charges)).toHaveLength(1);
  if (processor) expect(charges[0]?.processor).toBe(processor);
  if (last4) expect(charges[0]?.last4).toBe(last4);
}

describe.skipIf(!chromium.available)('the hosted pay page in Chromium (issue 9, "Must show")', () => {
  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path);
    api = new MerchantApi(env);
    merchant = await api.merchant();
  });
  afterAll(async () => env?.stop());

  it('the accessibility check itself finds serious violations on a page that has them', async () => {
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.setContent(
      '<!doctype html><html><head><title>x</title></head><body><img src="a.png"><input type="text"></body></html>',
    );
    const found = (await seriousAccessibilityViolations(page)).map((violation) => violation.id);
    expect(found).toEqual(expect.arrayContaining(['image-alt', 'label']));
    await context.close();
  });

  scenario(
    1,
    'a single payment with a new card on PROCESSOR_A (iframe): statusId 200, link.paid, one charge',
    async () => {
      const link = await api.link(merchant, oneOff('Clase de yoga', 151000));
      const context = await newCustomer(env);
      const page = await context.newPage();
      await page.goto(link.publicPayUrl);
      await expect.poll(() => byTestId(page, 'pay-label').textContent()).toContain('Clase de yoga');
      expect(await byTestId(page, 'pay-amount').textContent()).toContain('Gs. 151.000');
      expect(await payStatus(page)).toBe('pending');
      await screenshot(page, '01-link');
      await expectAccessible(page, 'link page');

      await signIn(page, 'ana@example.com', { login: '02-login-email', code: '03-login-code' });
      await screenshot(page, '04-choose');
      await expectAccessible(page, 'choose page');

      const form = await startNewCard(page, 'PROCESSOR_A');
      await byTestId(form, 'card-number').waitFor({ timeout: 15_000 });
      await screenshot(page, '05-card-form-processor-a');
      await expectAccessible(page, 'card form page (ours, around the processor frame)');
      await fillCardForm(form, { number: CARDS.approved });
      expect(await finalStatus(page)).toBe('paid');
      await screenshot(page, '06-receipt');
      await expectAccessible(page, 'receipt');

      await waitForStatus(api, merchant, link.id, 200);
      const paid = await waitFor(async () => (await linkPaidEvents(env, link.id))[0], 15_000, 200);
      expect(paid).toMatchObject({ linkId: link.id, processor: PROCESSOR_A });
      expect(paid.chargeId).toBeTruthy();
      await expectOneCharge('151000', PROCESSOR_A, '4242');
      await context.close();
    },
  );

  scenario(
    2,
    'a subscription’s first payment on PROCESSOR_B (redirect): card saved, subscription active, installment 1 paid',
    async () => {
      const link = await api.link(merchant, {
        ...oneOff('Membresía mensual', 152000),
        handleValue: 'lucia@example.com',
        singlePayment: false,
        recurrentPayment: true,
        recurrentPaymentType: 'STATIC',
        installmentAmount: 100000,
        totalPeriods: 3,
        dayOfMonth: 5,
        monthForSecondInstallment: 1,
      });
      const context = await newCustomer(env);
      const page = await context.newPage();
      await page.goto(link.publicPayUrl);
      await byTestId(page, 'pay-schedule').waitFor({ timeout: 15_000 });
      await screenshot(page, '07-subscription');
      await expectAccessible(page, 'subscription page');
      await signIn(page, 'lucia@example.com');
      expect(await byTestId(page, 'pay-option-single').count()).toBe(0);
      const processorPage = await startNewCard(page, 'PROCESSOR_B');
      await byTestId(processorPage, 'card-number').waitFor({ timeout: 15_000 });
      await screenshot(page, '08-card-form-processor-b');
      await fillCardForm(processorPage, { number: CARDS.approvedMastercard });
      expect(await finalStatus(page)).toBe('paid');

      await waitForStatus(api, merchant, link.id, 200);
      await expectOneCharge('152000', PROCESSOR_B, '4444');
      // The subscription takes the card from link.paid: the vault's card and the customer who paid.
      const paid = await waitFor(async () => (await linkPaidEvents(env, link.id))[0], 15_000, 200);
      expect(paid).toMatchObject({ linkId: link.id, processor: PROCESSOR_B, recurrent: true });
      expect(paid.paymentMethodId).toBeTruthy();
      expect(paid.customerId).toBeTruthy();
      const subscription = await waitFor(
        async () => {
          const found = await api.subscriptionOf(merchant, link.id);
          return found?.status === 'active' ? found : undefined;
        },
        20_000,
        250,
      );
      expect(subscription.installments.find((installment) => installment.number === 1)?.status).toBe('paid');

      // The card is the customer's now: the saved-cards panel lists it.
      await page.goto(`${env.gatewayUrl}/pay/account/cards`);
      await expect.poll(() => byTestId(page, 'account-card').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid="account-card"][data-last4="4444"]').count()).toBe(1);
      await screenshot(page, '09-saved-cards');
      await expectAccessible(page, 'saved cards panel');
      await context.close();
    },
  );

  scenario(3, 'a second link of the same customer is paid with the saved card in one click', async () => {
    const link = await api.link(merchant, { ...oneOff('Toalla', 153000), handleValue: 'lucia@example.com' });
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, 'lucia@example.com');
    const saved = page.locator('[data-testid="pay-saved-card"][data-last4="4444"]');
    await saved.waitFor({ timeout: 15_000 });
    await screenshot(page, '10-saved-card');
    await saved.click();
    expect(await finalStatus(page)).toBe('paid');
    await waitForStatus(api, merchant, link.id, 200);
    await expectOneCharge('153000', PROCESSOR_B, '4444');
    await context.close();
  });

  scenario(
    4,
    'a declined card (…0002) leaves statusId 5 and the reason shown; an approved card then pays (200)',
    async () => {
      const link = await api.link(merchant, oneOff('Clase de spinning', 154000));
      const context = await newCustomer(env);
      const page = await context.newPage();
      await page.goto(link.publicPayUrl);
      await signIn(page, 'ana@example.com');
      const declinedForm = await startNewCard(page, 'PROCESSOR_A');
      await fillCardForm(declinedForm, { number: CARDS.declined });
      expect(await finalStatus(page)).toBe('rejected');
      await expect.poll(() => byTestId(page, 'pay-decline-reason').isVisible()).toBe(true);
      expect((await byTestId(page, 'pay-decline-reason').textContent())?.trim().length).toBeGreaterThan(0);
      await screenshot(page, '11-declined');
      await expectAccessible(page, 'declined page');
      await waitForStatus(api, merchant, link.id, 5);

      const approvedForm = await startNewCard(page, 'PROCESSOR_A');
      await fillCardForm(approvedForm, { number: CARDS.approved });
      expect(await finalStatus(page)).toBe('paid');
      await waitForStatus(api, merchant, link.id, 200);
      await expectOneCharge('154000', PROCESSOR_A, '4242');
      await context.close();
    },
  );

  scenario(5, 'an expired link and a cancelled link offer nothing to pay', async () => {
    const expiring = await api.link(merchant, oneOff('Pase diario', 155000, { payWaitHours: 1 }));
    // An hour is long for a test: the link's validity is moved into the past where it is kept.
    await env.sql`update links.payment_links set created_at = now() - interval '2 hours',
      expires_at = now() - interval '1 hour' where id = ${expiring.id}`;
    const cancelled = await api.link(merchant, oneOff('Pase semanal', 155500));
    await api.cancel(merchant, cancelled.id);

    const context = await newCustomer(env);
    const page = await context.newPage();
    for (const [link, status, shot] of [
      [expiring, 'expired', '12-expired'],
      [cancelled, 'cancelled', '13-cancelled'],
    ] as const) {
      await page.goto(link.publicPayUrl);
      expect(await payStatus(page)).toBe(status);
      for (const hook of ['pay-submit', 'pay-saved-card', 'pay-sign-in', 'pay-form']) {
        expect(await byTestId(page, hook).count(), `${status}: ${hook}`).toBe(0);
      }
      await screenshot(page, shot);
      await expectAccessible(page, `${status} page`);
    }
    expect(await api.statusOf(merchant, expiring.id)).toBe(6);
    expect(await api.statusOf(merchant, cancelled.id)).toBe(7);
    expect(await chargesOf(env, '155000')).toEqual([]);
    await context.close();
  });

  scenario(
    6,
    'a signed-in-user link opens in that user’s session with their cards; a new card lands on that user',
    async () => {
      const user = { email: 'marta@example.com', firstName: 'Marta', lastName: 'Benítez' };
      const first = await api.signedInUserLink(merchant, {
        ...oneOff('Factura 2026-11', 156000, { payWaitHours: 24 }),
        signedInUser: user,
      });
      const firstContext = await newCustomer(env);
      const page = await firstContext.newPage();
      await page.goto(first.publicPayUrl);
      // No sign-in asked: the URL's credential started Marta's session.
      await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
      expect(await byTestId(page, 'pay-sign-in').count()).toBe(0);
      const form = await startNewCard(page, 'PROCESSOR_A', true);
      await fillCardForm(form, { number: CARDS.approvedMastercard });
      expect(await finalStatus(page)).toBe('paid');
      await waitForStatus(api, merchant, first.id, 200);
      await expectOneCharge('156000', PROCESSOR_A, '4444');
      await firstContext.close();

      // Another link for Marta, opened in a browser that never saw her: her saved card is offered.
      const second = await api.signedInUserLink(merchant, {
        ...oneOff('Factura 2026-12', 156500, { payWaitHours: 24 }),
        signedInUser: user,
      });
      expect(second.userId).toBe(first.userId);
      const secondContext = await newCustomer(env);
      const secondPage = await secondContext.newPage();
      await secondPage.goto(second.publicPayUrl);
      await secondPage
        .locator('[data-testid="pay-saved-card"][data-last4="4444"]')
        .waitFor({ timeout: 15_000 });
      await screenshot(secondPage, '14-signed-in-user');
      await secondContext.close();

      // The URL's credential is single-use: opened again in another browser, it asks for a login.
      const thirdContext = await newCustomer(env);
      const thirdPage = await thirdContext.newPage();
      await thirdPage.goto(second.publicPayUrl);
      await byTestId(thirdPage, 'login-email').waitFor({ timeout: 15_000 });
      expect(await byTestId(thirdPage, 'pay-form').count()).toBe(0);
      await thirdContext.close();
    },
  );

  scenario(
    7,
    'a noLoginRequired link is paid without a login: the customer confirms the document number',
    async () => {
      const link = await api.link(
        merchant,
        oneOff('Cuota del club', 157000, { noLoginRequired: true, documentNumber: '4567890' }),
      );
      const context = await newCustomer(env);
      const page = await context.newPage();
      await page.goto(link.publicPayUrl);
      await followSignIn(page);
      await byTestId(page, 'nologin-document').waitFor({ timeout: 15_000 });
      await screenshot(page, '15-identify');
      await expectAccessible(page, 'identify page');
      await byTestId(page, 'nologin-document').fill('4567890');
      await byTestId(page, 'nologin-continue').click();
      await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
      expect(await byTestId(page, 'login-email').count()).toBe(0);
      const form = await startNewCard(page, 'PROCESSOR_A');
      await fillCardForm(form, { number: CARDS.approved });
      expect(await finalStatus(page)).toBe('paid');
      await waitForStatus(api, merchant, link.id, 200);
      await expectOneCharge('157000', PROCESSOR_A);
      await context.close();
    },
  );

  scenario(8, 'paymentMethods ["PARAGUAY.PROCESSOR_B"] shows PROCESSOR_B only', async () => {
    const link = await api.link(merchant, oneOff('Clase privada', 158000, { paymentMethods: [PROCESSOR_B] }));
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, 'ana@example.com');
    expect(await byTestId(page, 'pay-processor-PROCESSOR_B').count()).toBe(1);
    expect(await byTestId(page, 'pay-processor-PROCESSOR_A').count()).toBe(0);
    await context.close();
  });

  scenario(
    9,
    'after payment the browser reaches redirectUrl exactly, its own query string kept',
    async () => {
      const redirectUrl = `${env.merchantSite.origin}/payments/done?order=117&ref=a%2Fb&lang=es`;
      const link = await api.link(merchant, oneOff('Pedido 117', 159000, { redirectUrl }));
      const context = await newCustomer(env);
      const page = await context.newPage();
      await page.goto(link.publicPayUrl);
      await signIn(page, 'ana@example.com');
      const form = await startNewCard(page, 'PROCESSOR_A');
      await fillCardForm(form, { number: CARDS.approved });
      await page.waitForURL((url) => url.origin === env.merchantSite.origin, { timeout: 30_000 });
      expect(page.url()).toBe(redirectUrl);
      expect(env.merchantSite.requests).toContain('/payments/done?order=117&ref=a%2Fb&lang=es');
      await waitForStatus(api, merchant, link.id, 200);
      await context.close();
    },
  );

  scenario(10, 'a double click on pay, and two tabs paying at once, make one charge', async () => {
    // Lucía has a saved card (scenario 2): a saved card pays at the click, the harshest case for doubles.
    const doubleClick = await api.link(merchant, oneOff('Doble clic', 160000));
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.goto(doubleClick.publicPayUrl);
    await signIn(page, 'lucia@example.com');
    const saved = page.locator('[data-testid="pay-saved-card"][data-last4="4444"]');
    await saved.waitFor({ timeout: 15_000 });
    await saved.dblclick();
    expect(await finalStatus(page)).toBe('paid');
    await waitForStatus(api, merchant, doubleClick.id, 200);
    await expectOneCharge('160000');

    const twoTabs = await api.link(merchant, oneOff('Dos pestañas', 161000));
    const tabs = [await context.newPage(), await context.newPage()];
    for (const tab of tabs) {
      await tab.goto(twoTabs.publicPayUrl);
      await tab.locator('[data-testid="pay-saved-card"][data-last4="4444"]').waitFor({ timeout: 15_000 });
    }
    await Promise.all(
      tabs.map((tab) => tab.locator('[data-testid="pay-saved-card"][data-last4="4444"]').click()),
    );
    const shown = await Promise.all(tabs.map((tab) => finalStatus(tab)));
    expect(shown).toEqual(['paid', 'paid']);
    await waitForStatus(api, merchant, twoTabs.id, 200);
    await expectOneCharge('161000');
    expect(await linkPaidEvents(env, twoTabs.id)).toHaveLength(1);
    await context.close();
  });

  scenario(11, 'Spanish by default, English by Accept-Language or ?lang=en, each accessible', async () => {
    const link = await api.link(merchant, oneOff('Gym membership', 162000));
    const spanish = await newCustomer(env, 'es-PY');
    const english = await newCustomer(env, 'en-US');
    const es = await spanish.newPage();
    await es.goto(link.publicPayUrl);
    expect(await es.getAttribute('html', 'lang')).toBe('es');
    expect(await byTestId(es, 'pay-amount').textContent()).toContain('Gs. 162.000');
    await screenshot(es, '16-spanish');
    await expectAccessible(es, 'Spanish page');

    const en = await english.newPage();
    await en.goto(link.publicPayUrl);
    expect(await en.getAttribute('html', 'lang')).toBe('en');
    await screenshot(en, '17-english');
    await expectAccessible(en, 'English page');
    const forced = await spanish.newPage();
    await forced.goto(`${link.publicPayUrl}?lang=en`);
    expect(await forced.getAttribute('html', 'lang')).toBe('en');
    // The same page in two languages: the words differ, the label is the merchant's own.
    expect(await byTestId(en, 'pay-status').textContent()).not.toBe(
      await byTestId(es, 'pay-status').textContent(),
    );
    expect(await byTestId(en, 'pay-label').textContent()).toBe(await byTestId(es, 'pay-label').textContent());
    await spanish.close();
    await english.close();
  });
});
