import { randomUUID } from 'node:crypto';
import {
  API_TOKEN_SCOPES,
  type ApiTokenScope,
  apiOperations,
  grants,
  MERCHANT_ROLES,
  type MerchantRole,
  OPERATION_PERMISSIONS,
} from '@payrail/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aConsoleUser,
  type AuditEntryJson,
  type ConsoleBrowser,
  type ConsoleSystem,
  type Json,
  startConsoleSystem,
} from './support';

// The role × action matrix (issue 28): every operation of the merchant API, for each console role and each
// token scope, allowed or 403 as the permission table says. A console user acts as a page does, through a
// stand-in page that calls `consoleApi` (the seam every page acts through) with what a form would send; a
// token through its header. Writes carry an empty body: an allowed one is refused later (400, 404, or the
// service behind, absent here: 503) and changes nothing, a forbidden one never gets that far.

const ANY_ID = '0f0e0d0c-0b0a-4998-8776-655443322110';

let system: ConsoleSystem;
let merchant: { id: string; apiToken: string };
let other: { id: string; apiToken: string };
const users = new Map<MerchantRole, ConsoleBrowser>();
const tokens = new Map<ApiTokenScope, string>();

beforeAll(async () => {
  system = await startConsoleSystem({
    consolePages: (app) =>
      app.post('/console/stand-in-page', async (c) => {
        const request = (await c.req.json()) as { method: string; path: string; body?: unknown };
        const answer = await c.var.consoleApi.call({ ...request, idempotencyKey: randomUUID() });
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
      }),
  });
  [merchant, other] = await Promise.all([system.merchant('Gimnasio Central'), system.merchant('Otro')]);
  for (const role of MERCHANT_ROLES)
    users.set(role, await aConsoleUser(system, merchant.id, `${role}@gym.example.com`, role));
  tokens.set('full', merchant.apiToken);
  const readOnly = await system.api(merchant.apiToken, 'POST', '/api/api-tokens', {
    name: 'ro',
    scope: 'read-only',
  });
  tokens.set('read-only', readOnly.json().apiToken as string);
}, 60_000);
afterAll(async () => system?.stop());

const merchantOperations = apiOperations.filter((operation) => operation.security === 'apiToken');

function requestOf(operation: (typeof merchantOperations)[number]) {
  return {
    method: operation.method.toUpperCase(),
    path: operation.path.replace(/\{[^}]+\}/g, ANY_ID),
    body: operation.method === 'get' || operation.method === 'delete' ? undefined : {},
  };
}

