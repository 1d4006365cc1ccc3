import { gatewayService } from '@payrail/gateway';
import { linksService } from '@payrail/links';
import { createInProcessBus } from '@payrail/messaging';
import { subscriptionsService } from '@payrail/subscriptions';
import { aStaticLink, type ServiceUnderTest, startService, waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The installment API as a merchant reaches it: through the gateway (Api-Token, body size), with the
// subscription made from a link by the event links publishes. In process, each service on its own database.
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const bus = createInProcessBus();
let gateway: ServiceUnderTest;
let links: ServiceUnderTest;
let subscriptions: ServiceUnderTest;

beforeAll(async () => {
  await bus.start();
  subscriptions = await startService(subscriptionsService, { bus });
  links = await startService(linksService, { bus });
  gateway = await startService(gatewayService, {
    env: { ADMIN_TOKEN },
    upstreams: {
      links: (request) => Promise.resolve(links.instance.app.fetch(request)),
      subscriptions: (request) => Promise.resolve(subscriptions.instance.app.fetch(request)),
    },
  });
});

afterAll(async () => {
  for (const service of [gateway, links, subscriptions]) await service?.stop();
  await bus.close();
});

async function newMerchantToken(): Promise<string> {
  const response = await gateway.request('POST', '/admin/merchants', {
    body: { name: 'Gym', instance: 'NATIONAL' },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { apiToken: string }).apiToken;
}

function call(method: string, path: string, token: string, body?: unknown) {
  return gateway.request(method, path, { body, headers: { 'api-token': token } });
}

function bulkBody(subscriptionCount: number, updatesEach: number) {
  return {
    operations: Array.from({ length: subscriptionCount }, (_, s) => ({
      custom_identifier: s === 0 ? 'member-1' : `nobody-${s}`,
      updates: Array.from({ length: updatesEach }, (_, u) => ({
        payment_date: `${2027 + Math.floor(u / 12)}-${String((u % 12) + 1).padStart(2, '0')}-05`,
        amount: 99500,
      })),
    })),
  };
}

describe('installments through the gateway', () => {
  let token: string;

  it('a recurrent link made through the gateway becomes a subscription whose installments are listed', async () => {
    token = await newMerchantToken();
    const created = await call(
      'POST',
      '/api/saleitems/add',
      token,
      aStaticLink({ customIdentifier: 'member-1', totalPeriods: 4 }),
    );
    expect(created.status).toBe(200);
    const listed = await waitFor(async () => {
      const response = await call('GET', '/api/subscriptions/installments?custom_identifier=member-1', token);
      return response.status === 200 ? ((await response.json()) as { installments: unknown[] }) : undefined;
    });
    expect(listed.installments).toHaveLength(4);
  });

  it('another merchant does not find it (404)', async () => {
    const other = await newMerchantToken();
    const response = await call('GET', '/api/subscriptions/installments?custom_identifier=member-1', other);
    expect(response.status).toBe(404);
  });

  it('accepts a bulk body of 200 subscriptions × 60 updates, and 413 beyond', async () => {
    const body = bulkBody(200, 60);
    expect(JSON.stringify(body).length).toBeGreaterThan(500_000);
    const response = await call('PATCH', '/api/subscriptions/installments/bulk', token, body);
    expect(response.status).toBe(200);
    const result = (await response.json()) as { summary: Record<string, number> };
    expect(result.summary).toMatchObject({ subscriptions_received: 200, subscriptions_processed: 1 });
    expect(
      (await call('PATCH', '/api/subscriptions/installments/bulk', token, bulkBody(201, 1))).status,
    ).toBe(413);
    expect((await call('PATCH', '/api/subscriptions/installments/bulk', token, bulkBody(1, 61))).status).toBe(
      413,
    );
  });
});

describe('cancel-all before the first payment, through the gateway', () => {
  it('cancels the subscription and then its unpaid link (statusId 7), which the merchant lists as cancelled', async () => {
    const token = await newMerchantToken();
    const created = await call(
      'POST',
      '/api/saleitems/add',
      token,
      aStaticLink({ customIdentifier: 'member-cancel', totalPeriods: 3 }),
    );
    const link = (await created.json()) as { id: number };
    await waitFor(async () => {
      const response = await call('GET', `/api/subscriptions?payRequestId=${link.id}`, token);
      return ((await response.json()) as { subscriptions: unknown[] }).subscriptions.length === 1;
    });
    const cancelled = await call('POST', '/api/subscriptions/cancel-all', token, {
      customIdentifier: 'member-cancel',
    });
    expect(cancelled.status).toBe(200);
    // subscription.cancelled travels to links, which cancels the link.
    await waitFor(async () => {
      const response = await call('GET', `/api/payrequests/${link.id}`, token);
      return ((await response.json()) as { statusId: number }).statusId === 7;
    });
    const listed = await call('GET', '/api/payrequests?status=cancelled', token);
    expect(
      ((await listed.json()) as { payRequests: Array<{ id: number }> }).payRequests.map((l) => l.id),
    ).toEqual([link.id]);
    // Cancelled, the link can no longer be cancelled by the merchant either.
    const again = await call('POST', `/api/payrequests/${link.id}/cancel`, token);
    expect(again.status).toBe(409);
  });
});
