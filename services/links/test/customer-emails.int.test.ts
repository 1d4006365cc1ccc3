import { randomUUID } from 'node:crypto';
import {
  createEvent,
  type EventEnvelope,
  type EventInput,
  type EventType,
  type MerchantContext,
} from '@payrail/contracts';
import {
  aMerchant,
  aSignedInUserRequest,
  testRabbitMqBus,
  type TestRabbitMqBus,
  type ServiceUnderTest,
  startService,
  testClock,
  waitFor,
} from '@payrail/testing';
import { type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '@payrail/testing/smtp';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL_CUSTOMERS_CONSUMER } from '../src/adapters/messaging/mail-customers-on-account-events.consumer';
import { hashSessionToken } from '../src/application/login-codes';
import { linksService } from '../src/service';

// The customer e-mails (issue 29) end to end inside links: events on a real RabbitMQ (each delivered twice),
// the mail outbox on a real PostgreSQL, and a real SMTP server process that the mail reaches over STARTTLS.

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let bus: TestRabbitMqBus;
let svc: ServiceUnderTest;
let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  bus = testRabbitMqBus('links_emails');
  svc = await startService(linksService, {
    bus,
    clock,
    env: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'payrail <no-reply@payrail.test>',
      SIMULATED_TIME: 'true',
      CUSTOMER_EMAIL_RELAY_MS: '100',
      CUSTOMER_EMAIL_SWEEP_MS: '0',
      CUSTOMER_EMAIL_RETRY_SCHEDULE: '60000',
    },
  });
});
afterAll(async () => {
  await svc?.stop();
  await bus?.removeTopology();
  await smtp?.stop();
});

/** Publishes the event twice under one message id: a redelivery must send nothing twice. */
async function deliverTwice<T extends EventType>(type: T, data: EventInput<T>): Promise<EventEnvelope> {
  const event = createEvent(type, data, clock.now());
  for (let i = 0; i < 2; i += 1) await bus.publish({ id: event.id, type, body: JSON.stringify(event) });
  return event;
}

const kindOf = (mail: ReceivedMail) => mail.parsed.headers.get('x-payrail-email-kind');
const mailsTo = (email: string) => smtp.received.filter((mail) => mail.to.includes(email));

async function handled(count: number): Promise<void> {
  // Each event goes through the consumer's inbox once (the second delivery is acked without running).
  await waitFor(async () => {
    const rows = await svc.database.db.execute(
      sql`select count(*)::int as n from links.inbox where consumer = ${MAIL_CUSTOMERS_CONSUMER}`,
    );
    const n = (Array.isArray(rows) ? rows[0] : (rows as { rows: Array<{ n: number }> }).rows[0]) as {
      n: number;
    };
    return n.n >= count;
  }, 15_000);
}

let events = 0;
async function deliver<T extends EventType>(type: T, data: EventInput<T>) {
  const event = await deliverTwice(type, data);
  events += 1;
  await handled(events);
  return event;
}

interface Customer {
  merchant: MerchantContext;
  email: string;
  linkId: number;
  subscriptionId: number;
  installments: number[];
  paymentMethodId: string;
}

let nextSubscription = 7000;
let nextInstallment = 90000;

