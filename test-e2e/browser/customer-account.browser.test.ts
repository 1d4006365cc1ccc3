import type { Page } from 'playwright-core';
import { waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  billingRun,
  type BrowserSystem,
  byTestId,
  CARDS,
  chargesOf,
  describeViolations,
  fillCardForm,
  loginCodeFor,
  type Merchant,
  MerchantApi,
  newCustomer,
  paymentSuccesses,
  processorFrame,
  screenshot,
  seriousAccessibilityViolations,
  startBrowserSystem,
} from './harness';

// The customer's own page (issue 29, item 1) in Debian's Chromium: a subscription paid with card …0341
// (approved once, declined after), installment 2 declined on its as-of billing run, and the customer who
// gives the subscription another card on `/pay/account`: the declined installment is charged once to it,
// the subscription is active again and the merchant hears PAYMENT_SUCCESS. The whole system as processes
// on real PostgreSQL and RabbitMQ, SIMULATED_TIME on (as-of runs in the future), the processor sandbox's
// ledger counting the charges. Screenshots under docs/screenshots/customer/ (UPDATE_SCREENSHOTS=1).

const chromium = inject('chromium');
const CARD_0341 = '4000000000000341';

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;

async function expectAccessible(page: Page, step: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, `${step}:\n${describeViolations(violations)}`).toEqual([]);
}

/** On a link's page: sign in with the e-mail code from the development mailbox. */
async function signIn(page: Page, email: string): Promise<void> {
  const signInLink = byTestId(page, 'pay-sign-in');
  await signInLink.waitFor({ timeout: 15_000 });
  await signInLink.click();
  const before = new Date(Date.now() - 2000);
  await byTestId(page, 'login-email').fill(email);
  await byTestId(page, 'login-send').click();
  await byTestId(page, 'login-code').waitFor({ timeout: 15_000 });
  await byTestId(page, 'login-code').fill(await loginCodeFor(env, email, before));
  await byTestId(page, 'login-verify').click();
  await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
}

/** Pays the link page's form with a new card on PROCESSOR_A's iframe; waits for the receipt. */
async function payOnProcessorA(page: Page, number: string, options: { save?: boolean } = {}): Promise<void> {
  await byTestId(page, 'pay-processor-PROCESSOR_A').check();
  if (options.save) await byTestId(page, 'pay-save-card').check();
  await byTestId(page, 'pay-submit').click();
  await fillCardForm(await processorFrame(env, page), { number });
  const settled = page
    .locator(
      '[data-testid="pay-status"][data-status="paid"], [data-testid="pay-status"][data-status="rejected"]',
    )
    .first();
  await settled.waitFor({ timeout: 40_000 }).catch(async (error) => {
    throw new Error(`${page.url()}: ${(await page.locator('main').textContent()) ?? ''} (${error})`);
  });
  expect(await settled.getAttribute('data-status'), (await page.locator('main').textContent()) ?? '').toBe(
    'paid',
  );
}

const monthly = (label: string, amount: number, installmentAmount: number, email: string) => ({
  label,
  amount,
  handleValue: email,
  handleLabel: 'Ana Gómez',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  recurrentPaymentType: 'STATIC',
  installmentAmount,
  totalPeriods: 3,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
});

interface Installment {
  installmentId: number;
  number: number;
  paymentDate: string;
  amount: string;
  status: string;
}

/** The subscription of a link once it is active, as the merchant's API tells it. */
async function activeSubscription(owner: Merchant, linkId: number) {
  return waitFor(
    async () => {
      const found = await api.subscriptionOf(owner, linkId);
      return found?.status === 'active' ? found : undefined;
    },
    40_000,
    200,
  );
}

/** Installment 2 declined on its as-of run: pending again with a failed attempt. */
async function declineSecondInstallment(owner: Merchant, linkId: number): Promise<Installment> {
  const subscription = await activeSubscription(owner, linkId);
  const second = subscription.installments.find((row) => row.number === 2) as Installment;
  expect(await billingRun(env, owner, second.paymentDate)).toMatchObject({ due: 1, failed: 1 });
  await waitFor(
    async () =>
      (await api.subscriptionOf(owner, linkId))?.installments.find((row) => row.number === 2)?.status ===
      'pending',
    20_000,
    200,
  );
  return second;
}

