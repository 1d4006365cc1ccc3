import {
  createTestDatabase,
  csrfOf,
  deleteBrokerTopology,
  payPageCustomer,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// The hosted pay page with every service as its own process, on real PostgreSQL and RabbitMQ, and the
// processor sandbox: a customer's browser played by fetch (cookies kept, redirects followed by hand), the card
// typed through the sandbox's `/__sandbox/complete` (what submitting its hosted form does). The sandbox's
// ledger says how many charges were made.

let testDb: TestDatabase;
let sql: postgres.Sql;
let system: E2eSystem;
let sandboxUrl = '';
const exchange = uniqueName('e2e_pay_events');
const queuePrefix = `${uniqueName('e2e_pay')}.`;

beforeAll(async () => {
  testDb = await createTestDatabase('e2e_pay');
  sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  system = await startSystem((ports) => {
    sandboxUrl = ports.sandboxUrl;
    return {
      DATABASE_URL: testDb.url,
      AMQP_URL: testAmqpUrl(),
      EVENTS_EXCHANGE: exchange,
      QUEUE_PREFIX: queuePrefix,
      DEMO_API_TOKEN: DEMO_TOKEN,
      INTERNAL_SECRET: 'e2e-internal-secret-0123456789',
      PUBLIC_BASE_URL: ports.gatewayUrl,
      DEV_MAILBOX: 'true',
      LOG_LEVEL: 'warn',
    };
  });
});

afterAll(async () => {
  await system?.stop();
  await sql?.end();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'api-token': DEMO_TOKEN },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

async function sandbox<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandboxUrl}/__sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
}

interface LedgerEntry {
  processor: string;
  kind: string;
  amount: string;
  resultCode: string;
  last4: string;
}

async function chargesOf(amount: number): Promise<LedgerEntry[]> {
  const { entries } = await sandbox<{ entries: LedgerEntry[] }>('GET', '/ledger');
  return entries.filter((entry) => entry.kind === 'charge' && Number(entry.amount) === amount);
}

/** A browser on the pay page: a cookie jar and the gateway's origin; redirects are given back, not followed. */
const customer = () => payPageCustomer(system.gatewayUrl);

const DOCUMENT = '4567890';
let amountSeed = 150_000;
/** Each scenario pays an amount of its own, so the shared ledger can be read per scenario. */
const nextAmount = () => (amountSeed += 1_000);

async function linkPaid(linkId: number) {
  const rows = await sql<Array<{ body: string }>>`select body from links.outbox where type = 'link.paid'`;
  return rows
    .map((row) => JSON.parse(row.body) as { data: Record<string, unknown> })
    .map((event) => event.data)
    .filter((data) => data.linkId === linkId);
}

