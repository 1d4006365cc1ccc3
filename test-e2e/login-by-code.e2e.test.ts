import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// Who the customer is, with every service as its own process on PostgreSQL and RabbitMQ: a customer logs in
// on the pay page by the code links mailed, read back from the gateway's `GET /dev/mailbox` (links' development
// mailbox, DEV_MAILBOX=true); a signed-in-user link's URL opens a session once; the saved-cards panel asks the
// real processor-gateway.

let testDb: TestDatabase;
let system: E2eSystem;
const exchange = uniqueName('e2e_login_events');
const queuePrefix = `${uniqueName('e2e_login')}.`;

beforeAll(async () => {
  testDb = await createTestDatabase('e2e_login');
  system = await startSystem(({ gatewayUrl }) => ({
    DATABASE_URL: testDb.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    INTERNAL_SECRET: 'e2e-internal-secret-0123456789',
    PUBLIC_BASE_URL: gatewayUrl,
    DEV_MAILBOX: 'true',
    LOG_LEVEL: 'warn',
  }));
});

afterAll(async () => {
  await system?.stop();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

function api(path: string, body: unknown): Promise<Response> {
  return fetch(`${system.gatewayUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-token': DEMO_TOKEN },
    body: JSON.stringify(body),
  });
}

/** A browser without JavaScript: cookies kept, redirects not followed (the test looks at each). */
function browser() {
  const jar = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(`${system.gatewayUrl}${path}`, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (value === '' || /Max-Age=0/.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    return { response, html: await response.text() };
  };
  return {
    jar,
    get: (path: string) => send(path),
    post: (path: string, fields: Record<string, string>) =>
      send(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
  };
}

const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function mailbox() {
  const response = await fetch(`${system.gatewayUrl}/dev/mailbox`);
  expect(response.status).toBe(200);
  return (await response.json()) as Array<{ to: string; subject: string; text: string; sentAt: string }>;
}

describe('login by e-mail code through the gateway', () => {
  it('the code read from GET /dev/mailbox signs the customer in on the link', async () => {
    const created = await api('/api/saleitems/add', {
      label: 'Gym membership',
      amount: 150000,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      singlePayment: true,
      creditAndDebitCard: true,
      recurrentPayment: false,
    });
    expect(created.status).toBe(200);
    const { slug } = (await created.json()) as { slug: string };

    const customer = browser();
    const form = await customer.get(`/pay/${slug}/login`);
    expect(form.response.status).toBe(200);
    expect(form.html).toContain('data-testid="login-email"');

    const sent = await customer.post(`/pay/${slug}/login?lang=es`, {
      _csrf: csrfIn(form.html),
      step: 'send',
      email: 'e2e-ana@example.com',
    });
    expect(sent.response.status).toBe(200);
    expect(sent.html).toContain('data-testid="login-code"');

    const [newest] = await mailbox();
    expect(newest).toMatchObject({
      to: 'e2e-ana@example.com',
      subject: 'Tu código para pagar a Demo merchant',
    });
    expect(Date.parse(newest?.sentAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const code = /\b(\d{6})\b/.exec(newest?.text ?? '')?.[1] ?? '';
    expect(code).toMatch(/^\d{6}$/);

    const verified = await customer.post(`/pay/${slug}/login?lang=es`, {
      _csrf: csrfIn(sent.html),
      step: 'verify',
      email: 'e2e-ana@example.com',
      code,
    });
    expect(verified.response.status).toBe(303);
    expect(verified.response.headers.get('location')).toBe(`/pay/${slug}?lang=es`);
    const cookie = verified.response.headers
      .getSetCookie()
      .find((line) => line.startsWith('payrail_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);

    const page = await customer.get(`/pay/${slug}`);
    expect(page.html).toContain('data-testid="pay-form"');

    // The panel asks the real processor-gateway: a new customer has no cards yet.
    const panel = await customer.get('/pay/account/cards');
    expect(panel.response.status).toBe(200);
    expect(panel.html).toContain('data-testid="account-no-cards"');
    expect(panel.html).toContain('e2e-ana@example.com');
  });

  it("a signed-in-user link's URL opens that user's session once; another opening asks for login", async () => {
    const created = await api('/api/ext-app/payrequests/signed-in-user', {
      label: 'Plan',
      amount: 99000,
      handleValue: 'bruno@example.com',
      handleLabel: 'Bruno',
      singlePayment: true,
      creditAndDebitCard: true,
      recurrentPayment: false,
      payWaitHours: 48,
      signedInUser: { email: 'e2e-bruno@example.com', firstName: 'Bruno', lastName: 'B' },
    });
    expect(created.status).toBe(200);
    const { publicPayUrl, slug } = (await created.json()) as { publicPayUrl: string; slug: string };
    const url = new URL(publicPayUrl);
    expect(url.origin).toBe(system.gatewayUrl);

    const first = browser();
    const opened = await first.get(`${url.pathname}${url.search}`);
    expect(opened.response.status).toBe(303);
    expect(opened.response.headers.get('location')).toBe(`/pay/${slug}?lang=es`);
    expect((await first.get(`/pay/${slug}`)).html).toContain('data-testid="pay-form"');

    const second = await browser().get(`${url.pathname}${url.search}`);
    expect(second.response.status).toBe(303);
    expect(second.response.headers.get('location')).toBe(`/pay/${slug}/login?lang=es&credential=used`);
  });
});