/** A customer the merchant signed in, their subscription of three installments, and their card …0341. */
async function customerWithSubscription(
  merchant: MerchantContext,
  email: string,
  card: { expiryMonth: number; expiryYear: number } = { expiryMonth: 12, expiryYear: 2026 },
): Promise<Customer> {
  const created = await svc.request('POST', '/api/ext-app/payrequests/signed-in-user', {
    merchant,
    body: aSignedInUserRequest({
      label: 'Plan Gimnasio',
      signedInUser: { email, firstName: 'Ana', lastName: 'Gómez' },
    }),
  });
  expect(created.status).toBe(200);
  const { id: linkId } = (await created.json()) as { id: number };
  const subscriptionId = ++nextSubscription;
  const installments = [++nextInstallment, ++nextInstallment, ++nextInstallment];
  const customerRow = await svc.database.db.execute(
    sql`select customer_id from links.payment_links where id = ${linkId}`,
  );
  const customerId = Number(
    (
      (Array.isArray(customerRow) ? customerRow[0] : (customerRow as { rows: unknown[] }).rows[0]) as {
        customer_id: string;
      }
    ).customer_id,
  );
  const base = {
    subscriptionId,
    merchantId: merchant.merchantId,
    linkId,
    type: 'STATIC' as const,
    customIdentifier: null,
    customIdentifier2: null,
    currency: 'PYG' as const,
    timezone: merchant.timezone,
  };
  await deliver('subscription.created', {
    ...base,
    status: 'pending',
    totalPeriods: 3,
    installments: [
      { installmentId: installments[0] as number, number: 1, paymentDate: '2026-11-22', amount: '150000.00' },
      { installmentId: installments[1] as number, number: 2, paymentDate: '2026-12-05', amount: '150000.00' },
      { installmentId: installments[2] as number, number: 3, paymentDate: '2027-01-05', amount: '150000.00' },
    ],
  });
  const paymentMethodId = randomUUID();
  await deliver('payment-method.saved', {
    paymentMethodId,
    merchantId: merchant.merchantId,
    customerId,
    processor: 'PARAGUAY.PROCESSOR_A',
    maskedNumber: '400000******0341',
    last4: '0341',
    brand: 'Visa',
    ...card,
    savedAt: clock.now().toISOString(),
  });
  await deliver('link.paid', {
    linkId,
    merchantId: merchant.merchantId,
    amount: '150000.00',
    currency: 'PYG',
    paidAt: clock.now().toISOString(),
    txId: randomUUID(),
    recurrent: true,
    method: 'CARD',
    processor: 'PARAGUAY.PROCESSOR_A',
    paymentMethodId,
    chargeId: randomUUID(),
    customerId,
  });
  await deliver('subscription.activated', {
    ...base,
    status: 'active',
    activatedAt: clock.now().toISOString(),
  });
  return { merchant, email, linkId, subscriptionId, installments, paymentMethodId };
}

const asOfRun = (merchant: MerchantContext, asOf: string) =>
  deliver('billing-run.started', {
    runId: randomUUID(),
    merchantId: merchant.merchantId,
    asOf,
    startedAt: clock.now().toISOString(),
  });

function actionHref(mail: ReceivedMail): string {
  const html = String(mail.parsed.html);
  const hrefs = [...html.matchAll(/<a\b[^>]*href="([^"]+)"[^>]*>/g)];
  const marked = hrefs.filter((match) => match[0].includes('data-action'));
  expect(marked).toHaveLength(1);
  return (marked[0] as RegExpMatchArray)[1] as string;
}

const pathOf = (url: string) => new URL(url).pathname;

