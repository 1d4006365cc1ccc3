import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { ConsoleApiRequest, ConsoleUser } from '../../src/adapters/http/console/console-context';
import { linkRequestOf } from '../../src/adapters/http/console/pages/links';
import { consolePages } from '../../src/adapters/http/console/pages/routes';

// The console's pages alone, over a stand-in of the public API that records each call: what each page
// asks the API, what it sends, and what it answers for each of the API's answers. (The browser tests run
// the same pages against the real system.)

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

const LINK = {
  id: 7,
  statusId: 1,
  paid: false,
  currency: 'PYG',
  amount: '150000.00',
  label: 'Clase de yoga',
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  customIdentifier: 'ORDER-1',
  customIdentifier2: null,
  createTime: '2026-11-23T09:00:00-03:00',
  expireTime: null,
  slug: 'abc',
  publicPayUrl: 'http://localhost:3000/pay/abc',
  singlePayment: true,
  creditAndDebitCard: true,
  paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
  recurrentPayment: false,
  recurrentPaymentType: null,
  installmentAmount: null,
  totalPeriods: null,
  dayOfMonth: null,
  monthForSecondInstallment: null,
};

const SUBSCRIPTION = {
  id: 3,
  payRequestId: 7,
  type: 'STATIC',
  status: 'active',
  customIdentifier: 'ORDER-1',
  customIdentifier2: null,
  currency: 'PYG',
  firstAmount: '150000.00',
  installmentAmount: '100000.00',
  totalPeriods: 3,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
  createTime: '2026-11-23T09:00:00-03:00',
  activateTime: '2026-11-23T09:05:00-03:00',
  endTime: null,
  installments: [1, 2, 3].map((number) => ({
    installmentId: 10 + number,
    number,
    paymentDate: `2026-${String(10 + number).padStart(2, '0')}-10`,
    amount: '100000.00',
    status: number === 1 ? 'paid' : 'pending',
    invoiceNumber: null,
  })),
};

type Answer = { status: number; body?: unknown };

/** The stand-in API: `METHOD /path?query` → answer (a path without its query matches too). */
function fakeApi(answers: Record<string, Answer>) {
  const calls: ConsoleApiRequest[] = [];
  return {
    calls,
    api: {
      async call(request: ConsoleApiRequest) {
        calls.push(request);
        const key = `${request.method} ${request.path}`;
        const answer = answers[key] ?? answers[key.split('?')[0] ?? key];
        if (!answer)
          return Response.json(
            { code: 'NOT_FOUND', detail: `no stand-in for ${key}`, errors: [] },
            { status: 404 },
          );
        return answer.body === undefined
          ? new Response(null, { status: answer.status })
          : Response.json(answer.body, { status: answer.status });
      },
    },
  };
}

const owner: ConsoleUser = {
  kind: 'merchant-user',
  userId: 'u1',
  merchantId: MERCHANT.id,
  email: 'laura@example.com',
  name: 'Laura',
  role: 'owner',
  language: 'es',
};

const BASE: Record<string, Answer> = {
  'GET /api/merchant': { status: 200, body: MERCHANT },
  'GET /api/subscriptions/summary': {
    status: 200,
    body: {
      counts: { pending: 0, active: 4, past_due: 1, completed: 0, cancelled: 0 },
      upcoming: { days: 7, installments: 2, amounts: [{ currency: 'PYG', amount: '300000.00' }] },
    },
  },
  'GET /api/payrequests/summary': {
    status: 200,
    body: { counts: { pending: 3, rejected: 0, expired: 0, cancelled: 1, paid: 9 } },
  },
  'GET /api/payrequests/7': { status: 200, body: LINK },
  'GET /api/payrequests': { status: 200, body: { payRequests: [LINK], nextCursor: 'next-1' } },
  'GET /api/subscriptions/3': { status: 200, body: SUBSCRIPTION },
  'GET /api/subscriptions': { status: 200, body: { subscriptions: [SUBSCRIPTION], nextCursor: null } },
  'GET /api/subscriptions/installments': { status: 200, body: { installments: [] } },
};

