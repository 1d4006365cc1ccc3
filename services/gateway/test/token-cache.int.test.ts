import { type DatabaseHandle, openDatabase } from '@payrail/db';
import { MERCHANT_CONTEXT_HEADER } from '@payrail/http';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import type { ServiceInstance } from '@payrail/runtime';
import { type ServiceUnderTest, startService, TEST_INTERNAL_SECRET } from '@payrail/testing';
import { systemClock } from '@payrail/time';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli';
import { gatewayService } from '../src/service';

// The Api-Token check is cached (a database round trip less per request); a revocation must still be
// refused on the very next request, on this replica and on the others. The TTL is long here, so only
// the invalidation (local, or NOTIFY from another process) can explain a refusal.
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const env = { ADMIN_TOKEN, TOKEN_CACHE_TTL_MS: String(10 * 60_000) };

/** Stands in for links: answers 200 with the merchant id the gateway signed. */
async function echo(request: Request): Promise<Response> {
  const context = JSON.parse(
    Buffer.from(request.headers.get(MERCHANT_CONTEXT_HEADER) ?? '', 'base64url').toString() || '{}',
  );
  return Response.json({ merchantId: context.merchantId ?? null });
}

let replicaA: ServiceUnderTest;
let replicaB: { instance: ServiceInstance; database: DatabaseHandle };

beforeAll(async () => {
  replicaA = await startService(gatewayService, { env, upstreams: { links: echo } });
  // A second replica on the same database, as a second gateway pod would be.
  const database = openDatabase({ url: replicaA.testDatabase.url, max: 2 });
  const bus = createInProcessBus();
  await bus.start();
  const instance = await gatewayService.create({
    database,
    bus,
    logger: createLogger('gateway-b', 'silent'),
    clock: systemClock,
    internalSecret: TEST_INTERNAL_SECRET,
    env: { PUBLIC_BASE_URL: 'http://pay.test', ...env },
    upstream: () => echo,
  });
  await instance.start();
  replicaB = { instance, database };
});

afterAll(async () => {
  await replicaB?.instance.stop();
  await replicaB?.database.close();
  await replicaA?.stop();
});

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

async function createMerchant() {
  const response = await replicaA.request('POST', '/admin/merchants', {
    body: { name: 'Cached Gym', instance: 'NATIONAL' },
    headers: asAdmin,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; apiToken: string; tokenId: string };
}

async function call(app: ServiceInstance['app'], token: string): Promise<number> {
  const response = await app.fetch(
    new Request('http://gateway.test/api/payrequests/1', { headers: { 'api-token': token } }),
  );
  await response.arrayBuffer();
  return response.status;
}

describe('Api-Token cache', () => {
  it('answers a known token from the cache: a change written behind its back is not seen', async () => {
    const merchant = await createMerchant();
    expect(await call(replicaA.instance.app, merchant.apiToken)).toBe(200);
    // Revoked directly in the table, without the NOTIFY every real write path sends.
    await replicaA.database.db.execute(
      sql`update gateway.api_tokens set revoked_at = now() where id = ${merchant.tokenId}`,
    );
    expect(await call(replicaA.instance.app, merchant.apiToken)).toBe(200);
  });

  it('refuses a token revoked through the admin API on the very next request of the same replica', async () => {
    const merchant = await createMerchant();
    expect(await call(replicaA.instance.app, merchant.apiToken)).toBe(200);
    expect(await call(replicaA.instance.app, merchant.apiToken)).toBe(200);
    const revoked = await replicaA.request(
      'DELETE',
      `/admin/merchants/${merchant.id}/tokens/${merchant.tokenId}`,
      { headers: asAdmin },
    );
    expect(revoked.status).toBe(204);
    expect(await call(replicaA.instance.app, merchant.apiToken)).toBe(401);
  });

  it('refuses it on another replica as soon as the commit is announced (NOTIFY), not after the TTL', async () => {
    const merchant = await createMerchant();
    expect(await call(replicaB.instance.app, merchant.apiToken)).toBe(200);
    const revoked = await replicaA.request(
      'DELETE',
      `/admin/merchants/${merchant.id}/tokens/${merchant.tokenId}`,
      { headers: asAdmin },
    );
    expect(revoked.status).toBe(204);
    const started = Date.now();
    while ((await call(replicaB.instance.app, merchant.apiToken)) !== 401) {
      expect(Date.now() - started).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  it('refuses a token revoked by the operator CLI (another process) on both replicas', async () => {
    const merchant = await createMerchant();
    expect(await call(replicaA.instance.app, merchant.apiToken)).toBe(200);
    expect(await call(replicaB.instance.app, merchant.apiToken)).toBe(200);
    const code = await runCli(['tokens', 'revoke', merchant.id, merchant.tokenId], {
      env: { DATABASE_URL: replicaA.testDatabase.url },
      stdout: () => {},
      stderr: () => {},
    });
    expect(code).toBe(0);
    for (const replica of [replicaA.instance.app, replicaB.instance.app]) {
      const started = Date.now();
      while ((await call(replica, merchant.apiToken)) !== 401) {
        expect(Date.now() - started).toBeLessThan(2_000);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  });

  it('accepts a newly issued token on its first request (unknown tokens are never cached)', async () => {
    const merchant = await createMerchant();
    const issued = await replicaA.request('POST', `/admin/merchants/${merchant.id}/tokens`, {
      headers: asAdmin,
    });
    const { apiToken } = (await issued.json()) as { apiToken: string };
    expect(await call(replicaB.instance.app, '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10')).toBe(401);
    expect(await call(replicaB.instance.app, apiToken)).toBe(200);
  });
});
