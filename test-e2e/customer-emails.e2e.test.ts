import { csrfOf, payPageCustomer } from '@payrail/testing/pay-page';
import { type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '@payrail/testing/smtp';
import { waitFor } from '@payrail/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { schedulerCaughtUp } from './debit-support';
import {
  INTERNAL_SECRET,
  type SystemOnTestInfrastructure,
  startOnTestInfrastructure,
} from './processor-support';
import { type E2eSystem, startSystem } from './support';

// The customer e-mails (issue 29) with every service its own process, on real PostgreSQL and RabbitMQ, the
// mail leaving through a real SMTP server the test runs: a customer signs in by e-mail code (in English),
// subscribes with card …0341, gets the receipt; the as-of run 3 days before installment 2 sends the
// reminder; installment 2 is declined on its as-of run and the "payment failed" e-mail's signed link opens
// the card change with a session, once.

const ADMIN_TOKEN = 'e2e-admin-token-emails-0123456789';
let smtp: TestSmtpServer;
let running: SystemOnTestInfrastructure<E2eSystem>;
let system: E2eSystem;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  running = await startOnTestInfrastructure('e2e_emails', (infrastructure) =>
    startSystem((ports) => ({
      ...infrastructure,
      ADMIN_TOKEN,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: ports.gatewayUrl,
      SIMULATED_TIME: 'true',
      BILLING_RUN_INTERVAL_MS: '0',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'payrail <no-reply@payrail.test>',
      CUSTOMER_EMAIL_RELAY_MS: '200',
      LOG_LEVEL: 'warn',
    })),
  );
  ({ system } = running);
}, 180_000);

afterAll(async () => {
  await running?.stop();
  await smtp?.stop();
}, 60_000);

afterEach(({ task }) => {
  if (task.result?.state !== 'fail' || !system) return;
  console.log(`the services' last log lines:\n${system.logs.slice(-60).join('\n')}`);
});

