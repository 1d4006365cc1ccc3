// The merchant API end to end, in-process (services composed here, never in a service's own tests): gateway (auth, idempotency, signed context) -> links, both on
// real PostgreSQL with their real migrations.
import { rowsOf } from '@payrail/db';
import { linksService } from '@payrail/links';
import { aOneOffLink, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresIdempotencyStore } from '../services/gateway/src/adapters/postgres/idempotency-store';
import { requestFingerprint } from '../services/gateway/src/application/idempotency';
import { DEMO_MERCHANT, gatewayService } from '../services/gateway/src/service';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const DEMO_API_TOKEN = '7c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const START = new Date('2026-11-22T12:00:00Z');

const clock = testClock(START);
let links: ServiceUnderTest;
let gateway: ServiceUnderTest;
/** Knobs on the way to links: a slow service, or one that fails the next calls. */
const upstream = { delayMs: 0, failures: 0, calls: 0 };

beforeAll(async () => {
  links = await startService(linksService, { clock });
  gateway = await startService(gatewayService, {
    clock,
    env: { ADMIN_TOKEN, DEMO_API_TOKEN },
    upstreams: {
      links: async (request) => {
        upstream.calls += 1;
        if (upstream.delayMs) await new Promise((resolve) => setTimeout(resolve, upstream.delayMs));
        if (upstream.failures > 0) {
          upstream.failures -= 1;
          return Response.json({ code: 'UNAVAILABLE', detail: 'links is restarting' }, { status: 503 });
        }
        return links.instance.app.fetch(request);
      },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await links?.stop();
});

type Body = Record<string, unknown> & { code?: string; errors?: Array<{ path: string }> };

async function newMerchant(settings: Record<string, unknown> = {}) {
  const response = await gateway.request('POST', '/admin/merchants', {
    body: { name: 'Merchant', instance: 'NATIONAL', ...settings },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; apiToken: string; tokenId: string };
}

async function call(
  method: string,
  path: string,
  apiToken: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await gateway.request(method, path, {
    body,
    headers: apiToken ? { 'api-token': apiToken, ...headers } : headers,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Body, headers: response.headers };
}

async function linkCount(merchantId?: string): Promise<number> {
  const where = merchantId ? sql` where merchant_id = ${merchantId}` : sql``;
  const [row] = rowsOf<{ n: number }>(
    await links.database.db.execute(sql`select count(*)::int as n from links.payment_links${where}`),
  );
  return row?.n ?? 0;
}

const oneOff = aOneOffLink();

let a: { id: string; apiToken: string; tokenId: string };
let b: { id: string; apiToken: string; tokenId: string };
let saas: { id: string; apiToken: string; tokenId: string };
beforeAll(async () => {
  a = await newMerchant({ name: 'A' });
  b = await newMerchant({ name: 'B' });
  saas = await newMerchant({ name: 'SaaS', saasContract: true, timezone: 'America/New_York' });
});

describe('payment links through the gateway', () => {
  it('creates and reads a link with the merchant token', async () => {
    const created = await call('POST', '/api/saleitems/add', a.apiToken, oneOff);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ currency: 'PYG', ammount: '150000.00', statusId: 1 });
    const read = await call('GET', `/api/payrequests/${created.body.id}`, a.apiToken);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: created.body.id,
      paid: false,
      amount: '150000.00',
      slug: created.body.slug,
    });
  });

  it("tenant isolation: merchant B never reads merchant A's link (404), and A never reads B's", async () => {
    const ofA = await call('POST', '/api/saleitems/add', a.apiToken, oneOff);
    const ofB = await call('POST', '/api/saleitems/add', b.apiToken, oneOff);
    const bReadsA = await call('GET', `/api/payrequests/${ofA.body.id}`, b.apiToken);
    expect(bReadsA.status).toBe(404);
    expect(bReadsA.text).not.toContain(String(ofA.body.slug));
    expect((await call('GET', `/api/payrequests/${ofB.body.id}`, a.apiToken)).status).toBe(404);
    expect((await call('GET', `/api/payrequests/${ofA.body.id}`, a.apiToken)).status).toBe(200);
  });

  it('401 without a token, with an unknown one, and with a revoked one at once; nothing is stored', async () => {
    const merchant = await newMerchant();
    expect((await call('POST', '/api/saleitems/add', merchant.apiToken, oneOff)).status).toBe(200);
    const revoked = await gateway.request(
      'DELETE',
      `/admin/merchants/${merchant.id}/tokens/${merchant.tokenId}`,
      {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      },
    );
    expect(revoked.status).toBe(204);
    const before = await linkCount();
    for (const token of [undefined, '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10', 'garbage', merchant.apiToken]) {
      const refused = await call('POST', '/api/saleitems/add', token, oneOff);
      expect(refused.status, String(token)).toBe(401);
      expect(refused.body.code).toBe('UNAUTHORIZED');
    }
    expect((await call('GET', '/api/payrequests/1', merchant.apiToken)).status).toBe(401);
    expect(await linkCount()).toBe(before);
  });

  const rules: Array<[string, Record<string, unknown>, number, string[]]> = [
    [
      // `totalPeriods: null` sent as such is an open-ended subscription (open-ended-subscription.e2e.test.ts).
      'totalPeriods absent on a STATIC subscription',
      {
        ...oneOff,
        recurrentPayment: true,
        installmentAmount: 1,
        dayOfMonth: 5,
        monthForSecondInstallment: 1,
      },
      400,
      ['totalPeriods'],
    ],
    [
      'dayOfMonth 29',
      {
        ...oneOff,
        recurrentPayment: true,
        installmentAmount: 1,
        totalPeriods: 3,
        dayOfMonth: 29,
        monthForSecondInstallment: 1,
      },
      400,
      ['dayOfMonth'],
    ],
    [
      'paymentMethods not an array',
      { ...oneOff, paymentMethods: 'PARAGUAY.PROCESSOR_A' },
      400,
      ['paymentMethods'],
    ],
    ['amount with three decimals', { ...oneOff, amount: 1.001 }, 400, ['amount']],
    [
      'noLoginRequired not enabled',
      { ...oneOff, noLoginRequired: true, documentNumber: '123' },
      422,
      ['noLoginRequired'],
    ],
    [
      'DYNAMIC without a SaaS contract',
      { ...oneOff, recurrentPayment: true, recurrentPaymentType: 'DYNAMIC' },
      422,
      ['recurrentPaymentType'],
    ],
    [
      'redirectUrl without a callback URL',
      { ...oneOff, redirectUrl: 'https://a.example.com/done' },
      422,
      ['redirectUrl'],
    ],
    ['a currency the instance does not offer', { ...oneOff, currency: 'EUR' }, 422, ['currency']],
  ];

  it.each(rules)(
    '%s: %i naming %j through the gateway, nothing stored',
    async (_case, body, status, paths) => {
      const before = await linkCount();
      const refused = await call('POST', '/api/saleitems/add', a.apiToken, body);
      expect(refused.status).toBe(status);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.body.errors?.map((e) => e.path)).toEqual(paths);
      expect(await linkCount()).toBe(before);
    },
  );

  it('merchant settings changed by the operator apply to the next request', async () => {
    const merchant = await newMerchant();
    const body = {
      ...oneOff,
      noLoginRequired: true,
      documentNumber: '4567890',
      redirectUrl: 'https://shop.example.com/ok?x=1',
    };
    expect((await call('POST', '/api/saleitems/add', merchant.apiToken, body)).status).toBe(422);
    await gateway.request('PATCH', `/admin/merchants/${merchant.id}`, {
      body: { noLoginEnabled: true, callbackUrl: 'https://shop.example.com/callback' },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect((await call('POST', '/api/saleitems/add', merchant.apiToken, body)).status).toBe(200);
  });

  it('the demo merchant works with DEMO_API_TOKEN', async () => {
    const created = await call('POST', '/api/saleitems/add', DEMO_API_TOKEN, oneOff);
    expect(created.status).toBe(200);
    expect(await linkCount(DEMO_MERCHANT.merchantId)).toBeGreaterThan(0);
  });
});

describe('signed-in-user links through the gateway', () => {
  const request = {
    ...oneOff,
    amount: 99000,
    payWaitHours: 48,
    signedInUser: { email: 'Carla@Example.com', firstName: 'Carla', lastName: 'Ruiz' },
  };

  it('SaaS merchant: 2.3 response with the same userId on the second call', async () => {
    const first = await call('POST', '/api/ext-app/payrequests/signed-in-user', saas.apiToken, request);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ amount: '99000.00', expireTime: '2026-11-24 07:00:00', statusId: 1 });
    const second = await call('POST', '/api/ext-app/payrequests/signed-in-user', saas.apiToken, {
      ...request,
      signedInUser: { ...request.signedInUser, email: 'carla@example.com' },
    });
    expect(second.body.userId).toBe(first.body.userId);
    expect(second.body.id).not.toBe(first.body.id);
    const url = new URL(String(first.body.publicPayUrl));
    expect(url.searchParams.get('login')).toBeTruthy();
    expect(url.searchParams.get('login')).not.toBe(String(first.body.userId));
  });

  it('422 for a merchant without a SaaS contract; 400 for a bad e-mail', async () => {
    const before = await linkCount();
    const refused = await call('POST', '/api/ext-app/payrequests/signed-in-user', a.apiToken, request);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('SAAS_CONTRACT_REQUIRED');
    const badEmail = await call('POST', '/api/ext-app/payrequests/signed-in-user', saas.apiToken, {
      ...request,
      signedInUser: { ...request.signedInUser, email: 'carla-at-example.com' },
    });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.errors?.map((e) => e.path)).toEqual(['signedInUser.email']);
    expect(await linkCount()).toBe(before);
  });
});

