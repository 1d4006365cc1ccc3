import type { PaymentMovement, ReportSummaryResponse } from '@payrail/contracts';
import { addDays } from '@payrail/time';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ConsoleApiRequest, ConsoleUser } from '../../src/adapters/http/console/console-context';
import { figuresOf } from '../../src/adapters/http/console/pages/home-money';
import { consolePages } from '../../src/adapters/http/console/pages/routes';

// The Payments pages and home's money alone, over a stand-in of the public API that records each call:
// what each page asks the API and sends it, and what it answers for each of the API's answers. (The browser
// test `console-payments.browser.test.ts` runs the same pages against the real system.)

const MERCHANT = {
  id: '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f',
  name: 'Gimnasio Central',
  instance: 'NATIONAL',
  currency: 'PYG',
  saasContract: true,
  noLoginEnabled: true,
  callbackUrl: 'https://shop.example.com/cb',
  timezone: 'America/Asuncion',
  processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
};

const PAYMENT_ID = '0193b2a0-4c1d-7e2f-8a3b-4c5d6e7f8a01';

function movement(overrides: Partial<PaymentMovement> = {}): PaymentMovement {
  return {
    id: PAYMENT_ID,
    kind: 'LINK_PAYMENT',
    status: 'succeeded',
    method: 'CARD',
    processor: 'PARAGUAY.PROCESSOR_B',
    amount: '97000.00',
    currency: 'PYG',
    refundedAmount: '0.00',
    cardBrand: 'Mastercard',
    cardLast4: '4444',
    processorReference: 'B-1',
    reference: null,
    paymentId: null,
    payRequestId: 7,
    label: 'Clase de yoga',
    subscriptionId: null,
    installmentId: null,
    installmentNumber: null,
    handleValue: 'sofia@example.com',
    handleLabel: 'Sofía Duarte',
    customIdentifier: 'CLI-1',
    customIdentifier2: null,
    declineCode: null,
    declineCategory: null,
    createdAt: '2026-11-27T10:00:00-03:00',
    settledAt: '2026-11-27T10:00:02-03:00',
    ...overrides,
  };
}

type Answer = { status: number; body?: unknown; raw?: Response };

function consoleFor(user: ConsoleUser, answers: Record<string, Answer>) {
  const calls: ConsoleApiRequest[] = [];
  const all: Record<string, Answer> = { 'GET /api/merchant': { status: 200, body: MERCHANT }, ...answers };
  const api = {
    async call(request: ConsoleApiRequest) {
      calls.push(request);
      const key = `${request.method} ${request.path}`;
      const answer = all[key] ?? all[key.split('?')[0] ?? key];
      if (!answer) return Response.json({ code: 'NOT_FOUND', detail: key, errors: [] }, { status: 404 });
      if (answer.raw) return answer.raw;
      return Response.json(answer.body ?? null, { status: answer.status });
    },
  };
  const app = new Hono();
  app.use('/console/*', async (c, next) => {
    c.set('consoleUser' as never, user as never);
    c.set('consoleApi' as never, api as never);
    c.set('csrfToken' as never, 'csrf-of-this-session' as never);
    c.set('clientAddress' as never, '127.0.0.1' as never);
    await next();
  });
  app.route('/console', consolePages());
  const request = (path: string, form?: Record<string, string>) =>
    app.request(
      `http://gateway.test${path}`,
      form
        ? {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(form).toString(),
          }
        : {},
    );
  return { request, calls };
}

const user = (role: 'owner' | 'viewer', language: 'es' | 'en' = 'es'): ConsoleUser => ({
  kind: 'merchant-user',
  userId: `u-${role}`,
  merchantId: MERCHANT.id,
  email: `${role}@example.com`,
  name: role,
  role,
  language,
});

const DETAIL = {
  status: 200,
  body: { ...movement(), refunds: [], paid: { type: 'PAY_REQUEST', payRequestId: 7 } },
};

const report = (currencies: unknown[]) => ({
  from: '2026-10-29',
  to: '2026-11-27',
  groupBy: 'day',
  timezone: 'America/Asuncion',
  currencies,
  subscriptions: { pending: 0, active: 3, past_due: 1, completed: 0, cancelled: 0 },
});

const day = (period: string, collected: string, more: Record<string, unknown> = {}) => ({
  period,
  collected,
  refunded: '0.00',
  net: collected,
  declinedAttempts: 0,
  recoveredInstallments: 0,
  ...more,
});