function consoleFor(user: ConsoleUser | undefined, answers: Record<string, Answer> = {}) {
  const { api, calls } = fakeApi({ ...BASE, ...answers });
  const app = new Hono();
  app.use('/console/*', async (c, next) => {
    if (user) {
      c.set('consoleUser' as never, user as never);
      c.set('consoleApi' as never, api as never);
      c.set('csrfToken' as never, 'csrf-of-this-session' as never);
      c.set('clientAddress' as never, '127.0.0.1' as never);
    }
    await next();
  });
  app.route('/console', consolePages());
  const request = (path: string, form?: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request(
      `http://gateway.test${path}`,
      form
        ? {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(form).toString(),
          }
        : { headers },
    );
  return { request, calls };
}

describe('the console pages over the public API', () => {
  it('nobody signed in: the sign-in page', async () => {
    const response = await consoleFor(undefined).request('/console/links');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/console/login');
  });

  it.each([
    '/console',
    '/console/links',
    '/console/links/new',
    '/console/links/7',
    '/console/subscriptions',
    '/console/subscriptions/3',
  ])(
    '%s: no inline script or style, a CSP that allows none, and the CSRF token in every form',
    async (path) => {
      const response = await consoleFor(owner).request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'.*/);
      expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const html = await response.text();
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle="/);
      const forms = html.match(/<form[^>]*method="post"[\s\S]*?<\/form>/g) ?? [];
      expect(forms.length).toBeGreaterThan(0);
      for (const form of forms) expect(form).toContain('name="csrf" value="csrf-of-this-session"');
    },
  );

  it('home shows what the API counts, in the merchant’s money', async () => {
    const html = await (await consoleFor(owner).request('/console')).text();
    expect(html).toMatch(/data-testid="home-active"[\s\S]*?>4</);
    expect(html).toMatch(/data-testid="home-links-paid"[\s\S]*?>9</);
    expect(html).toContain('Gs. 300.000');
  });

  it('a list passes its filters and cursor to the API, and its next page keeps the filters', async () => {
    const { request, calls } = consoleFor(owner);
    const html = await (await request('/console/links?status=paid&q=yoga&cursor=c-1')).text();
    expect(calls.map((call) => call.path)).toContain(
      '/api/payrequests?status=paid&q=yoga&cursor=c-1&limit=20',
    );
    expect(html).toContain('href="/console/links?status=paid&amp;q=yoga&amp;cursor=next-1"');
    expect(html).toMatch(/data-testid="link-row" data-id="7"/);
  });

  it('a new link is the spec’s fields, without paymentMethods (the console enables every processor)', () => {
    expect(
      linkRequestOf({
        label: ' Membresía ',
        amount: '200000',
        handleValue: 'ana@example.com',
        handleLabel: 'Ana',
        customIdentifier: '',
        singlePayment: 'true',
        creditAndDebitCard: 'true',
        recurrentPayment: 'true',
        recurrentPaymentType: 'STATIC',
        installmentAmount: '150000',
        totalPeriods: '12',
        dayOfMonth: '5',
        monthForSecondInstallment: '1',
        payWaitHours: '',
        documentNumber: '123',
      }),
    ).toEqual({
      label: 'Membresía',
      amount: '200000',
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: true,
      creditAndDebitCard: true,
      recurrentPayment: true,
      recurrentPaymentType: 'STATIC',
      installmentAmount: '150000',
      totalPeriods: 12,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
      noLoginRequired: false,
    });
    // One-off: the plan's fields are not sent; an open-ended plan is totalPeriods null; a number typed
    // wrong goes as typed, for the API to name.
    expect(linkRequestOf({ label: 'x', singlePayment: 'true', dayOfMonth: '5' })).not.toHaveProperty(
      'dayOfMonth',
    );
    expect(
      linkRequestOf({ recurrentPayment: 'true', openEnded: 'true', totalPeriods: '3' }).totalPeriods,
    ).toBeNull();
    expect(linkRequestOf({ recurrentPayment: 'true', totalPeriods: 'doce' }).totalPeriods).toBe('doce');
  });

  it('creating a link: the form’s own idempotency key, then the link’s page; a refusal shows the form again with the API’s fields', async () => {
    const created = consoleFor(owner, { 'POST /api/saleitems/add': { status: 200, body: { id: 7 } } });
    const response = await created.request('/console/links', {
      csrf: 'csrf-of-this-session',
      idem: '0b7d2a3c-1e4f-4a5b-8c6d-7e8f9a0b1c2d',
      label: 'Yoga',
      amount: '150000',
      handleValue: 'a@b.c',
      handleLabel: 'A',
      singlePayment: 'true',
      creditAndDebitCard: 'true',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/console/links/7?done=created');
    const post = created.calls.find((call) => call.method === 'POST');
    expect(post).toMatchObject({
      path: '/api/saleitems/add',
      idempotencyKey: 'console-0b7d2a3c-1e4f-4a5b-8c6d-7e8f9a0b1c2d',
      body: { label: 'Yoga', amount: '150000', singlePayment: true, recurrentPayment: false },
    });
    expect(post?.body).not.toHaveProperty('paymentMethods');

    const refused = consoleFor(owner, {
      'POST /api/saleitems/add': {
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          detail: 'amount is invalid',
          errors: [{ path: 'amount', message: 'must be greater than 0' }],
        },
      },
    });
    const again = await refused.request('/console/links', { csrf: 'x', label: 'Yoga', amount: '0' });
    expect(again.status).toBe(400);
    const html = await again.text();
    expect(html).toContain('must be greater than 0');
    expect(html).toContain('value="Yoga"');
  });

  it('the API’s 403 is the page’s 403 (a viewer crafting a form), its 404 the page’s 404 (another merchant’s link)', async () => {
    const viewer: ConsoleUser = { ...owner, role: 'viewer' };
    const forbidden = consoleFor(viewer, {
      'POST /api/payrequests/7/cancel': {
        status: 403,
        body: { code: 'FORBIDDEN', detail: 'viewer', errors: [] },
      },
    });
    const crafted = await forbidden.request('/console/links/7/cancel', { csrf: 'x', confirm: 'yes' });
    expect(crafted.status).toBe(403);
    expect(await crafted.text()).toContain('Tu rol no permite esta acción.');
    const elsewhere = consoleFor(owner, {
      'GET /api/payrequests/8': {
        status: 404,
        body: { code: 'PAYMENT_LINK_NOT_FOUND', detail: 'Payment link not found', errors: [] },
      },
    });
    expect((await elsewhere.request('/console/links/8')).status).toBe(404);
  });

  it('a viewer is offered no write', async () => {
    const viewer = consoleFor({ ...owner, role: 'viewer' });
    const links = await (await viewer.request('/console/links')).text();
    expect(links).not.toContain('data-testid="link-new"');
    const subscription = await (await viewer.request('/console/subscriptions/3')).text();
    expect(subscription).not.toContain('installment-cancel');
    expect(subscription).not.toContain('subscription-cancel-all');
  });

  it('a step that cannot be undone needs its box ticked: without it nothing is asked of the API', async () => {
    const { request, calls } = consoleFor(owner, {
      'POST /api/subscriptions/cancel-all': { status: 200, body: { installments: [] } },
    });
    const unticked = await request('/console/subscriptions/3/cancel-all', { csrf: 'x' });
    expect(unticked.status).toBe(400);
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    const ticked = await request('/console/subscriptions/3/cancel-all', { csrf: 'x', confirm: 'yes' });
    expect(ticked.status).toBe(303);
    expect(calls.find((call) => call.method === 'POST')).toMatchObject({
      path: '/api/subscriptions/cancel-all',
      body: { payRequestId: 7 },
    });
  });

  it('one installment: cancel and modify go to the v2 operations by id, only for an installment of this subscription', async () => {
    const { request, calls } = consoleFor(owner, {
      'POST /api/subscriptions/installments/12/cancel': { status: 200, body: {} },
      'PATCH /api/subscriptions/installments/13': { status: 200, body: {} },
    });
    expect((await request('/console/subscriptions/3/installments/12/cancel', { csrf: 'x' })).status).toBe(
      303,
    );
    const modified = await request('/console/subscriptions/3/installments/13/modify', {
      csrf: 'x',
      amount: '120000',
      payment_date: '',
    });
    expect(modified.status).toBe(303);
    expect(calls.filter((call) => call.method !== 'GET')).toEqual([
      expect.objectContaining({ method: 'POST', path: '/api/subscriptions/installments/12/cancel' }),
      expect.objectContaining({
        method: 'PATCH',
        path: '/api/subscriptions/installments/13',
        body: { amount: '120000' },
      }),
    ]);
    expect((await request('/console/subscriptions/3/installments/99/cancel', { csrf: 'x' })).status).toBe(
      404,
    );
  });

  it('the operator’s pages are the operator’s: a merchant user gets 404, the operator is sent there from /console', async () => {
    expect((await consoleFor(owner).request('/console/operator')).status).toBe(404);
    const operator: ConsoleUser = {
      kind: 'operator',
      userId: 'o1',
      email: 'ops@example.com',
      name: null,
      language: 'en',
    };
    const home = await consoleFor(operator).request('/console');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/console/operator');
    expect((await consoleFor(operator).request('/console/links')).status).toBe(404);
  });

  it('a replay’s period is typed on the merchant’s clock and sent as instants', async () => {
    const endpoint = '0b7d2a3c-1e4f-4a5b-8c6d-7e8f9a0b1c2d';
    const { request, calls } = consoleFor(owner, {
      [`POST /api/webhook-endpoints/${endpoint}/replay`]: { status: 202, body: { replayed: 4 } },
      [`GET /api/webhook-endpoints/${endpoint}`]: {
        status: 200,
        body: {
          id: endpoint,
          url: 'https://gym.example.com/hooks',
          method: 'POST',
          auth: null,
          events: ['PAYMENT_SUCCESS'],
          description: null,
          status: 'enabled',
          disabledAt: null,
          disabledReason: null,
          previousSecretExpiresAt: null,
          createdAt: '2026-11-23T12:00:00.000Z',
          updatedAt: '2026-11-23T12:00:00.000Z',
        },
      },
    });
    const response = await request(`/console/developers/webhooks/${endpoint}/replay`, {
      csrf: 'x',
      from: '2026-11-23T09:00',
      to: '2026-11-24T00:00',
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('4 eventos en cola.');
    // Asunción is UTC-3 in November.
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      from: '2026-11-23T12:00:00.000Z',
      to: '2026-11-24T03:00:00.000Z',
    });
  });

  it('a page is in the signed-in user’s language, whatever language the sign-in pages kept for this browser', async () => {
    const { request } = consoleFor({ ...owner, language: 'en' });
    const page = await request('/console/links', undefined, { cookie: 'payrail_console_lang=es' });
    expect(await page.text()).toMatch(/<html lang="en"/);
    // The switch is the sign-in's (it stores the language for the user): the layout posts there.
    const spanish = await (await consoleFor(owner).request('/console/links')).text();
    expect(spanish).toMatch(/<html lang="es"/);
    expect(spanish).toMatch(/<form method="post" action="\/console\/language"/);
  });

  // The access API (tokens, users, audit log), in its shapes (libs/contracts/src/api/access.ts).
  it('API tokens: a new one is shown once after its creation, a revoke is its DELETE', async () => {
    const { request, calls } = consoleFor(owner, {
      'GET /api/api-tokens': {
        status: 200,
        body: {
          tokens: [
            {
              id: '6a1d0f57-31c4-4d5e-8f0a-5e2b9c7d1a34',
              name: 'ERP',
              scope: 'full',
              createdAt: '2026-11-23T12:00:00.000Z',
              lastUsedAt: null,
              revokedAt: null,
            },
            {
              id: '1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5',
              name: null,
              scope: 'full',
              createdAt: '2026-11-20T12:00:00.000Z',
              lastUsedAt: '2026-11-23T12:00:00.000Z',
              revokedAt: null,
            },
          ],
        },
      },
      'POST /api/api-tokens': {
        status: 201,
        body: {
          id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
          name: 'Informes',
          scope: 'read-only',
          createdAt: '2026-11-23T12:00:00.000Z',
          lastUsedAt: null,
          revokedAt: null,
          apiToken: '3f2a9c4e-7b1d-4e8a-9c0f-1d2e3f4a5b6c',
        },
      },
      'DELETE /api/api-tokens/6a1d0f57-31c4-4d5e-8f0a-5e2b9c7d1a34': { status: 204 },
    });
    const created = await request('/console/developers/tokens', {
      csrf: 'x',
      name: 'Informes',
      scope: 'read-only',
    });
    const html = await created.text();
    expect(html).toMatch(/data-testid="token-value">3f2a9c4e-7b1d-4e8a-9c0f-1d2e3f4a5b6c</);
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      name: 'Informes',
      scope: 'read-only',
    });
    // Listed again: the token itself is never shown there; the operator's token has no name.
    const listed = await (await request('/console/developers/tokens')).text();
    expect(listed).not.toContain('3f2a9c4e');
    expect(listed).toContain('Emitido por el operador');
    const revoked = await request('/console/developers/tokens/6a1d0f57-31c4-4d5e-8f0a-5e2b9c7d1a34/revoke', {
      csrf: 'x',
    });
    expect(revoked.status).toBe(303);
    expect(calls.at(-1)).toMatchObject({
      method: 'DELETE',
      path: '/api/api-tokens/6a1d0f57-31c4-4d5e-8f0a-5e2b9c7d1a34',
    });
  });

  it('users: an owner invites by e-mail and role and changes a role; the audit log lists who did what', async () => {
    const { request, calls } = consoleFor(owner, {
      'GET /api/users': {
        status: 200,
        body: {
          users: [
            {
              id: 'u2',
              email: 'pablo@example.com',
              name: null,
              role: 'viewer',
              status: 'active',
              twoFactor: true,
              language: 'es',
              createdAt: '2026-11-20T12:00:00.000Z',
              lastLoginAt: null,
              invitationExpiresAt: null,
            },
          ],
        },
      },
      'POST /api/users': { status: 201, body: {} },
      'PATCH /api/users/u2': { status: 200, body: {} },
      'GET /api/audit-log': {
        status: 200,
        body: {
          entries: [
            {
              id: 'a1',
              at: '2026-11-23T12:00:00.000Z',
              actor: { type: 'user', id: 'u1', label: 'laura@example.com' },
              operationId: 'createPaymentLink',
              method: 'POST',
              path: '/api/saleitems/add',
              target: '7',
              status: 201,
              before: null,
              after: { id: 7 },
              clientAddress: '203.0.113.9',
            },
            {
              id: 'a2',
              at: '2026-11-23T12:05:00.000Z',
              actor: { type: 'user', id: 'u2', label: 'pablo@example.com' },
              operationId: 'cancelPaymentLink',
              method: 'POST',
              path: '/api/payrequests/7/cancel',
              target: '7',
              status: 403,
              before: null,
              after: null,
              clientAddress: '203.0.113.10',
            },
          ],
          nextCursor: null,
        },
      },
    });
    const page = await (await request('/console/settings/users')).text();
    expect(page).toContain('data-testid="user-invite"');
    expect(page).toMatch(/data-testid="user-row" data-id="u2"/);
    expect(
      (
        await request('/console/settings/users', {
          csrf: 'x',
          email: 'eva@example.com',
          name: 'Eva Paz',
          role: 'developer',
        })
      ).status,
    ).toBe(303);
    expect((await request('/console/settings/users/u2/role', { csrf: 'x', role: 'operations' })).status).toBe(
      303,
    );
    expect(calls.filter((call) => call.method !== 'GET')).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/api/users',
        body: { email: 'eva@example.com', role: 'developer', name: 'Eva Paz' },
      }),
      expect.objectContaining({ method: 'PATCH', path: '/api/users/u2', body: { role: 'operations' } }),
    ]);
    // The filters as the API reads them: who by id, what by operationId, days as the merchant's instants.
    const audit = await (
      await request(
        '/console/settings/audit?actorId=u2&operationId=cancelPaymentLink&from=2026-11-23&to=2026-11-23',
      )
    ).text();
    expect(calls.find((call) => call.path.startsWith('/api/audit-log'))?.path).toBe(
      '/api/audit-log?actorId=u2&operationId=cancelPaymentLink&from=2026-11-23T03%3A00%3A00.000Z&to=2026-11-24T03%3A00%3A00.000Z&limit=25',
    );
    expect(audit).toMatch(
      /data-testid="audit-row" data-id="a1" data-operation="createPaymentLink" data-actor="laura@example.com"/,
    );
    expect(audit).toContain('laura@example.com');
    expect(audit).toContain('23/11/2026 09:00');
    // A refused write is in the log as refused; the "who" filter offers the users by e-mail.
    expect(audit).toContain('Rechazado (403)');
    expect(audit).toMatch(/<option value="u2" selected="">Usuario: pablo@example.com<\/option>/);
  });
});