describe('Idempotency-Key', () => {
  const key = (name: string) => ({ 'idempotency-key': `${name}-${Math.random().toString(36).slice(2)}` });

  it('the same key and body twice: the identical response, one link, the service called once', async () => {
    const headers = key('same');
    const before = await linkCount(a.id);
    const callsBefore = upstream.calls;
    const first = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    const second = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(upstream.calls - callsBefore).toBe(1);
    expect(await linkCount(a.id)).toBe(before + 1);
  });

  it('the same JSON re-serialised (other key order, spacing) is the same request', async () => {
    const headers = key('reordered');
    const first = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    const reordered = Object.fromEntries(Object.entries(oneOff).reverse());
    const response = await gateway.request('POST', '/api/saleitems/add', {
      rawBody: JSON.stringify(reordered, null, 2),
      headers: { 'api-token': a.apiToken, ...headers },
    });
    expect(await response.text()).toBe(first.text);
  });

  it('the same key with another body is refused (422 IDEMPOTENCY_KEY_REUSED) and stores nothing', async () => {
    const headers = key('reused');
    await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    const before = await linkCount();
    const refused = await call('POST', '/api/saleitems/add', a.apiToken, { ...oneOff, amount: 1 }, headers);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(refused.body.errors?.map((e) => e.path)).toEqual(['Idempotency-Key']);
    const otherEndpoint = await call(
      'POST',
      '/api/ext-app/payrequests/signed-in-user',
      a.apiToken,
      oneOff,
      headers,
    );
    expect(otherEndpoint.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await linkCount()).toBe(before);
  });

  it('concurrent requests with one key create one link; the others get 409 while it runs', async () => {
    const headers = key('concurrent');
    const before = await linkCount(a.id);
    upstream.delayMs = 500;
    let results: Array<Awaited<ReturnType<typeof call>>>;
    try {
      results = await Promise.all(
        Array.from({ length: 6 }, () => call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers)),
      );
    } finally {
      upstream.delayMs = 0;
    }
    expect(await linkCount(a.id)).toBe(before + 1);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    expect(results.find((r) => r.status === 409)?.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    // Once it has finished, a retry gets the one response.
    const retry = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    expect(retry.text).toBe(results.find((r) => r.status === 200)?.text);
  });

  it('keys are per merchant: B may use the key A used', async () => {
    const headers = key('shared');
    const ofA = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    const ofB = await call('POST', '/api/saleitems/add', b.apiToken, oneOff, headers);
    expect(ofB.status).toBe(200);
    expect(ofB.body.id).not.toBe(ofA.body.id);
    expect((await call('GET', `/api/payrequests/${ofB.body.id}`, b.apiToken)).status).toBe(200);
  });

  it('a refused request is answered the same way again, without running twice', async () => {
    const headers = key('refused');
    const body = { ...oneOff, dayOfMonth: 40, recurrentPayment: true };
    const first = await call('POST', '/api/saleitems/add', a.apiToken, body, headers);
    const second = await call('POST', '/api/saleitems/add', a.apiToken, body, headers);
    expect(first.status).toBe(400);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a 5xx frees the key: the retry runs and creates the link once', async () => {
    const headers = key('failed');
    const before = await linkCount(a.id);
    upstream.failures = 1;
    const failed = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    expect(failed.status).toBe(503);
    const retried = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    expect(retried.status).toBe(200);
    expect(await linkCount(a.id)).toBe(before + 1);
  });

  it('a key is remembered 24 hours, then it is new again', async () => {
    const headers = key('expiring');
    await call('POST', '/api/saleitems/add', a.apiToken, oneOff, headers);
    clock.advance(23 * 3_600_000);
    try {
      expect(
        (await call('POST', '/api/saleitems/add', a.apiToken, { ...oneOff, amount: 2 }, headers)).status,
      ).toBe(422);
      clock.advance(1 * 3_600_000);
      const fresh = await call('POST', '/api/saleitems/add', a.apiToken, { ...oneOff, amount: 2 }, headers);
      expect(fresh.status).toBe(200);
      expect(fresh.body.ammount).toBe('2.00');
    } finally {
      clock.set(START);
    }
  });

  it('covers the signed-in-user endpoint: one link and one user for a retried request', async () => {
    const headers = key('signed-in');
    const body = {
      ...oneOff,
      signedInUser: { email: 'dora@example.com', firstName: 'Dora', lastName: 'Paz' },
    };
    const before = await linkCount(saas.id);
    const first = await call('POST', '/api/ext-app/payrequests/signed-in-user', saas.apiToken, body, headers);
    const second = await call(
      'POST',
      '/api/ext-app/payrequests/signed-in-user',
      saas.apiToken,
      body,
      headers,
    );
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(await linkCount(saas.id)).toBe(before + 1);
    // The stored response carries a login code: it is sealed at rest, not readable in the table.
    const code = new URL(String(first.body.publicPayUrl)).searchParams.get('login') ?? '';
    const stored = JSON.stringify(
      rowsOf(await gateway.database.db.execute(sql`select * from gateway.idempotency_records`)),
    );
    expect(code.length).toBeGreaterThan(20);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(String(first.body.slug));
  });

  it('a stored response that can no longer be read (secret rotated) is never re-run: 422', async () => {
    const idempotencyKey = `rotated-${Math.random().toString(36).slice(2)}`;
    const body = new TextEncoder().encode(JSON.stringify(oneOff));
    const sealedElsewhere = postgresIdempotencyStore(gateway.database.db, {
      secret: 'a-secret-since-rotated-away',
    });
    const record = {
      merchantId: a.id,
      key: idempotencyKey,
      fingerprint: requestFingerprint('POST', '/api/saleitems/add', body),
      state: 'in_progress' as const,
      response: null,
      lockedAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 3_600_000),
    };
    expect(await sealedElsewhere.insert(record)).toBe(true);
    await sealedElsewhere.complete(record, {
      status: 200,
      contentType: 'application/json',
      body: '{"id":1}',
    });
    const before = await linkCount(a.id);
    const refused = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, {
      'idempotency-key': idempotencyKey,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('IDEMPOTENCY_RESPONSE_UNAVAILABLE');
    expect(await linkCount(a.id)).toBe(before);
  });

  it('without the header every request runs; a malformed key is 400; GET ignores the header', async () => {
    const before = await linkCount(a.id);
    await call('POST', '/api/saleitems/add', a.apiToken, oneOff);
    await call('POST', '/api/saleitems/add', a.apiToken, oneOff);
    expect(await linkCount(a.id)).toBe(before + 2);
    const malformed = await call('POST', '/api/saleitems/add', a.apiToken, oneOff, {
      'idempotency-key': 'x'.repeat(256),
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.map((e) => e.path)).toEqual(['Idempotency-Key']);
    expect(await linkCount(a.id)).toBe(before + 2);
    const read = await call('GET', '/api/payrequests/1', a.apiToken, undefined, key('get'));
    expect([200, 404]).toContain(read.status);
  });
});