describe("home's money, from the report of the 30 days", () => {
  it('collected today, in 7 and 30 days, refunded, declined and recovered, by the merchant’s days', () => {
    const figures = figuresOf(
      report([
        {
          currency: 'PYG',
          collected: '15000.00',
          refunded: '500.00',
          net: '14500.00',
          declinedAttempts: 1,
          recoveredInstallments: 2,
          periods: [
            day('2026-10-29', '8000.00'),
            day('2026-11-20', '4000.00', { recoveredInstallments: 2 }),
            day('2026-11-21', '2000.00'),
            day('2026-11-26', '0.00', { refunded: '500.00', declinedAttempts: 1 }),
            day('2026-11-27', '1000.00'),
          ],
        },
        {
          currency: 'USD',
          collected: '320.00',
          refunded: '0.00',
          net: '320.00',
          declinedAttempts: 3,
          recoveredInstallments: 1,
          periods: [day('2026-11-27', '320.00', { declinedAttempts: 3, recoveredInstallments: 1 })],
        },
      ]) as ReportSummaryResponse,
      '2026-11-27',
      'PYG',
    );
    expect(figures.collectedToday).toBe(100000n);
    expect(figures.collected7).toBe(300000n);
    expect(figures.collected30).toBe(1500000n);
    expect(figures.refunded30).toBe(50000n);
    // Counts of every currency: declined attempts and installments recovered by a retry.
    expect(figures.declined30).toBe(4);
    expect(figures.recovered30).toBe(3);
    expect(figures.days).toHaveLength(30);
    expect(figures.days[0]).toEqual({ date: '2026-10-29', collected: 800000n });
    expect(figures.days[22]).toEqual({ date: '2026-11-20', collected: 400000n });
    expect(figures.days[29]).toEqual({ date: '2026-11-27', collected: 100000n });
    expect(figures.days.filter((entry) => entry.collected === 0n)).toHaveLength(26);
  });

  it('home asks the report once for the 30 days and shows its figures and 30 bars', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: MERCHANT.timezone }).format(new Date());
    const { request, calls } = consoleFor(user('owner'), {
      'GET /api/subscriptions/summary': {
        status: 200,
        body: {
          counts: { pending: 0, active: 0, past_due: 0, completed: 0, cancelled: 0 },
          upcoming: { installments: 0, amounts: [] },
        },
      },
      'GET /api/payrequests/summary': {
        status: 200,
        body: { counts: { pending: 0, rejected: 0, expired: 0, cancelled: 0, paid: 0 } },
      },
      'GET /api/reports/summary': {
        status: 200,
        body: report([
          {
            currency: 'PYG',
            collected: '97000.00',
            refunded: '0.00',
            net: '97000.00',
            declinedAttempts: 2,
            recoveredInstallments: 1,
            periods: [day(today, '97000.00', { declinedAttempts: 2, recoveredInstallments: 1 })],
          },
        ]),
      },
    });
    const response = await request('/console');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('data-testid="home-collected"');
    expect(html).toContain('data-testid="home-chart"');
    expect(html).toMatch(/data-testid="home-collected-today" data-amount="97000.00"/);
    expect(html).toMatch(/data-testid="home-recovered">.*?data-count="1"/s);
    expect(html).toMatch(/data-testid="home-declined">.*?data-count="2"/s);
    expect(html.match(/<rect /g)).toHaveLength(30);
    expect(calls.filter((call) => call.path.startsWith('/api/payments'))).toEqual([]);
    const reports = calls.filter((call) => call.path.startsWith('/api/reports'));
    expect(reports).toHaveLength(1);
    expect(reports[0]?.path).toBe(`/api/reports/summary?from=${addDays(today, -29)}&to=${today}&groupBy=day`);
  });

  it('home says the money figures are not available when the report is refused, and shows the rest', async () => {
    const { request } = consoleFor(user('owner', 'en'), {
      'GET /api/subscriptions/summary': {
        status: 200,
        body: {
          counts: { pending: 0, active: 4, past_due: 1, completed: 0, cancelled: 0 },
          upcoming: { installments: 0, amounts: [] },
        },
      },
      'GET /api/payrequests/summary': {
        status: 200,
        body: { counts: { pending: 0, rejected: 0, expired: 0, cancelled: 0, paid: 0 } },
      },
      'GET /api/reports/summary': { status: 503, body: { code: 'UNAVAILABLE', detail: 'down', errors: [] } },
    });
    const response = await request('/console');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('The payments report did not answer');
    expect(html).not.toContain('data-testid="home-chart"');
    expect(html).toMatch(/data-testid="home-past-due">.*?1</s);
  });
});

