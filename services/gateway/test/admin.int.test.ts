import { createHash } from 'node:crypto';
import { MERCHANT_CONTEXT_HEADER, MERCHANT_SIGNATURE_HEADER, verifyMerchantContext } from '@payrail/http';
import { rowsOf } from '@payrail/db';
import { type ServiceUnderTest, startService, TEST_INTERNAL_SECRET } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayService } from '../src/service';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** Stands in for the links service: answers with the merchant context the gateway signed. */
async function echoMerchant(request: Request): Promise<Response> {
  const merchant = verifyMerchantContext(
    request.headers.get(MERCHANT_CONTEXT_HEADER) ?? undefined,
    request.headers.get(MERCHANT_SIGNATURE_HEADER) ?? undefined,
    TEST_INTERNAL_SECRET,
  );
  return Response.json({ merchant, apiTokenForwarded: request.headers.has('api-token') });
}

let gateway: ServiceUnderTest;
let unconfigured: ServiceUnderTest;
beforeAll(async () => {
  [gateway, unconfigured] = await Promise.all([
    startService(gatewayService, { env: { ADMIN_TOKEN }, upstreams: { links: echoMerchant } }),
    startService(gatewayService, { env: {} }),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.stop(), unconfigured?.stop()]);
});

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function admin(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = asAdmin,
) {
  const response = await gateway.request(method, path, { body, headers });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> & {
      errors?: Array<{ path: string }>;
    },
  };
}

async function createMerchant(settings: Record<string, unknown> = {}) {
  const created = await admin('POST', '/admin/merchants', {
    name: 'Gym Asunción',
    instance: 'NATIONAL',
    ...settings,
  });
  expect(created.status).toBe(201);
  return created.body as Record<string, unknown> & { id: string; apiToken: string; tokenId: string };
}

async function asMerchant(apiToken: string) {
  const response = await gateway.request('GET', '/api/payrequests/1', { headers: { 'api-token': apiToken } });
  return { status: response.status, body: (await response.json()) as { merchant?: Record<string, unknown> } };
}