describe('the e-mails of a subscription, each once though every event is delivered twice', () => {
  const merchant = aMerchant({
    name: 'Gimnasio Centro',
    saasContract: true,
    contactEmail: 'hola@gimnasio.test',
    customerEmails: {
      receipt: true,
      paymentFailed: true,
      upcomingDebit: true,
      cardExpiring: true,
      pastDue: true,
      cancelled: true,
      upcomingDebitDays: 3,
    },
  });
  let customer: Customer;
  let failedLink = '';
  let expiringLink = '';

  it('a receipt for the link payment, from the merchant by name, replies to its contact address', async () => {
    customer = await customerWithSubscription(merchant, 'ana@cliente.test');
    const [receipt] = await waitFor(
      () => mailsTo('ana@cliente.test').length >= 1 && mailsTo('ana@cliente.test'),
    );
    expect(kindOf(receipt as ReceivedMail)).toBe('receipt');
    const parsed = (receipt as ReceivedMail).parsed;
    expect(parsed.from?.value[0]).toMatchObject({
      name: 'Gimnasio Centro',
      address: 'no-reply@payrail.test',
    });
    expect(parsed.replyTo?.value[0]?.address).toBe('hola@gimnasio.test');
    expect(parsed.subject).toBe('Recibo de tu pago: Plan Gimnasio');
    expect(parsed.text).toContain('Visa terminada en 0341');
    expect(parsed.text).toContain('Gs.\u00a0150.000');
    expect(String(parsed.html)).toContain('Visa terminada en 0341');
    expect(String(parsed.html)).not.toContain('data-action');
    expect(parsed.text).not.toMatch(/400000/);
    expect((receipt as ReceivedMail).secure).toBe(true);
  });

  it('the reminder goes 3 days before the debit, as of the as-of runs, once', async () => {
    await asOfRun(merchant, '2026-12-01');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(customer.email).map(kindOf)).toEqual(['receipt']);
    await asOfRun(merchant, '2026-12-02');
    await asOfRun(merchant, '2026-12-03');
    const mails = await waitFor(() => mailsTo(customer.email).length >= 2 && mailsTo(customer.email));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(customer.email).map(kindOf)).toEqual(['receipt', 'upcoming-debit']);
    expect(mails[1]?.parsed.subject).toBe('Tu próximo pago de Plan Gimnasio es el 05/12/2026');
  });

  it('a declined installment: why in plain words and one signed link to the card change', async () => {
    await deliver('payment.failed', {
      idempotencyKey: `installment:${customer.installments[1]}:attempt:1`,
      chargeId: randomUUID(),
      merchantId: merchant.merchantId,
      processor: 'PARAGUAY.PROCESSOR_A',
      amount: '150000.00',
      currency: 'PYG',
      installmentId: customer.installments[1] as number,
      attempt: 1,
      linkId: null,
      paymentMethodId: customer.paymentMethodId,
      failedAt: clock.now().toISOString(),
      retryable: true,
      declineCode: '51',
      category: 'soft',
    });
    const mails = await waitFor(() => mailsTo(customer.email).length >= 3 && mailsTo(customer.email));
    const failed = mails[2] as ReceivedMail;
    expect(kindOf(failed)).toBe('payment-failed');
    expect(failed.parsed.text).toContain('fondos insuficientes');
    // The processor's code (51) is not in the words; the signed link's random token may hold those digits.
    expect((failed.parsed.text ?? '').replace(/https?:\/\/\S+/g, '')).not.toContain('51');
    failedLink = actionHref(failed);
    expect(failedLink).toMatch(/^http:\/\/pay\.test\/pay\/care\/[\w-]+\.[\w-]+$/);
    expect(failed.parsed.text).toContain(failedLink);
  });

  it('the signed link: edited by one character refused; then it opens a session and the card change, once', async () => {
    const path = pathOf(failedLink);
    const last = path.at(-1) === 'A' ? 'B' : 'A';
    const edited = await svc.request('GET', `${path.slice(0, -1)}${last}`);
    expect(edited.status).toBe(404);
    expect(await edited.text()).toContain('Enlace no válido');

    const opened = await svc.request('GET', path);
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/pay/account/subscriptions/${customer.subscriptionId}/card`);
    const cookie = opened.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/payrail_session=[\w-]+/);
    const token = /payrail_session=([\w-]+)/.exec(cookie)?.[1] ?? '';
    const sessions = await svc.database.db.execute(sql`
      select s.customer_id, s.merchant_id, c.email from links.customer_sessions s
      join links.customers c on c.id = s.customer_id
      where s.token_hash = ${hashSessionToken(token)}`);
    const rows = Array.isArray(sessions) ? sessions : (sessions as { rows: unknown[] }).rows;
    expect(rows).toEqual([
      expect.objectContaining({ merchant_id: merchant.merchantId, email: 'ana@cliente.test' }),
    ]);

    const again = await svc.request('GET', path);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Enlace ya usado');
    const stored = await svc.database.db.execute(sql`select token_hash from links.care_links`);
    expect(JSON.stringify(stored)).not.toContain(path.split('/').at(-1) as string);
  });

  it('a receipt per installment paid; the card expiring before the next debit is told once', async () => {
    await deliver('installment.paid', {
      merchantId: merchant.merchantId,
      subscriptionId: customer.subscriptionId,
      installmentId: customer.installments[1] as number,
      number: 2,
      paymentDate: '2026-12-05',
      amount: '150000.00',
      currency: 'PYG',
      status: 'paid',
      invoiceNumber: null,
      timezone: merchant.timezone,
      paidAt: '2026-12-06T13:00:00.000Z',
      method: 'CARD',
      chargeAttempt: 2,
      txId: randomUUID(),
    });
    await asOfRun(merchant, '2026-12-06');
    await asOfRun(merchant, '2026-12-07');
    const mails = await waitFor(() => mailsTo(customer.email).length >= 5 && mailsTo(customer.email));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(customer.email).map(kindOf)).toEqual([
      'receipt',
      'upcoming-debit',
      'payment-failed',
      'receipt',
      'card-expiring',
    ]);
    expect(mails[3]?.parsed.text).toContain('cuota 2');
    expect(mails[4]?.parsed.text).toContain('Visa terminada en 0341 vence en 12/2026');
    expiringLink = actionHref(mails[4] as ReceivedMail);
  });

  it('a signed link is refused after 7 days of the merchant’s simulated time', async () => {
    await asOfRun(merchant, '2026-12-14');
    const late = await svc.request('GET', pathOf(expiringLink));
    expect(late.status).toBe(409);
    expect(await late.text()).toContain('Enlace vencido');
  });

  it('the merchant reads them at GET /api/customer-emails, filtered and paged', async () => {
    const all = await svc.request('GET', '/api/customer-emails?limit=2', { merchant });
    expect(all.status).toBe(200);
    const page = (await all.json()) as {
      emails: Array<{ kind: string; status: string }>;
      nextCursor: string;
    };
    expect(page.emails.map((e) => e.kind)).toEqual(['card-expiring', 'receipt']);
    const next = await svc.request('GET', `/api/customer-emails?limit=10&cursor=${page.nextCursor}`, {
      merchant,
    });
    const rest = (await next.json()) as { emails: Array<{ kind: string }>; nextCursor: string | null };
    expect(rest.emails.map((e) => e.kind)).toEqual(['payment-failed', 'upcoming-debit', 'receipt']);
    expect(rest.nextCursor).toBeNull();
    const failed = await svc.request('GET', '/api/customer-emails?kind=payment-failed', { merchant });
    const body = (await failed.json()) as { emails: Array<{ status: string; attempts: number; to: string }> };
    expect(body.emails).toEqual([
      expect.objectContaining({ status: 'sent', attempts: 1, to: 'ana@cliente.test' }),
    ]);
    const other = await svc.request('GET', '/api/customer-emails', { merchant: aMerchant() });
    expect(((await other.json()) as { emails: unknown[] }).emails).toEqual([]);
  });
});

describe('SMTP down for a simulated day, then up', () => {
  it('every e-mail is sent once, in order per customer', async () => {
    const merchant = aMerchant({ name: 'Club Norte', saasContract: true });
    await smtp.stop();
    const bea = await customerWithSubscription(merchant, 'bea@cliente.test');
    const ciro = await customerWithSubscription(merchant, 'ciro@cliente.test');
    await deliver('subscription.cancelled', {
      subscriptionId: bea.subscriptionId,
      merchantId: merchant.merchantId,
      linkId: bea.linkId,
      type: 'STATIC',
      status: 'cancelled',
      customIdentifier: null,
      customIdentifier2: null,
      currency: 'PYG',
      timezone: merchant.timezone,
      reason: 'merchant',
    });
    // Tried and failed: pending with the failure kept, the next try a minute of the clock later. Each
    // customer's first is tried (both, not just one: the sender may reach the second a moment later); a
    // customer's second waits behind the first and is not tried.
    await waitFor(async () => {
      const response = await svc.request('GET', '/api/customer-emails?status=pending', { merchant });
      const { emails } = (await response.json()) as {
        emails: Array<{ attempts: number; lastError: string | null }>;
      };
      return (
        emails.length === 3 && emails.filter((e) => e.attempts >= 1 && e.lastError !== null).length === 2
      );
    });
    const before = smtp.received.length;
    clock.advance(24 * 3_600_000);
    await smtp.start();
    await waitFor(
      () => mailsTo('bea@cliente.test').length >= 2 && mailsTo('ciro@cliente.test').length >= 1,
      15_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(mailsTo('bea@cliente.test').map(kindOf)).toEqual(['receipt', 'cancelled']);
    expect(mailsTo('ciro@cliente.test').map(kindOf)).toEqual(['receipt']);
    expect(smtp.received.length - before).toBe(3);
    const response = await svc.request('GET', '/api/customer-emails?status=sent', { merchant });
    const { emails } = (await response.json()) as { emails: Array<{ attempts: number }> };
    expect(emails).toHaveLength(3);
    // The first of each customer was tried while the server was down; Bea's second waited behind hers.
    expect(emails.map((e) => e.attempts).sort()).toEqual([1, 2, 2]);
    expect(ciro.linkId).toBeGreaterThan(0);
  });
});

describe('the merchant’s switches, a transfer’s receipt, past due', () => {
  it('sends only the kinds switched on; a bank transfer’s receipt says so; past due links to the card change', async () => {
    const merchant = aMerchant({
      name: 'Club Sur',
      saasContract: true,
      customerEmails: {
        receipt: true,
        paymentFailed: true,
        upcomingDebit: false,
        cardExpiring: false,
        pastDue: true,
        cancelled: true,
        upcomingDebitDays: 3,
      },
    });
    const dora = await customerWithSubscription(merchant, 'dora@cliente.test');
    await deliver('installment.paid', {
      merchantId: merchant.merchantId,
      subscriptionId: dora.subscriptionId,
      installmentId: dora.installments[1] as number,
      number: 2,
      paymentDate: '2026-12-05',
      amount: '150000.00',
      currency: 'PYG',
      status: 'paid',
      invoiceNumber: null,
      timezone: merchant.timezone,
      paidAt: '2026-12-04T13:00:00.000Z',
      method: 'BANK_TRANSFER',
      bankReference: 'TRF-1',
      bankTransfer: {
        reference: 'TRF-1',
        bankName: 'Banco Nacional',
        transferDate: '2026-12-04',
        note: null,
      },
      txId: randomUUID(),
    });
    // Three days before installment 3, its card expired by then: both reminders are off for this merchant.
    await asOfRun(merchant, '2027-01-02');
    await deliver('subscription.past-due', {
      subscriptionId: dora.subscriptionId,
      merchantId: merchant.merchantId,
      linkId: dora.linkId,
      type: 'STATIC',
      status: 'past_due',
      customIdentifier: null,
      customIdentifier2: null,
      currency: 'PYG',
      timezone: merchant.timezone,
      installmentId: dora.installments[2] as number,
      pastDueAt: clock.now().toISOString(),
    });
    const mails = await waitFor(() => mailsTo(dora.email).length >= 3 && mailsTo(dora.email));
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(mailsTo(dora.email).map(kindOf)).toEqual(['receipt', 'receipt', 'past-due']);
    expect(mails[1]?.parsed.text).toContain('Transferencia bancaria');
    expect(mails[1]?.parsed.text).not.toContain('0341');
    expect(actionHref(mails[2] as ReceivedMail)).toMatch(/\/pay\/care\//);
    expect(mails[2]?.parsed.replyTo).toBeUndefined();
  });
});