describe('the Payments pages', () => {
  it('the ledger: the filters of the URL sent to the API, each row with its id, the next page and the export keeping them', async () => {
    const { request, calls } = consoleFor(user('owner'), {
      'GET /api/payments': { status: 200, body: { payments: [movement()], nextCursor: 'c2' } },
    });
    const response = await request('/console/payments?status=succeeded&q=sofia&amountMin=1000');
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(calls.at(-1)?.path).toBe('/api/payments?status=succeeded&q=sofia&amountMin=1000&limit=50');
    expect(html).toContain(`data-testid="payment-row" data-id="${PAYMENT_ID}"`);
    expect(html).toContain('data-testid="filter-form"');
    expect(html).toContain(
      'href="/console/payments?status=succeeded&amp;q=sofia&amp;amountMin=1000&amp;cursor=c2"',
    );
    expect(html).toContain('href="/console/payments/export?status=succeeded&amp;q=sofia&amp;amountMin=1000"');
    expect(html).toContain('data-testid="nav-payments"');
  });

  it('the export hands on the API’s CSV as it comes, asked for as CSV with the same filters', async () => {
    let pull = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pull++;
        if (pull === 1) controller.enqueue(new TextEncoder().encode('id,kind\n'));
        else if (pull === 2) controller.enqueue(new TextEncoder().encode(`${PAYMENT_ID},LINK_PAYMENT\n`));
        else controller.close();
      },
    });
    const { request, calls } = consoleFor(user('viewer'), {
      'GET /api/payments': {
        status: 200,
        raw: new Response(stream, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="p.csv"',
          },
        }),
      },
    });
    const response = await request('/console/payments/export?kind=REFUND');
    expect(calls.at(-1)).toMatchObject({ path: '/api/payments?kind=REFUND&format=csv', accept: 'text/csv' });
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="p.csv"');
    // Not read before the browser reads it: the stream is the API's own.
    expect(pull).toBeLessThanOrEqual(1);
    expect(await response.text()).toBe(`id,kind\n${PAYMENT_ID},LINK_PAYMENT\n`);
  });

  it('a refund: the form, its confirmation carrying the form’s key, then the API’s refund with that key', async () => {
    const { request, calls } = consoleFor(user('owner'), {
      [`GET /api/payments/${PAYMENT_ID}`]: DETAIL,
      [`POST /api/payments/${PAYMENT_ID}/refunds`]: { status: 201, body: { id: 'r1', status: 'succeeded' } },
    });
    const detail = await (await request(`/console/payments/${PAYMENT_ID}`)).text();
    expect(detail).toContain('data-testid="refund-new"');
    const form = await (await request(`/console/payments/${PAYMENT_ID}/refund`)).text();
    expect(form).toContain('data-testid="refund-amount"');
    expect(form).toMatch(/name="amount"[^>]*value="97000"/);
    const idem = /name="idem" value="([0-9a-f-]{36})"/.exec(form)?.[1] as string;
    expect(idem).toBeTruthy();
    const fields = {
      csrf: 'csrf-of-this-session',
      idem,
      method: 'CARD',
      amount: '97000',
      reference: '',
      reason: '',
    };
    const review = await request(`/console/payments/${PAYMENT_ID}/refund`, { ...fields, step: 'review' });
    expect(review.status).toBe(200);
    const reviewHtml = await review.text();
    expect(reviewHtml).toContain('data-testid="refund-confirm"');
    expect(reviewHtml).toContain(`name="idem" value="${idem}"`);
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    // Without the confirmation: the form again, nothing sent.
    const unconfirmed = await request(`/console/payments/${PAYMENT_ID}/refund`, fields);
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.text()).toContain('data-code="CONFIRMATION_REQUIRED"');
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    expect(reviewHtml).toContain('name="confirm" value="yes"');
    const done = await request(`/console/payments/${PAYMENT_ID}/refund`, { ...fields, confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/console/payments/${PAYMENT_ID}?done=succeeded&refund=r1`);
    expect(calls.filter((call) => call.method === 'POST')).toEqual([
      {
        method: 'POST',
        path: `/api/payments/${PAYMENT_ID}/refunds`,
        body: { method: 'CARD', amount: '97000' },
        idempotencyKey: `console-${idem}`,
      },
    ]);
  });

  it('the API’s refusals in the user’s language: 422 more than is left (es), 409 a part by card (en)', async () => {
    const fields = { csrf: 'csrf-of-this-session', idem: crypto.randomUUID(), confirm: 'yes' };
    const refused = (status: number, code: string) => ({
      [`GET /api/payments/${PAYMENT_ID}`]: DETAIL,
      [`POST /api/payments/${PAYMENT_ID}/refunds`]: {
        status,
        body: { status, code, detail: code, errors: [] },
      },
    });
    const es = consoleFor(user('owner'), refused(422, 'REFUND_AMOUNT_EXCEEDS_REFUNDABLE'));
    const tooMuch = await es.request(`/console/payments/${PAYMENT_ID}/refund`, {
      ...fields,
      method: 'BANK_TRANSFER',
      amount: '200000',
      reference: 'DEV-1',
    });
    expect(tooMuch.status).toBe(422);
    const tooMuchHtml = await tooMuch.text();
    expect(tooMuchHtml).toContain('El monto supera lo que queda por devolver.');
    expect(tooMuchHtml).toContain('value="200000"');
    expect(es.calls.at(-2)?.body).toEqual({ method: 'BANK_TRANSFER', amount: '200000', reference: 'DEV-1' });
    const en = consoleFor(user('owner', 'en'), refused(409, 'PARTIAL_CARD_REFUND_NOT_POSSIBLE'));
    const part = await en.request(`/console/payments/${PAYMENT_ID}/refund`, {
      ...fields,
      method: 'CARD',
      amount: '100',
    });
    expect(part.status).toBe(409);
    expect(await part.text()).toContain('The processor gives back only the whole payment');
  });

  it('a viewer: no refund button, no refund form; a crafted confirmation goes to the API, whose 403 it shows', async () => {
    const { request, calls } = consoleFor(user('viewer'), {
      [`GET /api/payments/${PAYMENT_ID}`]: DETAIL,
      [`POST /api/payments/${PAYMENT_ID}/refunds`]: {
        status: 403,
        body: { status: 403, code: 'FORBIDDEN', detail: 'viewer', errors: [] },
      },
    });
    expect(await (await request(`/console/payments/${PAYMENT_ID}`)).text()).not.toContain('refund-new');
    expect((await request(`/console/payments/${PAYMENT_ID}/refund`)).status).toBe(403);
    const crafted = await request(`/console/payments/${PAYMENT_ID}/refund`, {
      csrf: 'csrf-of-this-session',
      idem: crypto.randomUUID(),
      confirm: 'yes',
      method: 'CASH',
      amount: '1000',
    });
    expect(crafted.status).toBe(403);
    expect(await crafted.text()).toContain('data-code="FORBIDDEN"');
    expect(calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('the refund just made is shown from the refunds API until the ledger has it', async () => {
    const refundId = '0193b2c1-0a1b-7c2d-8e3f-4a5b6c7d8e11';
    const { request, calls } = consoleFor(user('owner'), {
      [`GET /api/payments/${PAYMENT_ID}`]: DETAIL,
      [`GET /api/payments/${PAYMENT_ID}/refunds/${refundId}`]: {
        status: 200,
        body: {
          id: refundId,
          paymentId: PAYMENT_ID,
          status: 'succeeded',
          amount: '97000.00',
          currency: 'PYG',
          mode: 'reversal',
          method: 'CARD',
          processor: 'PARAGUAY.PROCESSOR_B',
          reference: null,
          reason: null,
          createdAt: '2026-11-27T10:05:00-03:00',
          succeededAt: '2026-11-27T10:05:01-03:00',
          failedAt: null,
        },
      },
    });
    const html = await (
      await request(`/console/payments/${PAYMENT_ID}?done=succeeded&refund=${refundId}`)
    ).text();
    expect(calls.at(-1)?.path).toBe(`/api/payments/${PAYMENT_ID}/refunds/${refundId}`);
    expect(html).toContain(`data-testid="refund-row" data-id="${refundId}" data-status="succeeded"`);
    expect(html).toContain('data-testid="done-notice"');
    expect(html).not.toContain('data-testid="refund-new"');
  });

  it('another merchant’s payment (404 from the API) is not found', async () => {
    const { request } = consoleFor(user('owner'), {});
    expect((await request(`/console/payments/${PAYMENT_ID}`)).status).toBe(404);
  });
});
