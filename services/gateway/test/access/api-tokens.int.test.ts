import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntryJson, type ConsoleSystem, startConsoleSystem } from './support';

// Scoped API tokens the merchant manages itself, through the Api-Token header they then work in.

let system: ConsoleSystem;
let merchant: { id: string; apiToken: string; tokenId: string };
let other: { id: string; apiToken: string; tokenId: string };
beforeAll(async () => {
  system = await startConsoleSystem();
  [merchant, other] = await Promise.all([
    system.merchant('Gimnasio Central'),
    system.merchant('Otro comercio'),
  ]);
});
afterAll(async () => system?.stop());

describe('/api/api-tokens', () => {
  it('creates a read-only token, shown once; it reads, and every write is 403 before anything runs', async () => {
    system.clock.advance(60_000);
    const created = await system.api(merchant.apiToken, 'POST', '/api/api-tokens', {
      name: 'Monthly reports',
      scope: 'read-only',
    });
    expect(created.status).toBe(201);
    const token = created.json();
    expect(token).toMatchObject({
      name: 'Monthly reports',
      scope: 'read-only',
      lastUsedAt: null,
      revokedAt: null,
    });
    const readOnly = token.apiToken as string;

    expect((await system.api(readOnly, 'GET', '/api/api-tokens')).status).toBe(200);
    expect((await system.api(readOnly, 'GET', '/api/webhook-endpoints')).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/api-tokens', { name: 'more', scope: 'full' }],
      ['POST', '/api/webhook-endpoints', { url: 'https://shop.example.com/hooks' }],
      // Forwarded writes are refused at the gateway: links (a 503 here) is never asked.
      ['POST', '/api/saleitems/add', {}],
      ['POST', '/api/subscriptions/cancel-all', {}],
      ['DELETE', `/api/api-tokens/${token.id}`, undefined],
    ] as const) {
      const refused = await system.api(readOnly, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN' });
      expect(refused.json().detail).toMatch(/read-only API token may not call \w+ \(it needs \w+: write\)/);
    }
    expect((await system.api(merchant.apiToken, 'GET', '/api/webhook-endpoints')).json()).toEqual({
      endpoints: [],
    });

    const listed = (await system.api(merchant.apiToken, 'GET', '/api/api-tokens')).json().tokens as Array<
      Record<string, unknown>
    >;
    expect(listed.map((entry) => [entry.id, entry.scope])).toEqual([
      [token.id, 'read-only'],
      [merchant.tokenId, 'full'],
    ]);
    expect(listed[0]?.lastUsedAt).toBe('2026-11-23T12:01:00.000Z');
    expect(JSON.stringify(listed)).not.toContain(readOnly);
  });

  it('no token ever manages users, whatever its scope', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/users', undefined],
      ['POST', '/api/users', { email: 'x@example.com', role: 'viewer' }],
    ] as const) {
      const refused = await system.api(merchant.apiToken, method, path, body);
      expect(refused.status).toBe(403);
    }
  });

  it('revoked: 401 from the next request on; another merchant cannot see or revoke it (404)', async () => {
    const created = (
      await system.api(merchant.apiToken, 'POST', '/api/api-tokens', { name: 'CI', scope: 'full' })
    ).json();
    expect((await system.api(created.apiToken as string, 'GET', '/api/events')).status).toBe(200);
    expect((await system.api(other.apiToken, 'DELETE', `/api/api-tokens/${created.id}`)).status).toBe(404);
    expect(JSON.stringify((await system.api(other.apiToken, 'GET', '/api/api-tokens')).json())).not.toContain(
      created.id as string,
    );
    expect((await system.api(merchant.apiToken, 'DELETE', `/api/api-tokens/${created.id}`)).status).toBe(204);
    expect((await system.api(created.apiToken as string, 'GET', '/api/events')).status).toBe(401);
  });

  it('refuses a token without a name or with an unknown scope (400, each field named)', async () => {
    const refused = await system.api(merchant.apiToken, 'POST', '/api/api-tokens', {
      name: '',
      scope: 'admin',
    });
    expect(refused.status).toBe(400);
    expect((refused.json().errors as Array<{ path: string }>).map((error) => error.path).sort()).toEqual([
      'name',
      'scope',
    ]);
  });
});

