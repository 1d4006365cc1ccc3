import type { DatabaseHandle } from '@payrail/db';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import { type MigratedTestDatabase, migratedTestDatabase, TEST_INTERNAL_SECRET } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT, gatewayService } from '../src/service';

// Every `npm start` seeds the demo merchant with DEMO_API_TOKEN (a new one each start unless given):
// the gateway's database is the same from one start to the next, so this runs the gateway's start
// several times on one database.

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const FIRST = '0b8f4a52-6c1d-4e3a-9f27-5d8c1b2a3e4f';
const SECOND = 'c4d2e1f0-9a8b-4c7d-8e6f-5a4b3c2d1e0f';

let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('gateway_demo', gatewayService, { max: 3 });
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

/** One gateway start with this demo token; only its app is needed, so nothing is left running. */
async function startWith(demoToken: string, now = new Date()) {
  const bus = createInProcessBus();
  const instance = await gatewayService.create({
    database,
    bus,
    logger: createLogger('gateway', 'silent'),
    clock: { now: () => now },
    internalSecret: TEST_INTERNAL_SECRET,
    env: { DEMO_API_TOKEN: demoToken, ADMIN_TOKEN },
    upstream: () => async () => Response.json({ reached: true }),
  });
  return {
    /** The status of a merchant call with this token: 200 when it reached the upstream, 401 when refused. */
    async statusWith(token: string) {
      const response = await instance.app.fetch(
        new Request('http://gateway.test/api/payrequests/1', { headers: { 'api-token': token } }),
      );
      return response.status;
    },
    async demoTokens() {
      const response = await instance.app.fetch(
        new Request(`http://gateway.test/admin/merchants/${DEMO_MERCHANT.merchantId}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        }),
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { tokens: Array<{ revokedAt: string | null }> }).tokens;
    },
  };
}

describe('the demo merchant keeps exactly one live token across starts', () => {
  it('a start with another token revokes the previous one', async () => {
    const first = await startWith(FIRST, new Date('2026-11-23T10:00:00Z'));
    expect(await first.statusWith(FIRST)).toBe(200);

    const second = await startWith(SECOND, new Date('2026-11-23T11:00:00Z'));
    expect(await second.statusWith(SECOND)).toBe(200);
    expect(await second.statusWith(FIRST)).toBe(401);
    const tokens = await second.demoTokens();
    expect(tokens.filter((token) => token.revokedAt === null)).toHaveLength(1);
    expect(tokens.find((token) => token.revokedAt !== null)?.revokedAt).toBe('2026-11-23T11:00:00.000Z');
  });

  it('a start with the same token reuses it: no new token row', async () => {
    const before = await (await startWith(SECOND)).demoTokens();
    const again = await startWith(SECOND);
    expect(await again.statusWith(SECOND)).toBe(200);
    expect(await again.demoTokens()).toEqual(before);
  });

  it('a token given again after another replaced it works again, and is still the only live one', async () => {
    const back = await startWith(FIRST);
    expect(await back.statusWith(FIRST)).toBe(200);
    expect(await back.statusWith(SECOND)).toBe(401);
    const tokens = await back.demoTokens();
    expect(tokens).toHaveLength(2);
    expect(tokens.filter((token) => token.revokedAt === null)).toHaveLength(1);
  });
});
