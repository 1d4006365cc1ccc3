import { DEFAULT_CUSTOMER_EMAIL_SETTINGS } from '@payrail/contracts';
import { type ServiceUnderTest, startService } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayService } from '../src/service';

// The gateway's own operations the merchant console reads (issue 28): the merchant's profile by its token,
// and the operator's list of merchants, paged newest first.

const ADMIN_TOKEN = 'admin-token-for-console-tests-0123';
const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };
let gateway: ServiceUnderTest;

beforeAll(async () => {
  gateway = await startService(gatewayService, { env: { ADMIN_TOKEN } });
});
afterAll(async () => gateway?.stop());

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await gateway.request(method, path, { headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function createMerchant(name: string, settings: Record<string, unknown> = {}) {
  const created = await call('POST', '/admin/merchants', asAdmin, {
    name,
    instance: 'NATIONAL',
    ...settings,
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; apiToken: string };
}

describe('GET /api/merchant', () => {
  it('answers the settings of the token’s merchant, and 401 without a valid token', async () => {
    const merchant = await createMerchant('Gym Central', {
      saasContract: true,
      callbackUrl: 'https://gym.example.com/cb',
      processors: ['PARAGUAY.PROCESSOR_B'],
    });
    await createMerchant('Another gym');
    expect(await call('GET', '/api/merchant', { 'api-token': merchant.apiToken })).toEqual({
      status: 200,
      body: {
        id: merchant.id,
        name: 'Gym Central',
        instance: 'NATIONAL',
        currency: 'PYG',
        saasContract: true,
        noLoginEnabled: false,
        customerCancelAllowed: false,
        callbackUrl: 'https://gym.example.com/cb',
        timezone: 'America/Asuncion',
        processors: ['PARAGUAY.PROCESSOR_B'],
        customerEmails: DEFAULT_CUSTOMER_EMAIL_SETTINGS,
        contactEmail: null,
      },
    });
    // The operator changes it: the next request reads the change.
    expect(
      (await call('PATCH', `/admin/merchants/${merchant.id}`, asAdmin, { name: 'Gym Central SA' })).status,
    ).toBe(200);
    expect((await call('GET', '/api/merchant', { 'api-token': merchant.apiToken })).body.name).toBe(
      'Gym Central SA',
    );
    expect((await call('GET', '/api/merchant', {})).status).toBe(401);
    expect(
      (await call('PATCH', '/api/merchant', { 'api-token': merchant.apiToken }, { name: 'x' })).status,
    ).toBe(405);
  });
});

describe('GET /admin/merchants', () => {
  it('pages every merchant newest first, with its settings and without its tokens; a bad cursor is 400', async () => {
    const made: string[] = [];
    for (const name of ['Uno', 'Dos', 'Tres']) made.push((await createMerchant(name)).id);
    const first = await call('GET', '/admin/merchants?limit=2', asAdmin);
    expect(first.status).toBe(200);
    const merchants = first.body.merchants as Array<Record<string, unknown>>;
    expect(merchants.map((merchant) => merchant.id)).toEqual([made[2], made[1]]);
    expect(merchants[0]).toEqual({
      id: made[2],
      name: 'Tres',
      instance: 'NATIONAL',
      currency: 'PYG',
      saasContract: false,
      noLoginEnabled: false,
      customerCancelAllowed: false,
      callbackUrl: null,
      timezone: 'America/Asuncion',
      processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
      customerEmails: DEFAULT_CUSTOMER_EMAIL_SETTINGS,
      contactEmail: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const second = await call('GET', `/admin/merchants?limit=2&cursor=${first.body.nextCursor}`, asAdmin);
    expect((second.body.merchants as Array<{ id: string }>)[0]?.id).toBe(made[0]);
    // Everything once, whatever the page size.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call('GET', `/admin/merchants?limit=1${cursor ? `&cursor=${cursor}` : ''}`, asAdmin);
      seen.push(...(page.body.merchants as Array<{ id: string }>).map((merchant) => merchant.id));
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(made));
    expect((await call('GET', '/admin/merchants?cursor=bm9wZQ', asAdmin)).status).toBe(400);
    expect((await call('GET', '/admin/merchants', {})).status).toBe(401);
  });
});
