import { OPERATOR_SIGNATURE_HEADER, signOperatorContext, verifyOperatorContext } from '@payrail/http';
import { type ServiceUnderTest, startService, TEST_INTERNAL_SECRET } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayService } from '../src/service';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** Stands in for billing-scheduler: answers what it was sent and whether the operator signature holds. */
const seen: Array<{ method: string; path: string; signed: boolean; body: string }> = [];
async function echoOperator(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const signed = verifyOperatorContext(
    request.headers.get(OPERATOR_SIGNATURE_HEADER) ?? undefined,
    request.method,
    url.pathname,
    TEST_INTERNAL_SECRET,
  );
  seen.push({ method: request.method, path: url.pathname + url.search, signed, body: await request.text() });
  return Response.json({ forwarded: true }, { status: request.method === 'POST' ? 202 : 200 });
}

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startService(gatewayService, {
    env: { ADMIN_TOKEN },
    upstreams: { 'billing-scheduler': echoOperator },
  });
});
afterAll(async () => {
  await gateway?.stop();
});

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('/admin/billing/* and dunning policies: through the gateway to billing-scheduler', () => {
  it('forwards an operator’s run request, signed for its method and path', async () => {
    seen.length = 0;
    const response = await gateway.request('POST', '/admin/billing/runs', {
      body: { asOf: '2026-11-22' },
      headers: asAdmin,
    });
    expect(response.status).toBe(202);
    const list = await gateway.request('GET', '/admin/billing/runs?limit=5', { headers: asAdmin });
    expect(list.status).toBe(200);
    expect(seen).toEqual([
      { method: 'POST', path: '/admin/billing/runs', signed: true, body: '{"asOf":"2026-11-22"}' },
      { method: 'GET', path: '/admin/billing/runs?limit=5', signed: true, body: '' },
    ]);
  });

  it('answers 401 without the admin token, forwarding nothing', async () => {
    seen.length = 0;
    const response = await gateway.request('POST', '/admin/billing/runs', { body: { asOf: '2026-11-22' } });
    expect(response.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it("a dunning policy of a merchant that does not exist is 404 at the gateway; an existing one's is forwarded", async () => {
    seen.length = 0;
    const missing = await gateway.request(
      'GET',
      '/admin/merchants/7d1f0a3c-9b2e-4c5d-8e6f-1a2b3c4d5e6f/dunning-policy',
      {
        headers: asAdmin,
      },
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'MERCHANT_NOT_FOUND' });
    expect(seen).toEqual([]);

    const created = await gateway.request('POST', '/admin/merchants', {
      body: { name: 'Gym', instance: 'NATIONAL' },
      headers: asAdmin,
    });
    const { id } = (await created.json()) as { id: string };
    const put = await gateway.request('PUT', `/admin/merchants/${id}/dunning-policy`, {
      body: { retryOffsetDays: [1, 2], cancelAfterFailedInstallments: null },
      headers: asAdmin,
    });
    expect(put.status).toBe(200);
    // The policy as it was is read first, for the audit log's `before`, then the change is forwarded.
    expect(seen).toEqual([
      { method: 'GET', path: `/admin/merchants/${id}/dunning-policy`, signed: true, body: '' },
      {
        method: 'PUT',
        path: `/admin/merchants/${id}/dunning-policy`,
        signed: true,
        body: '{"retryOffsetDays":[1,2],"cancelAfterFailedInstallments":null}',
      },
    ]);
  });

  it('a signature for one method and path opens no other, and expires', () => {
    const signed = signOperatorContext('GET', '/admin/billing/runs', TEST_INTERNAL_SECRET)[
      OPERATOR_SIGNATURE_HEADER
    ];
    expect(verifyOperatorContext(signed, 'GET', '/admin/billing/runs', TEST_INTERNAL_SECRET)).toBe(true);
    expect(verifyOperatorContext(signed, 'POST', '/admin/billing/runs', TEST_INTERNAL_SECRET)).toBe(false);
    expect(verifyOperatorContext(signed, 'GET', '/admin/billing/runs/x', TEST_INTERNAL_SECRET)).toBe(false);
    expect(verifyOperatorContext(signed, 'GET', '/admin/billing/runs', 'another-secret-0123456789')).toBe(
      false,
    );
    expect(
      verifyOperatorContext(signed, 'GET', '/admin/billing/runs', TEST_INTERNAL_SECRET, Date.now() + 600_000),
    ).toBe(false);
  });
});