describe('/api/audit-log', () => {
  it('records each write with who, what, on what, before and after (no secrets), and the refusals', async () => {
    const endpoint = (
      await system.api(merchant.apiToken, 'POST', '/api/webhook-endpoints', {
        url: 'https://shop.example.com/hooks',
        description: 'shop',
        auth: { type: 'header', name: 'X-Token', value: 'receiver-secret-value' },
      })
    ).json();
    const updated = await system.api(merchant.apiToken, 'PATCH', `/api/webhook-endpoints/${endpoint.id}`, {
      description: 'shop, new',
    });
    expect(updated.status).toBe(200);
    const readOnly = (
      await system.api(merchant.apiToken, 'POST', '/api/api-tokens', { name: 'viewer', scope: 'read-only' })
    ).json();
    await system.api(readOnly.apiToken as string, 'DELETE', `/api/webhook-endpoints/${endpoint.id}`);

    const log = await system.api(merchant.apiToken, 'GET', `/api/audit-log?target=${endpoint.id}`);
    expect(log.status).toBe(200);
    const entries = log.json().entries as AuditEntryJson[];
    expect(entries.map((entry) => [entry.operationId, entry.status, entry.actor.id])).toEqual([
      ['deleteWebhookEndpoint', 403, readOnly.id],
      ['updateWebhookEndpoint', 200, merchant.tokenId],
      ['createWebhookEndpoint', 201, merchant.tokenId],
    ]);
    const [refused, change, creation] = entries;
    expect(refused?.actor).toEqual({ type: 'token', id: readOnly.id, label: 'viewer' });
    expect(refused?.before).toBeNull();
    expect(change?.before).toMatchObject({ id: endpoint.id, description: 'shop' });
    expect(change?.after).toMatchObject({ id: endpoint.id, description: 'shop, new' });
    expect(change?.path).toBe(`/api/webhook-endpoints/${endpoint.id}`);
    expect(creation?.after).toMatchObject({ id: endpoint.id, auth: { type: 'header', name: 'X-Token' } });
    expect(JSON.stringify(entries)).not.toMatch(/whsec_|receiver-secret-value/);

    const tokenCreated = (
      await system.api(merchant.apiToken, 'GET', '/api/audit-log?operationId=createApiToken&limit=1')
    ).json();
    expect(tokenCreated.entries).toHaveLength(1);
    expect((tokenCreated.entries as AuditEntryJson[])[0]?.after).not.toHaveProperty('apiToken');
    expect(tokenCreated.nextCursor).toMatch(/^\d+$/);
    const older = (
      await system.api(
        merchant.apiToken,
        'GET',
        `/api/audit-log?operationId=createApiToken&limit=1&cursor=${tokenCreated.nextCursor}`,
      )
    ).json();
    expect((older.entries as Array<{ id: string }>)[0]?.id).not.toBe(
      (tokenCreated.entries as Array<{ id: string }>)[0]?.id,
    );

    // Reads, refused input and another merchant's log: not there.
    await system.api(merchant.apiToken, 'POST', '/api/api-tokens', { name: '' });
    const all = (await system.api(merchant.apiToken, 'GET', '/api/audit-log?limit=200')).json()
      .entries as Array<Record<string, unknown>>;
    expect(all.every((entry) => entry.method !== 'GET' && entry.status !== 400)).toBe(true);
    expect(
      (await system.api(other.apiToken, 'GET', `/api/audit-log?target=${endpoint.id}`)).json().entries,
    ).toEqual([]);
  });

  it("records the operator's changes to a merchant in that merchant's log", async () => {
    const changed = await system.admin('PATCH', `/admin/merchants/${merchant.id}`, { saasContract: true });
    expect(changed.status).toBe(200);
    const entries = (
      await system.api(merchant.apiToken, 'GET', '/api/audit-log?operationId=updateMerchant')
    ).json().entries as AuditEntryJson[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: 'operator', id: null, label: null },
      target: merchant.id,
      before: { saasContract: false },
      after: { saasContract: true },
    });
  });

  it('purges entries older than a year', async () => {
    const { purgeAuditLog } = await import('../../src/application/access/audit-log');
    const { postgresAuditLogStore } = await import('../../src/adapters/postgres/audit-log-store');
    const audit = postgresAuditLogStore(system.gateway.database.db);
    const before = (await system.api(merchant.apiToken, 'GET', '/api/audit-log?limit=200')).json()
      .entries as unknown[];
    expect(before.length).toBeGreaterThan(0);
    const later = { now: () => new Date(system.clock.now().getTime() + 366 * 86_400_000) };
    expect(await purgeAuditLog({ audit, clock: later })).toBeGreaterThanOrEqual(before.length);
    expect((await system.api(merchant.apiToken, 'GET', '/api/audit-log')).json().entries).toEqual([]);
  });
});

describe('an invitation that cannot be mailed', () => {
  it('is 503 MAIL_UNAVAILABLE and stores nobody, so that it can be sent again once mail works', async () => {
    const mailless = await startConsoleSystem({ env: { DEV_MAILBOX: 'false' } });
    try {
      const { id } = await mailless.merchant();
      const refused = await mailless.admin('POST', `/admin/merchants/${id}/users`, {
        email: 'owner@gym.example.com',
      });
      expect(refused.status).toBe(503);
      expect(refused.json()).toMatchObject({ code: 'MAIL_UNAVAILABLE' });
      expect((await mailless.admin('GET', `/admin/merchants/${id}/users`)).json()).toEqual({ users: [] });
      expect(
        (await mailless.admin('POST', '/admin/operators', { email: 'ops@payrail.example.com' })).status,
      ).toBe(503);
      expect((await mailless.admin('GET', '/admin/operators')).json()).toEqual({ operators: [] });
    } finally {
      await mailless.stop();
    }
  });
});
