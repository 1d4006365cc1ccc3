import type { Page } from 'playwright-core';
import { waitFor } from '@payrail/testing';
import { type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '@payrail/testing/smtp';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  billingRun,
  type BrowserSystem,
  byTestId,
  CARDS,
  chargesOf,
  fillCardForm,
  MerchantApi,
  newCustomer,
  paymentSuccesses,
  processorFrame,
  startBrowserSystem,
} from './harness';

// Issue 29's recovery path in Debian's Chromium, the mail leaving through a real SMTP server the test runs:
// a subscription paid with card …0341, installment 2 declined on its as-of run, the "payment failed" e-mail
// received by the SMTP server; its signed link opened in a browser with no session (no login code) leads to
// the card change, where 4242 registered on PROCESSOR_B's redirect flow pays installment 2 once (the
// sandbox's ledger), the subscription is active again and the merchant hears PAYMENT_SUCCESS. The same link
// opened again is refused, and so is a fresh one (from a second decline) opened 8 simulated days later.

const chromium = inject('chromium');
const CARD_0341 = '4000000000000341';
const EMAIL = 'ana.recovery@example.com';
const FIRST = 168000;
const INSTALLMENT = 158000;

let smtp: TestSmtpServer;
let env: BrowserSystem;
let api: MerchantApi;

const kindOf = (mail: ReceivedMail) => mail.parsed.headers.get('x-payrail-email-kind');
const mailsTo = (email: string) => smtp.received.filter((mail) => mail.to.includes(email));
const mailsOfKind = (email: string, kind: string) => mailsTo(email).filter((mail) => kindOf(mail) === kind);

/** The one `href` of an e-mail's HTML marked `data-action`. */
function actionLink(mail: ReceivedMail): string {
  const marked = [...String(mail.parsed.html).matchAll(/<a\b[^>]*>/g)]
    .map((match) => match[0])
    .filter((tag) => tag.includes('data-action'));
  expect(marked).toHaveLength(1);
  return /href="([^"]+)"/.exec(marked[0] ?? '')?.[1]?.replace(/&amp;/g, '&') ?? '';
}

/** On a link's page: sign in with the one-time code the SMTP server received. */
async function signIn(page: Page, email: string): Promise<void> {
  await byTestId(page, 'pay-sign-in').click();
  const before = mailsTo(email).length;
  await byTestId(page, 'login-email').fill(email);
  await byTestId(page, 'login-send').click();
  await byTestId(page, 'login-code').waitFor({ timeout: 15_000 });
  const code = await waitFor(
    () => {
      const mail = mailsTo(email)
        .slice(before)
        .find((received) => !kindOf(received));
      return mail ? /\b(\d{6})\b/.exec(mail.parsed.text ?? '')?.[1] : undefined;
    },
    15_000,
    100,
  );
  await byTestId(page, 'login-code').fill(code);
  await byTestId(page, 'login-verify').click();
  await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
}