describe('operator authentication', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer not-the-admin-token' }],
    ['the token without Bearer', { authorization: ADMIN_TOKEN }],
    ['Basic auth', { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` }],
    ['a prefix of the token', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
  ];

  it.each(cases)('401 for %s', async (_case, headers) => {
    for (const [method, path] of [
      ['POST', '/admin/merchants'],
      ['GET', '/admin/merchants/0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10'],
      [
        'DELETE',
        '/admin/merchants/0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10/tokens/0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10',
      ],
    ] as const) {
      const body = method === 'POST' ? { name: 'X', instance: 'NATIONAL' } : undefined;
      const { status, body: problem } = await admin(method, path, body, headers);
      expect(status, `${method} ${path}`).toBe(401);
      expect(problem.code).toBe('UNAUTHORIZED');
    }
  });

  it('401 to everything when ADMIN_TOKEN is not configured, whatever is sent', async () => {
    for (const authorization of ['Bearer ', 'Bearer undefined', `Bearer ${ADMIN_TOKEN}`]) {
      const response = await unconfigured.request('POST', '/admin/merchants', {
        body: { name: 'X', instance: 'NATIONAL' },
        headers: { authorization },
      });
      expect(response.status).toBe(401);
    }
  });

  it('an Api-Token is no admin credential', async () => {
    const merchant = await createMerchant();
    expect(
      (await admin('GET', `/admin/merchants/${merchant.id}`, undefined, { 'api-token': merchant.apiToken }))
        .status,
    ).toBe(401);
  });
});

describe('POST /admin/merchants', () => {
  it('creates a national merchant with the defaults and returns its first token (201)', async () => {
    const created = await createMerchant();
    expect(created).toMatchObject({
      name: 'Gym Asunción',
      instance: 'NATIONAL',
      currency: 'PYG',
      saasContract: false,
      noLoginEnabled: false,
      customerCancelAllowed: false,
      callbackUrl: null,
      timezone: 'America/Asuncion',
      processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
      tokens: [{ tokenId: created.tokenId, revokedAt: null, createdAt: expect.any(String) }],
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.apiToken).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('an international merchant defaults to USD and may choose EUR; settings are kept', async () => {
    expect((await createMerchant({ instance: 'INTERNATIONAL' })).currency).toBe('USD');
    const eur = await createMerchant({
      instance: 'INTERNATIONAL',
      currency: 'EUR',
      saasContract: true,
      noLoginEnabled: true,
      customerCancelAllowed: true,
      callbackUrl: 'https://shop.example.com/cb',
      timezone: 'Europe/Madrid',
      processors: ['PARAGUAY.PROCESSOR_B'],
    });
    expect(eur).toMatchObject({
      currency: 'EUR',
      saasContract: true,
      noLoginEnabled: true,
      customerCancelAllowed: true,
      callbackUrl: 'https://shop.example.com/cb',
      timezone: 'Europe/Madrid',
      processors: ['PARAGUAY.PROCESSOR_B'],
    });
  });

  const invalid: Array<[string, Record<string, unknown>, string[]]> = [
    ['name missing', { name: undefined }, ['name']],
    ['empty name', { name: ' ' }, ['name']],
    ['instance missing', { instance: undefined }, ['instance']],
    ['unknown instance', { instance: 'GLOBAL' }, ['instance']],
    ['USD on a national instance', { currency: 'USD' }, ['currency']],
    ['PYG on an international instance', { instance: 'INTERNATIONAL', currency: 'PYG' }, ['currency']],
    ['unknown currency', { currency: 'BRL' }, ['currency']],
    ['unknown time zone', { timezone: 'Mars/Olympus' }, ['timezone']],
    ['callback URL not http(s)', { callbackUrl: 'ftp://shop.example.com' }, ['callbackUrl']],
    ['no processors', { processors: [] }, ['processors']],
    ['unknown processor', { processors: ['PARAGUAY.PROCESSOR_C'] }, ['processors.0']],
    ['saasContract of the wrong type', { saasContract: 'yes' }, ['saasContract']],
  ];

  it.each(invalid)('400 for %s, naming %j, and creates nothing', async (_case, settings, paths) => {
    const before = rowsOf<{ n: number }>(
      await gateway.database.db.execute(sql`select count(*)::int as n from gateway.merchants`),
    );
    const { status, body } = await admin('POST', '/admin/merchants', {
      name: 'Gym',
      instance: 'NATIONAL',
      ...settings,
    });
    expect(status).toBe(400);
    expect(body.errors?.map((e) => e.path)).toEqual(paths);
    const after = rowsOf<{ n: number }>(
      await gateway.database.db.execute(sql`select count(*)::int as n from gateway.merchants`),
    );
    expect(after[0]?.n).toBe(before[0]?.n);
  });
});

describe('GET and PATCH /admin/merchants/{id}', () => {
  it('reads the settings and the tokens, never a token or its hash', async () => {
    const created = await createMerchant();
    const { status, body } = await admin('GET', `/admin/merchants/${created.id}`);
    expect(status).toBe(200);
    const { apiToken: _token, tokenId: _tokenId, ...settings } = created;
    expect(body).toEqual(settings);
    expect(JSON.stringify(body)).not.toContain(created.apiToken);
  });

  it('404 for an unknown merchant id, 400 on the path parameter for a malformed one', async () => {
    expect((await admin('GET', '/admin/merchants/0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10')).body.code).toBe(
      'MERCHANT_NOT_FOUND',
    );
    const malformed = await admin('GET', '/admin/merchants/42');
    expect(malformed.status).toBe(400);
    expect((malformed.body.errors ?? []).map((error: { path: string }) => error.path)).toEqual(['id']);
    expect(
      (await admin('PATCH', '/admin/merchants/0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10', { name: 'X' })).status,
    ).toBe(404);
  });

  it('changes only the fields given; the next merchant request carries the new settings', async () => {
    const created = await createMerchant();
    expect((await asMerchant(created.apiToken)).body.merchant).toMatchObject({
      saasContract: false,
      callbackUrl: null,
    });
    const patched = await admin('PATCH', `/admin/merchants/${created.id}`, {
      saasContract: true,
      callbackUrl: 'https://gym.example.com/cb',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Gym Asunción',
      saasContract: true,
      callbackUrl: 'https://gym.example.com/cb',
    });
    const seen = await asMerchant(created.apiToken);
    expect(seen.body.merchant).toMatchObject({
      merchantId: created.id,
      saasContract: true,
      callbackUrl: 'https://gym.example.com/cb',
      timezone: 'America/Asuncion',
    });
    // The token stays at the gateway; services see only the signed context.
    expect(seen.body).toMatchObject({ apiTokenForwarded: false });
    expect(
      (await admin('PATCH', `/admin/merchants/${created.id}`, { callbackUrl: null })).body.callbackUrl,
    ).toBeNull();
  });

  it('moving to the international instance takes its default currency; invalid changes are 400 and change nothing', async () => {
    const created = await createMerchant();
    const moved = await admin('PATCH', `/admin/merchants/${created.id}`, { instance: 'INTERNATIONAL' });
    expect(moved.body).toMatchObject({ instance: 'INTERNATIONAL', currency: 'USD' });
    const refused = await admin('PATCH', `/admin/merchants/${created.id}`, { currency: 'PYG' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.map((e) => e.path)).toEqual(['currency']);
    const badZone = await admin('PATCH', `/admin/merchants/${created.id}`, { timezone: 'Nowhere/Land' });
    expect(badZone.body.errors?.map((e) => e.path)).toEqual(['timezone']);
    expect((await admin('GET', `/admin/merchants/${created.id}`)).body).toMatchObject({
      currency: 'USD',
      timezone: 'America/Asuncion',
    });
  });
});

describe('API tokens', () => {
  it('issues another token; both work', async () => {
    const created = await createMerchant();
    const issued = await admin('POST', `/admin/merchants/${created.id}/tokens`);
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({
      tokenId: expect.any(String),
      apiToken: expect.any(String),
      createdAt: expect.any(String),
    });
    expect((await asMerchant(created.apiToken)).status).toBe(200);
    expect((await asMerchant(String(issued.body.apiToken))).body.merchant).toMatchObject({
      merchantId: created.id,
    });
    expect((await admin('GET', `/admin/merchants/${created.id}`)).body.tokens).toHaveLength(2);
  });

  it('a revoked token gets 401 at once; the merchant’s other token keeps working', async () => {
    const created = await createMerchant();
    const second = await admin('POST', `/admin/merchants/${created.id}/tokens`);
    expect((await asMerchant(created.apiToken)).status).toBe(200);
    const revoked = await gateway.request(
      'DELETE',
      `/admin/merchants/${created.id}/tokens/${created.tokenId}`,
      { headers: asAdmin },
    );
    expect(revoked.status).toBe(204);
    const refused = await asMerchant(created.apiToken);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await asMerchant(String(second.body.apiToken))).status).toBe(200);
    const listed = (await admin('GET', `/admin/merchants/${created.id}`)).body.tokens as Array<{
      tokenId: string;
      revokedAt: string | null;
    }>;
    expect(listed.find((t) => t.tokenId === created.tokenId)?.revokedAt).not.toBeNull();
    // Revoking again is harmless.
    expect(
      (
        await gateway.request('DELETE', `/admin/merchants/${created.id}/tokens/${created.tokenId}`, {
          headers: asAdmin,
        })
      ).status,
    ).toBe(204);
  });

  it("404 for an unknown token, another merchant's token, or an unknown merchant", async () => {
    const a = await createMerchant();
    const b = await createMerchant();
    const unknown = '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10';
    expect((await admin('DELETE', `/admin/merchants/${a.id}/tokens/${unknown}`)).body?.code).toBe(
      'API_TOKEN_NOT_FOUND',
    );
    expect((await admin('DELETE', `/admin/merchants/${a.id}/tokens/${b.tokenId}`)).status).toBe(404);
    expect((await admin('POST', `/admin/merchants/${unknown}/tokens`)).status).toBe(404);
    // B's token was not touched by A's attempt.
    expect((await asMerchant(b.apiToken)).status).toBe(200);
  });

  it('401 for a missing, malformed or unknown Api-Token', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { 'api-token': 'not-a-uuid' },
      { 'api-token': '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10' },
    ];
    for (const headers of attempts) {
      const response = await gateway.request('GET', '/api/payrequests/1', { headers });
      expect(response.status).toBe(401);
    }
  });

  it('never stores a token in clear: every gateway table holds only hashes', async () => {
    const created = await createMerchant();
    const issued = await admin('POST', `/admin/merchants/${created.id}/tokens`);
    const tokens = [created.apiToken, String(issued.body.apiToken)];
    for (const token of tokens) expect((await asMerchant(token)).status).toBe(200);
    const tables = rowsOf<{ table_name: string }>(
      await gateway.database.db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'gateway' and table_type = 'BASE TABLE'`,
      ),
    ).map((row) => row.table_name);
    expect(tables).toEqual(expect.arrayContaining(['merchants', 'api_tokens', 'idempotency_records']));
    let dump = '';
    for (const table of tables) {
      dump += JSON.stringify(
        rowsOf(await gateway.database.db.execute(sql.raw(`select * from gateway."${table}"`))),
      );
    }
    for (const token of tokens) {
      expect(dump).not.toContain(token);
      expect(dump.toLowerCase()).not.toContain(token.replace(/-/g, ''));
      expect(dump).toContain(createHash('sha256').update(token).digest('hex'));
    }
  });
});