/** Waits until installment 2 is paid and the subscription active again. */
async function paidAndActive(owner: Merchant, linkId: number): Promise<void> {
  await waitFor(
    async () => {
      const found = await api.subscriptionOf(owner, linkId);
      const second = found?.installments.find((row) => row.number === 2);
      return found?.status === 'active' && second?.status === 'paid' ? true : undefined;
    },
    60_000,
    250,
  );
}

describe.skipIf(!chromium.available)('the customer’s own page in Chromium (issue 29)', () => {
  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path, { env: { SIMULATED_TIME: 'true' } });
    api = new MerchantApi(env);
    merchant = await api.merchant({ name: 'Gimnasio Central' });
  }, 180_000);
  afterAll(async () => env?.stop());

  it('a declined installment is paid once with a new card registered on PROCESSOR_B (redirect)', async () => {
    const email = 'ana.account@example.com';
    const link = await api.link(merchant, monthly('Membresía del gimnasio', 171000, 161000, email));
    const context = await newCustomer(env, 'es-PY');
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, email);
    await payOnProcessorA(page, CARD_0341);
    const second = await declineSecondInstallment(merchant, link.id);
    expect(await chargesOf(env, '161000')).toHaveLength(0);

    await page.goto(`${env.gatewayUrl}/pay/account?lang=es`);
    const subscription = byTestId(page, 'account-subscription');
    await subscription.waitFor({ timeout: 15_000 });
    const subscriptionId = await subscription.getAttribute('data-id');
    expect(await subscription.getAttribute('data-status')).toBe('active');
    expect(await byTestId(page, 'account-subscription-card').getAttribute('data-last4')).toBe('0341');
    expect(
      await page.locator('[data-testid="account-installment"][data-number="2"]').textContent(),
    ).toContain('Rechazada');
    await screenshot(page, 'customer/account-declined-es');
    await expectAccessible(page, 'account page');

    await byTestId(page, 'account-change-card').click();
    await byTestId(page, 'account-card-change').waitFor({ timeout: 15_000 });
    expect(page.url()).toContain(`/pay/account/subscriptions/${subscriptionId}/card`);
    expect(await byTestId(page, 'account-declined-installment').count()).toBe(1);
    await screenshot(page, 'customer/card-change-es');
    await expectAccessible(page, 'card change page');
    await byTestId(page, 'pay-processor-PROCESSOR_B').check();
    await byTestId(page, 'pay-submit').click();
    await page.waitForURL((url) => url.origin === new URL(env.sandboxUrl).origin, { timeout: 15_000 });
    await fillCardForm(page, { number: CARDS.approved });
    await byTestId(page, 'account-notice').waitFor({ timeout: 30_000 });
    const returned = page.url();

    await paidAndActive(merchant, link.id);
    // A reload of the return and a second submit of the card change make no second charge.
    await page.goto(`${env.gatewayUrl}/pay/account/subscriptions/${subscriptionId}/card/return`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const approved = await chargesOf(env, '161000');
    expect(approved, JSON.stringify(approved)).toHaveLength(1);
    expect(approved[0]).toMatchObject({ processor: 'PARAGUAY.PROCESSOR_B', last4: '4242' });
    expect(returned).toContain('/pay/account');

    const successes = await waitFor(
      async () => {
        const found = await paymentSuccesses(env, merchant, 161000);
        return found.length > 0 ? found : undefined;
      },
      30_000,
      250,
    );
    expect(successes).toHaveLength(1);
    const txId = successes[0]?.data.txId as string;

    await page.goto(`${env.gatewayUrl}/pay/account?lang=es`);
    expect(await byTestId(page, 'account-subscription').getAttribute('data-status')).toBe('active');
    expect(await byTestId(page, 'account-subscription-card').getAttribute('data-last4')).toBe('4242');
    const payment = page.locator(`[data-testid="account-payment"][data-id="${txId}"]`);
    expect(await payment.count()).toBe(1);
    expect(await byTestId(page, 'account-payment').count()).toBe(2);
    await screenshot(page, 'customer/account-es');
    await expectAccessible(page, 'account page after the change');
    await payment.locator('[data-testid="account-receipt"]').click();
    await byTestId(page, 'account-receipt-page').waitFor({ timeout: 15_000 });
    expect(await byTestId(page, 'account-receipt-id').textContent()).toBe(txId);
    expect(await byTestId(page, 'account-receipt-method').textContent()).toContain('4242');
    expect(await byTestId(page, 'account-receipt-amount').textContent()).toContain('161.000');
    await screenshot(page, 'customer/receipt-es');
    await expectAccessible(page, 'receipt');

    // The same pages in English.
    await page.goto(`${env.gatewayUrl}/pay/account?lang=en`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await screenshot(page, 'customer/account-en');
    await expectAccessible(page, 'English account page');
    await page.goto(`${env.gatewayUrl}/pay/account/subscriptions/${subscriptionId}/card?lang=en`);
    await byTestId(page, 'account-card-change').waitFor({ timeout: 15_000 });
    await screenshot(page, 'customer/card-change-en');
    await page.goto(`${env.gatewayUrl}/pay/account/payments/${txId}?lang=en`);
    expect(await byTestId(page, 'account-receipt-amount').textContent()).toContain('161,000');
    await screenshot(page, 'customer/receipt-en');
    await expectAccessible(page, 'English receipt');
    expect(second.number).toBe(2);
    await context.close();
  }, 240_000);

  it('a saved card picked on PROCESSOR_A, submitted from two tabs at once: one charge', async () => {
    const email = 'bruno.account@example.com';
    const link = await api.link(merchant, monthly('Clases de natación', 172000, 162000, email));
    const context = await newCustomer(env, 'es-PY');
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, email);
    // …0341 approves one first payment per sandbox (the first scenario's): this one by the sandbox's override.
    await fetch(`${env.sandboxUrl}/__sandbox/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ last4: '0341', codes: ['00'] }),
    });
    await payOnProcessorA(page, CARD_0341);
    // A second card saved on PROCESSOR_A by a one-off payment.
    const oneOff = await api.link(merchant, {
      label: 'Toalla',
      amount: 15000,
      handleValue: email,
      handleLabel: 'Bruno',
      singlePayment: true,
      creditAndDebitCard: true,
      recurrentPayment: false,
    });
    await page.goto(oneOff.publicPayUrl);
    await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
    await payOnProcessorA(page, CARDS.approvedMastercard, { save: true });
    await declineSecondInstallment(merchant, link.id);

    await page.goto(`${env.gatewayUrl}/pay/account/cards?lang=es`);
    // The card the subscription uses says so, and warns before a removal.
    const used = page.locator('[data-testid="account-card"][data-last4="0341"]');
    expect(await used.locator('[data-testid="account-card-used-by"]').textContent()).toContain(
      'Clases de natación',
    );
    expect(await used.locator('[data-testid="account-card-remove-warning"]').count()).toBe(1);

    await page.goto(`${env.gatewayUrl}/pay/account?lang=es`);
    await byTestId(page, 'account-change-card').click();
    await byTestId(page, 'account-card-change').waitFor({ timeout: 15_000 });
    const other = await context.newPage();
    await other.goto(page.url());
    const pick = (tab: Page) => tab.locator('[data-testid="pay-saved-card"][data-last4="4444"]');
    await pick(other).waitFor({ timeout: 15_000 });
    await Promise.all([pick(page).click(), pick(other).click()]);
    await Promise.all([
      byTestId(page, 'account-notice').waitFor({ timeout: 30_000 }),
      byTestId(other, 'account-notice').waitFor({ timeout: 30_000 }),
    ]);
    await paidAndActive(merchant, link.id);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const approved = await chargesOf(env, '162000');
    expect(approved, JSON.stringify(approved)).toHaveLength(1);
    expect(approved[0]).toMatchObject({ processor: 'PARAGUAY.PROCESSOR_A', last4: '4444' });
    await waitFor(
      async () => ((await paymentSuccesses(env, merchant, 162000)).length === 1 ? true : undefined),
      30_000,
      250,
    );
    await context.close();
  }, 240_000);

  it('cancels a subscription only where the merchant allows it; the merchant hears who cancelled', async () => {
    const allowing = await api.merchant({ name: 'Club del Lago', customerCancelAllowed: true });
    const email = 'fabio.account@example.com';
    const link = await api.link(allowing, monthly('Plan del club', 176000, 166000, email));
    const context = await newCustomer(env, 'es-PY');
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, email);
    await payOnProcessorA(page, CARDS.approved);
    const subscription = await activeSubscription(allowing, link.id);
    await page.goto(`${env.gatewayUrl}/pay/account?lang=es`);
    await byTestId(page, 'account-cancel').click();
    await byTestId(page, 'account-notice').waitFor({ timeout: 15_000 });
    expect(await byTestId(page, 'account-subscription').getAttribute('data-status')).toBe('cancelled');
    expect(await byTestId(page, 'account-cancel').count()).toBe(0);
    expect((await api.subscriptionOf(allowing, link.id))?.status).toBe('cancelled');
    const cancelled = await waitFor(
      async () => {
        const rows = await env.sql<Array<{ body: string }>>`
          select body from gateway.webhook_events
          where merchant_id = ${allowing.id} and kind = 'SUBSCRIPTION_CANCELLED'`;
        return rows.length > 0
          ? rows.map((row) => JSON.parse(row.body) as { data: Record<string, unknown> })
          : undefined;
      },
      30_000,
      250,
    );
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.data).toMatchObject({ reason: 'customer', subscriptionStatus: 'cancelled' });
    expect(subscription.id).toBeGreaterThan(0);
    await context.close();
  }, 240_000);

  it('a customer sees nothing of another customer or another merchant (404)', async () => {
    const otherMerchant = await api.merchant({ name: 'Club Norte' });
    // Three customers who each subscribe: A1 and A2 at the merchant, B1 at the other merchant.
    const subscribe = async (owner: Merchant, email: string, amount: number) => {
      const link = await api.link(owner, monthly('Plan', amount, amount - 10000, email));
      const context = await newCustomer(env, 'es-PY');
      const page = await context.newPage();
      await page.goto(link.publicPayUrl);
      await signIn(page, email);
      await payOnProcessorA(page, CARDS.approved, {});
      const subscription = await activeSubscription(owner, link.id);
      await page.goto(`${env.gatewayUrl}/pay/account?lang=es`);
      const payment = await byTestId(page, 'account-payment').first().getAttribute('data-id');
      await page.goto(`${env.gatewayUrl}/pay/account/cards?lang=es`);
      const card = await byTestId(page, 'account-card').first().getAttribute('data-payment-method-id');
      return { context, page, subscriptionId: subscription.id, payment, card };
    };
    const a1 = await subscribe(merchant, 'carla.account@example.com', 173000);
    const a2 = await subscribe(merchant, 'dario.account@example.com', 174000);
    const b1 = await subscribe(otherMerchant, 'elena.account@example.com', 175000);

    for (const other of [a2, b1]) {
      const card = await a1.page.goto(
        `${env.gatewayUrl}/pay/account/subscriptions/${other.subscriptionId}/card`,
      );
      expect(card?.status()).toBe(404);
      const receipt = await a1.page.goto(`${env.gatewayUrl}/pay/account/payments/${other.payment}`);
      expect(receipt?.status()).toBe(404);
      // Removing another's card: the page's own form, pointed at that card.
      await a1.page.goto(`${env.gatewayUrl}/pay/account/cards?lang=es`);
      const [removal] = await Promise.all([
        a1.page.waitForNavigation(),
        a1.page.evaluate(
          `(() => { const form = document.querySelector('[data-testid="account-card"] form');
            form.action = '/pay/account/cards/${other.card}/remove'; form.submit(); })()`,
        ),
      ]);
      expect(removal?.status()).toBe(404);
    }
    // Its own are there.
    const own = await a1.page.goto(`${env.gatewayUrl}/pay/account/payments/${a1.payment}`);
    expect(own?.status()).toBe(200);
    await a1.page.goto(`${env.gatewayUrl}/pay/account`);
    expect(await byTestId(a1.page, 'account-subscription').count()).toBe(1);
    expect(await byTestId(a1.page, 'account-cancel').count()).toBe(0);
    for (const customer of [a1, a2, b1]) await customer.context.close();
  }, 240_000);
});