function daysAfter(date: string, days: number): string {
  const at = new Date(`${date}T12:00:00Z`);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

describe.skipIf(!chromium.available)('the recovery path of a declined installment (issue 29)', () => {
  beforeAll(async () => {
    if (!chromium.available) return;
    smtp = await startTestSmtpServer();
    env = await startBrowserSystem(chromium.path, {
      env: {
        SIMULATED_TIME: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'payrail <no-reply@payrail.test>',
        CUSTOMER_EMAIL_RELAY_MS: '200',
      },
    });
    api = new MerchantApi(env);
  }, 180_000);
  afterAll(async () => {
    await env?.stop();
    await smtp?.stop();
  }, 60_000);
  afterEach(({ task }) => {
    if (task.result?.state !== 'fail' || !env) return;
    console.log(`the services' last log lines:\n${env.system.logs.slice(-60).join('\n')}`);
  });

  it('the payment-failed e-mail’s link changes the card (4242 on PROCESSOR_B): paid once, once', async () => {
    const merchant = await api.merchant({ name: 'Gimnasio del Sur' });
    const link = await api.link(merchant, {
      label: 'Plan mensual',
      amount: FIRST,
      handleValue: EMAIL,
      handleLabel: 'Ana Gómez',
      singlePayment: false,
      creditAndDebitCard: true,
      recurrentPayment: true,
      recurrentPaymentType: 'STATIC',
      installmentAmount: INSTALLMENT,
      totalPeriods: 3,
      dayOfMonth: 10,
      monthForSecondInstallment: 1,
    });

    // Subscribes with …0341 on PROCESSOR_A's iframe (the sandbox approves its first payment only).
    const signedIn = await newCustomer(env, 'es-PY');
    const payPage = await signedIn.newPage();
    await payPage.goto(link.publicPayUrl);
    await signIn(payPage, EMAIL);
    await byTestId(payPage, 'pay-processor-PROCESSOR_A').check();
    await byTestId(payPage, 'pay-submit').click();
    await fillCardForm(await processorFrame(env, payPage), { number: CARD_0341 });
    await payPage.locator('[data-testid="pay-status"][data-status="paid"]').waitFor({ timeout: 40_000 });
    await signedIn.close();
    const subscription = await waitFor(
      async () => {
        const found = await api.subscriptionOf(merchant, link.id);
        return found?.status === 'active' ? found : undefined;
      },
      40_000,
      200,
    );
    const installment = (number: number) =>
      subscription.installments.find((row) => row.number === number) as { paymentDate: string };

    // Installment 2 declined on its as-of run: the "payment failed" e-mail reaches the SMTP server.
    expect(await billingRun(env, merchant, installment(2).paymentDate)).toMatchObject({ due: 1, failed: 1 });
    const failed = await waitFor(() => mailsOfKind(EMAIL, 'payment-failed')[0], 30_000, 200);
    expect(failed.parsed.text).toContain('0341');
    const careUrl = actionLink(failed);
    expect(new URL(careUrl).pathname).toMatch(/^\/pay\/care\/[^/]+$/);
    expect(await chargesOf(env, String(INSTALLMENT))).toHaveLength(0);

    // A browser with no session opens the link: the card change, without a login code.
    const customer = await newCustomer(env, 'es-PY');
    const page = await customer.newPage();
    await page.goto(careUrl);
    await byTestId(page, 'account-card-change').waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${env.gatewayUrl}/pay/account/subscriptions/${subscription.id}/card`);
    expect(await byTestId(page, 'login-code').count()).toBe(0);
    expect(await byTestId(page, 'account-declined-installment').count()).toBe(1);

    // 4242 registered on PROCESSOR_B's own page (the redirect flow).
    await byTestId(page, 'pay-processor-PROCESSOR_B').check();
    await byTestId(page, 'pay-submit').click();
    await page.waitForURL((url) => url.origin === new URL(env.sandboxUrl).origin, { timeout: 15_000 });
    await fillCardForm(page, { number: CARDS.approved });
    await byTestId(page, 'account-notice').waitFor({ timeout: 30_000 });
    expect(page.url()).toContain('/pay/account');

    // Installment 2 paid once with 4242, the subscription active again, the merchant told.
    await waitFor(
      async () => {
        const found = await api.subscriptionOf(merchant, link.id);
        const second = found?.installments.find((row) => row.number === 2);
        return found?.status === 'active' && second?.status === 'paid' ? true : undefined;
      },
      60_000,
      250,
    );
    const successes = await waitFor(
      async () => {
        const found = await paymentSuccesses(env, merchant, INSTALLMENT);
        return found.length > 0 ? found : undefined;
      },
      30_000,
      250,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const approved = await chargesOf(env, String(INSTALLMENT));
    expect(approved, JSON.stringify(approved)).toHaveLength(1);
    expect(approved[0]).toMatchObject({ processor: 'PARAGUAY.PROCESSOR_B', last4: '4242' });
    expect(await paymentSuccesses(env, merchant, INSTALLMENT)).toHaveLength(successes.length);
    expect(successes).toHaveLength(1);
    expect(await byTestId(page, 'account-subscription').getAttribute('data-status')).toBe('active');

    // The same link again, in a browser with no session: refused, and it opens no session.
    const again = await newCustomer(env, 'es-PY');
    const second = await again.newPage();
    const reused = await second.goto(careUrl);
    expect(reused?.status()).toBe(409);
    expect(await second.locator('main').textContent()).toContain('Enlace ya usado');
    await second.goto(`${env.gatewayUrl}/pay/account/subscriptions/${subscription.id}/card`);
    expect(await byTestId(second, 'account-card-change').count()).toBe(0);

    // A fresh link: installment 3 declined on its as-of run (the sandbox told to refuse 4242 once), then
    // opened after an as-of run 8 days later: past its 7 simulated days, refused.
    await fetch(`${env.sandboxUrl}/__sandbox/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ last4: '4242', codes: ['51'] }),
    });
    expect(await billingRun(env, merchant, installment(3).paymentDate)).toMatchObject({ due: 1, failed: 1 });
    const secondFailed = await waitFor(() => mailsOfKind(EMAIL, 'payment-failed')[1], 30_000, 200);
    const freshUrl = actionLink(secondFailed);
    expect(freshUrl).not.toBe(careUrl);
    await billingRun(env, merchant, daysAfter(installment(3).paymentDate, 8));
    const late = await again.newPage();
    const expired = await late.goto(freshUrl);
    expect(expired?.status()).toBe(409);
    expect(await late.locator('main').textContent()).toContain('Enlace vencido');
    await customer.close();
    await again.close();
  }, 180_000);
});