describe('/openapi.json and /docs', () => {
  it('serves the OpenAPI 3.1 document without credentials', async () => {
    const response = await gateway.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toContain('/api/saleitems/add');
  });

  it('renders /docs from files served by the gateway itself (no CDN)', async () => {
    const page = await gateway.request('GET', '/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      expect(source.startsWith('/')).toBe(true);
      const asset = await gateway.request('GET', source);
      expect(asset.status, source).toBe(200);
      expect((await asset.text()).length, source).toBeGreaterThan(100);
    }
    expect(await gateway.request('GET', '/docs/init.js').then((r) => r.text())).toContain('/openapi.json');
    expect((await gateway.request('GET', '/docs/package.json')).status).toBe(404);
  });

  it('serves every documented operator endpoint (no "No route" 404)', async () => {
    const document = (await (await gateway.request('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const id = '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10';
    for (const [path, methods] of Object.entries(document.paths).filter(([p]) => p.startsWith('/admin/'))) {
      for (const method of Object.keys(methods)) {
        const response = await gateway.request(method.toUpperCase(), path.replace(/\{[^}]+\}/g, id), {
          body: method === 'get' || method === 'delete' ? undefined : {},
          headers: asAdmin,
        });
        const problem = response.status === 404 ? ((await response.json()) as { detail: string }) : undefined;
        expect(problem?.detail ?? '', `${method} ${path}`).not.toMatch(/^No route/);
      }
    }
  });
});