describe('paying a link on the hosted pay page (processes, sandbox)', () => {
  it('one-off with a new card on PROCESSOR_A: a double submit opens one form, one charge, 200, link.paid, back to redirectUrl', async () => {
    const amount = nextAmount();
    const redirectUrl = 'https://shop.example.com/thanks?order=9&from=pay';
    const link = (await api('POST', '/api/saleitems/add', {
      label: 'Cuota <noviembre>',
      amount,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: true,
      creditAndDebitCard: true,
      recurrentPayment: false,
      noLoginRequired: true,
      documentNumber: DOCUMENT,
      redirectUrl,
      paymentMethods: ['PARAGUAY.PROCESSOR_A'],
    })) as { id: number; slug: string };
    const ana = customer();
    await ana.identify(link.slug, DOCUMENT);
    const page = await ana.get(`/pay/${link.slug}`);
    expect(page.html).toContain('Cuota &lt;noviembre&gt;');
    expect(page.html).toMatch(/data-testid="pay-amount">Gs\. \d{3}\.000</);
    const form = { _csrf: csrfOf(page.html), option: 'single', processor: 'PARAGUAY.PROCESSOR_A' };
    const [first, second] = await Promise.all([
      ana.post(`/pay/${link.slug}/pay`, form),
      ana.post(`/pay/${link.slug}/pay`, form),
    ]);
    const frameOf = (html: string) => /<iframe src="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    expect(first.status).toBe(200);
    expect(frameOf(first.html)).toBeDefined();
    expect(frameOf(second.html)).toBe(frameOf(first.html));
    const frameUrl = new URL(frameOf(first.html)!);
    expect(first.headers.get('content-security-policy')).toContain(`frame-src`);
    expect(first.headers.get('content-security-policy')).toContain(frameUrl.origin);
    const processId = frameUrl.searchParams.get('process_id')!;

    const typed = await sandbox<{ outcome: string; redirectUrl: string }>('POST', '/complete', {
      processId,
      cardNumber: '4242424242424242',
      expiry: '12/30',
      cvv: '123',
    });
    expect(typed.outcome).toBe('approved');
    const back = await ana.comeBack(typed.redirectUrl);
    expect(back.location).toBe(redirectUrl);

    expect(((await api('GET', `/api/payrequests/${link.id}`)) as { statusId: number }).statusId).toBe(200);
    const paid = await linkPaid(link.id);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ method: 'CARD', processor: 'PARAGUAY.PROCESSOR_A', recurrent: false });
    expect(paid[0]?.chargeId).toEqual(expect.any(String));
    expect(paid[0]?.customerId).toEqual(expect.any(Number));
    const charges = await chargesOf(amount);
    expect(charges.map((charge) => charge.resultCode)).toEqual(['00']);

    // Paying again after it is paid: nothing more to pay, nothing charged.
    const again = await ana.post(`/pay/${link.slug}/pay`, form);
    expect(again.location).toBe(`/pay/${link.slug}`);
    expect((await ana.get(`/pay/${link.slug}`)).html).toMatch(/data-status="paid"/);
    expect(await chargesOf(amount)).toHaveLength(1);
  });

  it('a declined card makes the link 5 with the reason; the next card pays it', async () => {
    const amount = nextAmount();
    const link = (await api('POST', '/api/saleitems/add', {
      label: 'Declined first',
      amount,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: true,
      creditAndDebitCard: true,
      noLoginRequired: true,
      documentNumber: DOCUMENT,
    })) as { id: number; slug: string };
    const ana = customer();
    await ana.identify(link.slug, DOCUMENT);
    const pay = async () => {
      const page = await ana.get(`/pay/${link.slug}`);
      const opened = await ana.post(`/pay/${link.slug}/pay`, {
        _csrf: csrfOf(page.html),
        option: 'single',
        processor: 'PARAGUAY.PROCESSOR_A',
      });
      return new URL(/<iframe src="([^"]+)"/.exec(opened.html)![1]!.replace(/&amp;/g, '&')).searchParams.get(
        'process_id',
      )!;
    };
    const declined = await sandbox<{ outcome: string; redirectUrl: string }>('POST', '/complete', {
      processId: await pay(),
      cardNumber: '4000000000000002',
    });
    expect(declined.outcome).toBe('declined');
    const back = await ana.comeBack(declined.redirectUrl);
    expect(back.location).toBe(`/pay/${link.slug}`);
    expect(((await api('GET', `/api/payrequests/${link.id}`)) as { statusId: number }).statusId).toBe(5);
    const page = await ana.get(`/pay/${link.slug}`);
    expect(page.html).toMatch(/data-status="rejected"/);
    expect(page.html).toContain('Tu pago fue rechazado');

    const approved = await sandbox<{ outcome: string; redirectUrl: string }>('POST', '/complete', {
      processId: await pay(),
      cardNumber: '5555555555554444',
    });
    expect(approved.outcome).toBe('approved');
    const paidBack = await ana.comeBack(approved.redirectUrl);
    expect(paidBack.location).toBe(`/pay/${link.slug}/receipt`);
    expect(((await api('GET', `/api/payrequests/${link.id}`)) as { statusId: number }).statusId).toBe(200);
    const results = (await chargesOf(amount)).map((charge) => charge.resultCode).sort();
    expect(results).toEqual(['00', '05']);
    expect(await linkPaid(link.id)).toHaveLength(1);
  });

  it('a subscription on PROCESSOR_B: the card registered by redirect, then charged; subscription active', async () => {
    const amount = nextAmount();
    const link = (await api('POST', '/api/saleitems/add', {
      label: 'Gimnasio',
      amount,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: false,
      creditAndDebitCard: true,
      recurrentPayment: true,
      installmentAmount: 100000,
      totalPeriods: 3,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
      noLoginRequired: true,
      documentNumber: DOCUMENT,
      paymentMethods: ['PARAGUAY.PROCESSOR_B'],
    })) as { id: number; slug: string };
    const ana = customer();
    await ana.identify(link.slug, DOCUMENT);
    const page = await ana.get(`/pay/${link.slug}`);
    expect(page.html).toContain('data-testid="pay-schedule-table"');
    const opened = await ana.post(`/pay/${link.slug}/pay`, {
      _csrf: csrfOf(page.html),
      option: 'subscription',
      processor: 'PARAGUAY.PROCESSOR_B',
    });
    expect(opened.status).toBe(303);
    const formUrl = new URL(opened.location!);
    expect(formUrl.origin).toBe(new URL(sandboxUrl).origin);
    const formId = formUrl.pathname.split('/').at(-1)!;
    const registered = await sandbox<{ outcome: string; redirectUrl: string }>('POST', '/complete', {
      hash: formId,
      cardNumber: '5555555555554444',
    });
    expect(registered.outcome).toBe('registered');
    const back = await ana.comeBack(registered.redirectUrl);
    expect(back.location).toBe(`/pay/${link.slug}/receipt`);
    const paid = await linkPaid(link.id);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ recurrent: true, processor: 'PARAGUAY.PROCESSOR_B' });
    expect(paid[0]?.paymentMethodId).toEqual(expect.any(String));
    expect((await chargesOf(amount)).map((charge) => charge.resultCode)).toEqual(['00']);
    await waitFor(
      async () => {
        const [row] = await sql`select status from subscriptions.subscriptions where link_id = ${link.id}`;
        return row?.status === 'active';
      },
      20_000,
      200,
    );

    // A second link of the same customer: the saved card in one click; five clicks at once charge once.
    const secondAmount = nextAmount();
    const second = (await api('POST', '/api/saleitems/add', {
      label: 'Segundo pago',
      amount: secondAmount,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: true,
      creditAndDebitCard: true,
      noLoginRequired: true,
      documentNumber: DOCUMENT,
    })) as { id: number; slug: string };
    const again = customer();
    await again.identify(second.slug, DOCUMENT);
    const secondPage = await again.get(`/pay/${second.slug}`);
    const savedCard =
      /name="savedCard" value="([^"]+)"[^>]*data-testid="pay-saved-card" data-last4="4444"/.exec(
        secondPage.html,
      )?.[1];
    expect(savedCard).toEqual(paid[0]?.paymentMethodId);
    const clicks = await Promise.all(
      Array.from({ length: 5 }, () =>
        again.post(`/pay/${second.slug}/pay`, {
          _csrf: csrfOf(secondPage.html),
          option: 'single',
          savedCard: savedCard!,
        }),
      ),
    );
    // PROCESSOR_B charges a stored card asynchronously: the page waits for its notification.
    for (const click of clicks) expect([200, 303]).toContain(click.status);
    const settled = await again.comeBack(
      new URL(`/pay/${second.slug}/return/1`, system.gatewayUrl).toString(),
    );
    expect(settled.location).toBe(`/pay/${second.slug}/receipt`);
    expect(((await api('GET', `/api/payrequests/${second.id}`)) as { statusId: number }).statusId).toBe(200);
    expect((await chargesOf(secondAmount)).map((charge) => charge.resultCode)).toEqual(['00']);
    expect(await linkPaid(second.id)).toHaveLength(1);
  });
});