async function gateway(
  path: string,
  init: { method?: string; token?: string; admin?: boolean; body?: unknown },
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers['api-token'] = init.token;
  if (init.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function run(merchantId: string, asOf: string) {
  await schedulerCaughtUp(running.sql);
  const started = await gateway('/admin/billing/runs', {
    method: 'POST',
    admin: true,
    body: { asOf, merchantId },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return waitFor(
    async () => {
      const current = await gateway(`/admin/billing/runs/${started.body.id}`, { admin: true });
      return current.body.status === 'completed' ? current.body : undefined;
    },
    60_000,
    200,
  );
}

const kindOf = (mail: ReceivedMail) => mail.parsed.headers.get('x-payrail-email-kind');
const mailsTo = (email: string) => smtp.received.filter((mail) => mail.to.includes(email));
const customerMails = (email: string) => mailsTo(email).filter((mail) => kindOf(mail));

function monthDay(offset: number, day: number): string {
  const now = new Date();
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
function daysBefore(date: string, days: number): string {
  const at = new Date(`${date}T12:00:00Z`);
  at.setUTCDate(at.getUTCDate() - days);
  return at.toISOString().slice(0, 10);
}

describe('customer e-mails, services as processes, real SMTP', () => {
  it('receipt, reminder 3 days before, payment failed with a working signed link, each once', async () => {
    const created = await gateway('/admin/merchants', {
      method: 'POST',
      admin: true,
      body: {
        name: 'Gimnasio Centro',
        instance: 'NATIONAL',
        processors: ['PARAGUAY.PROCESSOR_A'],
        contactEmail: 'hola@gimnasio.test',
        customerEmails: { upcomingDebitDays: 3 },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const merchantId = created.body.id as string;
    const token = created.body.apiToken as string;
    const link = await gateway('/api/saleitems/add', {
      method: 'POST',
      token,
      body: {
        label: 'Gym membership',
        amount: 150000,
        handleValue: 'Ana',
        handleLabel: 'Ana',
        singlePayment: false,
        creditAndDebitCard: true,
        recurrentPayment: true,
        installmentAmount: 150000,
        totalPeriods: 3,
        dayOfMonth: 10,
        monthForSecondInstallment: 1,
      },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    const slug = link.body.slug as string;
    const email = 'ana@cliente.test';

    // Signs in by the code mailed to her (through the same SMTP server), browsing in English.
    const ana = payPageCustomer(system.gatewayUrl, 'en-US,en;q=0.9');
    const login = await ana.get(`/pay/${slug}/login`);
    const sent = await ana.post(`/pay/${slug}/login`, { _csrf: csrfOf(login.html), step: 'send', email });
    expect(sent.status).toBe(200);
    const codeMail = await waitFor(() => mailsTo(email)[0]);
    const code = /\b(\d{6})\b/.exec(codeMail.parsed.text ?? '')?.[1] ?? '';
    const verified = await ana.post(`/pay/${slug}/login`, {
      _csrf: csrfOf(sent.html),
      step: 'verify',
      email,
      code,
    });
    expect(verified.status).toBe(303);

    // Subscribes with card …0341 on PROCESSOR_A's form.
    const page = await ana.get(`/pay/${slug}`);
    const opened = await ana.post(`/pay/${slug}/pay`, {
      _csrf: csrfOf(page.html),
      option: 'subscription',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const frame = /<iframe src="([^"]+)"/.exec(opened.html)?.[1]?.replace(/&amp;/g, '&') ?? '';
    const typed = await fetch(`${system.urls['processor-sandbox']}/__sandbox/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        processId: new URL(frame).searchParams.get('process_id'),
        cardNumber: '4000000000000341',
        expiry: '12/30',
        cvv: '123',
      }),
    });
    expect(typed.status).toBe(200);
    const { redirectUrl } = (await typed.json()) as { redirectUrl: string };
    expect((await ana.comeBack(redirectUrl)).location).toBe(`/pay/${slug}/receipt`);

    const receipt = await waitFor(() => customerMails(email)[0], 30_000);
    expect(kindOf(receipt)).toBe('receipt');
    expect(receipt.parsed.subject).toBe('Receipt for your payment: Gym membership');
    expect(receipt.parsed.from?.value[0]).toMatchObject({ name: 'Gimnasio Centro' });
    expect(receipt.parsed.replyTo?.value[0]?.address).toBe('hola@gimnasio.test');
    expect(receipt.parsed.text).toContain('ending in 0341');

    const subscriptions = await gateway(`/api/subscriptions?payRequestId=${link.body.id}`, { token });
    const subscriptionId = (subscriptions.body.subscriptions as Array<{ id: number }>)[0]?.id;
    const debitDay = monthDay(1, 10);

    // The reminder: nothing 4 days before installment 2, one 3 days before (and not again 2 days before).
    await run(merchantId, daysBefore(debitDay, 4));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(customerMails(email).map(kindOf)).toEqual(['receipt']);
    await run(merchantId, daysBefore(debitDay, 3));
    await run(merchantId, daysBefore(debitDay, 2));
    const reminder = await waitFor(() => customerMails(email)[1], 30_000);
    expect(kindOf(reminder)).toBe('upcoming-debit');
    expect(reminder.parsed.subject).toBe(`Your next payment for Gym membership is on ${debitDay}`);

    // Installment 2 declined on its as-of run (…0341 approves a first payment only).
    expect(await run(merchantId, debitDay)).toMatchObject({ due: 1, failed: 1 });
    const failed = await waitFor(() => customerMails(email)[2], 30_000);
    expect(kindOf(failed)).toBe('payment-failed');
    expect(failed.parsed.text).toContain('Your bank did not authorise the charge');
    const hrefs = [...String(failed.parsed.html).matchAll(/<a\b[^>]*href="([^"]+)"[^>]*>/g)];
    expect(hrefs).toHaveLength(1);
    expect(hrefs[0]?.[0]).toContain('data-action');
    const careUrl = hrefs[0]?.[1] ?? '';

    // The link, opened in a browser with no session: a session and the card change, without a code.
    const stranger = payPageCustomer(system.gatewayUrl, 'en-US,en;q=0.9');
    const edited = await stranger.get(`${new URL(careUrl).pathname.slice(0, -1)}x`);
    expect(edited.status).toBe(404);
    const opening = await stranger.get(new URL(careUrl).pathname);
    expect(opening.status).toBe(303);
    expect(opening.location).toBe(`/pay/account/subscriptions/${subscriptionId}/card`);
    const cards = await stranger.get('/pay/account/cards');
    expect(cards.status).toBe(200);
    expect(cards.html).toContain('0341');
    expect((await stranger.get(new URL(careUrl).pathname)).status).toBe(409);

    // Each e-mail once, and what the merchant sees of them.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(customerMails(email).map(kindOf)).toEqual(['receipt', 'upcoming-debit', 'payment-failed']);
    const listed = await gateway('/api/customer-emails', { token });
    expect(listed.status).toBe(200);
    expect(
      (listed.body.emails as Array<{ kind: string; status: string; language: string }>).map((e) => [
        e.kind,
        e.status,
        e.language,
      ]),
    ).toEqual([
      ['payment-failed', 'sent', 'en'],
      ['upcoming-debit', 'sent', 'en'],
      ['receipt', 'sent', 'en'],
    ]);
  }, 240_000);
});