describe('role × action matrix', () => {
  it('covers every merchant operation', () => {
    expect(merchantOperations.length).toBeGreaterThan(30);
    for (const operation of merchantOperations)
      expect(OPERATION_PERMISSIONS[operation.operationId]).toBeDefined();
  });

  it.each(MERCHANT_ROLES)(
    'a console user with the role %s: each operation allowed or 403 as specified',
    async (role) => {
      const browser = users.get(role) as ConsoleBrowser;
      const wrong: string[] = [];
      for (const operation of merchantOperations) {
        const permission = OPERATION_PERMISSIONS[operation.operationId];
        if (!permission) throw new Error(operation.operationId);
        const answer = await browser.postJson('/console/stand-in-page', requestOf(operation));
        const refused = answer.status === 403;
        if (refused !== !grants(role, permission)) wrong.push(`${operation.operationId}: ${answer.status}`);
        if (refused) expect(JSON.parse(answer.text)).toMatchObject({ code: 'FORBIDDEN' });
      }
      expect(wrong).toEqual([]);
    },
  );

  it.each(API_TOKEN_SCOPES)(
    'an API token of scope %s: each operation allowed or 403 as specified',
    async (scope) => {
      const token = tokens.get(scope) as string;
      const wrong: string[] = [];
      for (const operation of merchantOperations) {
        const permission = OPERATION_PERMISSIONS[operation.operationId];
        if (!permission) throw new Error(operation.operationId);
        const { method, path, body } = requestOf(operation);
        const answer = await system.api(token, method, path, body);
        if ((answer.status === 403) !== !grants(scope, permission))
          wrong.push(`${operation.operationId}: ${answer.status}`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it('the audit log records each write with who: every write operation, made with the read-only token, is an entry naming it and the token', async () => {
    const token = tokens.get('read-only') as string;
    const tokenId = (
      (await system.api(merchant.apiToken, 'GET', '/api/api-tokens')).json().tokens as Array<{
        id: string;
        name: string | null;
      }>
    ).find((one) => one.name === 'ro')?.id;
    const missing: string[] = [];
    for (const operation of merchantOperations) {
      if (OPERATION_PERMISSIONS[operation.operationId]?.access !== 'write') continue;
      const { method, path, body } = requestOf(operation);
      expect((await system.api(token, method, path, body)).status).toBe(403);
      const [entry] = (await system.api(merchant.apiToken, 'GET', '/api/audit-log?limit=1')).json()
        .entries as AuditEntryJson[];
      if (
        entry?.operationId !== operation.operationId ||
        entry.status !== 403 ||
        entry.actor.id !== tokenId ||
        entry.actor.label !== 'ro'
      )
        missing.push(`${operation.operationId}: ${JSON.stringify(entry?.actor)} ${entry?.operationId}`);
    }
    expect(missing).toEqual([]);
  });

  it('the table: owner everything; operations, developer and viewer read all and write their areas; tokens never users', () => {
    const writes = (holder: MerchantRole | ApiTokenScope) =>
      merchantOperations
        .filter((operation) => OPERATION_PERMISSIONS[operation.operationId]?.access === 'write')
        .filter((operation) => grants(holder, OPERATION_PERMISSIONS[operation.operationId] as never))
        .map((operation) => OPERATION_PERMISSIONS[operation.operationId]?.area);
    expect(new Set(writes('owner'))).toEqual(
      new Set(['links', 'subscriptions', 'refunds', 'transfers', 'webhooks', 'tokens', 'users']),
    );
    expect(new Set(writes('operations'))).toEqual(
      new Set(['links', 'subscriptions', 'refunds', 'transfers']),
    );
    expect(new Set(writes('developer'))).toEqual(new Set(['webhooks', 'tokens']));
    expect(writes('viewer')).toEqual([]);
    expect(new Set(writes('full'))).toEqual(
      new Set(['links', 'subscriptions', 'refunds', 'transfers', 'webhooks', 'tokens']),
    );
    expect(writes('read-only')).toEqual([]);
    for (const role of MERCHANT_ROLES) expect(grants(role, { area: 'users', access: 'read' })).toBe(true);
    for (const scope of API_TOKEN_SCOPES)
      expect(grants(scope, { area: 'users', access: 'read' })).toBe(false);
  });
});

describe("another merchant's objects", () => {
  it('are 404 to every role and scope, never 403', async () => {
    const endpoint = (
      await system.api(other.apiToken, 'POST', '/api/webhook-endpoints', {
        url: 'https://other.example.com/hooks',
      })
    ).json();
    const token = (
      await system.api(other.apiToken, 'POST', '/api/api-tokens', { name: 'theirs', scope: 'full' })
    ).json();
    const user = (
      await system.admin('POST', `/admin/merchants/${other.id}/users`, { email: 'theirs@other.example.com' })
    ).json();
    const theirs: Array<{ method: string; path: string; body?: Json }> = [
      { method: 'GET', path: `/api/webhook-endpoints/${endpoint.id}` },
      { method: 'PATCH', path: `/api/webhook-endpoints/${endpoint.id}`, body: { description: 'mine now' } },
      { method: 'DELETE', path: `/api/webhook-endpoints/${endpoint.id}` },
      { method: 'DELETE', path: `/api/api-tokens/${token.id}` },
    ];
    const owner = users.get('owner') as ConsoleBrowser;
    for (const request of theirs) {
      expect((await owner.postJson('/console/stand-in-page', request)).status, request.path).toBe(404);
      expect((await system.api(merchant.apiToken, request.method, request.path, request.body)).status).toBe(
        404,
      );
    }
    for (const request of [
      { method: 'PATCH', path: `/api/users/${user.id}`, body: { role: 'viewer' } },
      { method: 'DELETE', path: `/api/users/${user.id}` },
    ])
      expect((await owner.postJson('/console/stand-in-page', request)).status).toBe(404);
    expect(
      (await system.api(other.apiToken, 'GET', `/api/webhook-endpoints/${endpoint.id}`)).json(),
    ).toMatchObject({
      description: null,
    });
  });
});

describe('a viewer cannot reach a write by crafting the form', () => {
  it('a crafted post of a write is 403 through the API, and nothing is made', async () => {
    const viewer = users.get('viewer') as ConsoleBrowser;
    const crafted = await viewer.postJson('/console/stand-in-page', {
      method: 'POST',
      path: '/api/webhook-endpoints',
      body: { url: 'https://viewer.example.com/hooks' },
    });
    expect(crafted.status).toBe(403);
    const endpoints = (await system.api(merchant.apiToken, 'GET', '/api/webhook-endpoints')).json().endpoints;
    expect(JSON.stringify(endpoints)).not.toContain('viewer.example.com');
    // The same form from a developer does it, recorded as that user.
    const developer = users.get('developer') as ConsoleBrowser;
    const made = await developer.postJson('/console/stand-in-page', {
      method: 'POST',
      path: '/api/webhook-endpoints',
      body: { url: 'https://developer.example.com/hooks' },
    });
    expect(made.status).toBe(201);
    const entries = (
      await system.api(merchant.apiToken, 'GET', `/api/audit-log?target=${JSON.parse(made.text).id}`)
    ).json().entries as AuditEntryJson[];
    expect(entries[0]?.actor).toMatchObject({ type: 'user', label: 'developer@gym.example.com' });
    const refusal = (
      await system.api(merchant.apiToken, 'GET', '/api/audit-log?operationId=createWebhookEndpoint')
    ).json().entries as AuditEntryJson[];
    expect(
      refusal.some((entry) => entry.status === 403 && entry.actor.label === 'viewer@gym.example.com'),
    ).toBe(true);
  });

  it('a console user of one kind never reaches the other kind’s pages, and API calls of the other kind throw', async () => {
    const viewer = users.get('viewer') as ConsoleBrowser;
    const operatorPage = await viewer.get('/console/operator');
    expect(operatorPage.status).toBe(303);
    expect(operatorPage.headers.get('location')).toBe('/console');
    const adminCall = await viewer.postJson('/console/stand-in-page', {
      method: 'GET',
      path: '/admin/operators',
    });
    expect(adminCall.status).toBe(500);
  });
});
