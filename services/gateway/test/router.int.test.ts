import { type ServiceUnderTest, startService } from '@payrail/testing';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayService } from '../src/service';

// The router against the document: every public route the gateway mounts is an operation of
// /openapi.json and every operation is mounted, so an undocumented route fails here. Only the
// infrastructure routes (probes, the reference itself), the developer's mailbox (not a merchant API:
// README "Logging in on the pay page") and the console's pages (`/console/*`, HTML for people, whose every
// action is one of the documented operations) are outside the document.
const INFRASTRUCTURE = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /openapi.json',
  'GET /docs',
  'GET /docs/init.js',
  'GET /docs/{asset}',
  'GET /dev/mailbox',
]);

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startService(gatewayService, { env: { ADMIN_TOKEN: 'admin-token-for-tests-0123456789' } });
});
afterAll(async () => gateway?.stop());

/** `METHOD /path/{param}` of every handler bound to a method (middleware and the 405 answers are `ALL`). */
function mountedRoutes(app: Hono): Set<string> {
  return new Set(
    app.routes
      .filter((candidate) => candidate.method !== 'ALL')
      .map((candidate) => `${candidate.method} ${candidate.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((entry) => !INFRASTRUCTURE.has(entry) && !/^\w+ \/console(\/|$)/.test(entry)),
  );
}

function documentedRoutes(document: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  return new Set(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    ),
  );
}

function differences(mounted: Set<string>, documented: Set<string>) {
  return {
    undocumented: [...mounted].filter((entry) => !documented.has(entry)).sort(),
    unmounted: [...documented].filter((entry) => !mounted.has(entry)).sort(),
  };
}

async function servedDocument() {
  const response = await gateway.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  return (await response.json()) as { paths: Record<string, Record<string, unknown>> };
}

describe('gateway router vs /openapi.json', () => {
  it('mounts exactly the documented operations', async () => {
    const app = gateway.instance.app as unknown as Hono;
    const mounted = mountedRoutes(app);
    const documented = documentedRoutes(await servedDocument());
    expect(documented.size).toBeGreaterThan(15);
    expect(differences(mounted, documented)).toEqual({ undocumented: [], unmounted: [] });
  });

  it('reports a route added without an operation, and an operation left unmounted (the check can fail)', async () => {
    const app = gateway.instance.app as unknown as Hono;
    const mounted = mountedRoutes(app);
    const documented = documentedRoutes(await servedDocument());
    mounted.add('POST /api/secret-backdoor');
    documented.add('GET /api/forgotten');
    expect(differences(mounted, documented)).toEqual({
      undocumented: ['POST /api/secret-backdoor'],
      unmounted: ['GET /api/forgotten'],
    });
  });

  it('answers 405 with Allow at the edge for a documented path with another method', async () => {
    // Past authentication, so a merchant token is needed; any well-formed token of a merchant will do.
    const created = await gateway.request('POST', '/admin/merchants', {
      body: { name: 'Router test', instance: 'NATIONAL' },
      headers: { authorization: 'Bearer admin-token-for-tests-0123456789' },
    });
    const { apiToken, id } = (await created.json()) as { apiToken: string; id: string };
    const wrong = await gateway.request('GET', '/api/saleitems/add', { headers: { 'api-token': apiToken } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    const admin = await gateway.request('PUT', `/admin/merchants/${id}`, {
      headers: { authorization: 'Bearer admin-token-for-tests-0123456789' },
    });
    expect(admin.status).toBe(405);
    expect(admin.headers.get('allow')).toBe('GET, PATCH, HEAD');
    const bank = await gateway.request('GET', '/api/bank-notification/add', {
      headers: { 'api-token': apiToken },
    });
    expect(bank.status).toBe(405);
    expect(bank.headers.get('allow')).toBe('POST');
    const unknown = await gateway.request('GET', '/api/bank-notification/nothing', {
      headers: { 'api-token': apiToken },
    });
    expect(unknown.status).toBe(404);
  });
});
