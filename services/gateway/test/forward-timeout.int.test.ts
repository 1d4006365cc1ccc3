import { type ServiceUnderTest, startService } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayService } from '../src/service';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const TIMEOUT_MS = 300;

/** Stands in for links: hangs while `slow` is set, answers at once otherwise. */
let slow = true;
let calls = 0;
async function linksThatMayHang(request: Request): Promise<Response> {
  calls += 1;
  if (slow) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  return Response.json({ path: new URL(request.url).pathname }, { status: 201 });
}

let gateway: ServiceUnderTest;
let apiToken: string;
beforeAll(async () => {
  gateway = await startService(gatewayService, {
    env: { ADMIN_TOKEN, UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) },
    upstreams: { links: linksThatMayHang },
  });
  const created = await gateway.request('POST', '/admin/merchants', {
    body: { name: 'Slow upstream merchant', instance: 'NATIONAL' },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(created.status).toBe(201);
  apiToken = ((await created.json()) as { apiToken: string }).apiToken;
});
afterAll(async () => {
  await gateway?.stop();
});

describe('gateway -> service call with a deadline', () => {
  it('answers 504 problem+json when the service does not answer in UPSTREAM_TIMEOUT_MS, then frees the idempotency key', async () => {
    const call = () =>
      gateway.request('POST', '/api/saleitems/add', {
        body: { label: 'x' },
        headers: { 'api-token': apiToken, 'idempotency-key': 'slow-once-0001' },
      });
    slow = true;
    const started = Date.now();
    const timedOut = await call();
    const elapsed = Date.now() - started;
    expect(timedOut.status).toBe(504);
    expect(timedOut.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await timedOut.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 504, code: 'UPSTREAM_TIMEOUT', errors: [] });
    expect(problem.detail).toContain('/api/saleitems/add');
    expect(typeof problem.requestId).toBe('string');
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(1_500);

    // A 5xx is not stored: the same key runs again once the service is back.
    slow = false;
    const callsBefore = calls;
    const retried = await call();
    expect(retried.status).toBe(201);
    expect(calls).toBe(callsBefore + 1);
  });
});
