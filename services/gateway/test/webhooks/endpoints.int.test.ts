import { rowsOf } from '@payrail/db';
import { type ServiceUnderTest, waitFor } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createEndpoint,
  createMerchant,
  type Receiver,
  startReceiver,
  startWebhookGateway,
} from './support';

// Endpoints: CRUD, secrets shown once and stored sealed, rotation with its overlap, the operator's
// view, another merchant's endpoint not found, and no server-side request forgery.

let gateway: ServiceUnderTest;
let strict: ServiceUnderTest;
let receiver: Receiver;

beforeAll(async () => {
  [gateway, strict, receiver] = await Promise.all([
    startWebhookGateway(),
    startWebhookGateway({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.stop(), strict?.stop(), receiver?.close()]);
});

function verifies(secret: string, request: Receiver['requests'][number]): boolean {
  try {
    new Webhook(secret).verify(request.body, {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

describe('webhook endpoints', () => {
  it('create, read, change and delete; the secret and credentials are never shown again nor stored in clear', async () => {
    const { token } = await createMerchant(gateway);
    const created = await call(gateway, 'POST', '/api/webhook-endpoints', {
      token,
      body: {
        url: receiver.url,
        method: 'PUT',
        auth: { type: 'basic', username: 'payrail', password: 'very-secret-password' },
        description: 'Accounting',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      method: 'PUT',
      auth: { type: 'basic', username: 'payrail' },
      events: ['PAYMENT_SUCCESS', 'PAYMENT_FAILED'],
      status: 'enabled',
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = created.body.id as string;
    const read = await call(gateway, 'GET', `/api/webhook-endpoints/${id}`, { token });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('very-secret-password');
    expect(read.body.secret).toBeUndefined();

    const rows = rowsOf<Record<string, unknown>>(
      await gateway.database.db.execute(sql`select * from gateway.webhook_endpoints where id = ${id}`),
    );
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain('very-secret-password');
    expect(stored).not.toContain(created.body.secret);

    const changed = await call(gateway, 'PATCH', `/api/webhook-endpoints/${id}`, {
      token,
      body: {
        method: 'POST',
        auth: { type: 'header', name: 'X-Token', value: 'abc' },
        events: ['LINK_EXPIRED'],
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      method: 'POST',
      auth: { type: 'header', name: 'X-Token' },
      events: ['LINK_EXPIRED'],
    });
    const list = await call(gateway, 'GET', '/api/webhook-endpoints', { token });
    expect(list.body.endpoints.map((endpoint: { id: string }) => endpoint.id)).toEqual([id]);

    expect((await call(gateway, 'DELETE', `/api/webhook-endpoints/${id}`, { token })).status).toBe(204);
    expect((await call(gateway, 'GET', `/api/webhook-endpoints/${id}`, { token })).status).toBe(404);
    expect((await call(gateway, 'DELETE', `/api/webhook-endpoints/${id}`, { token })).status).toBe(404);
  });

  it('a new endpoint takes the payment events unless told otherwise: kinds by name, or ["*"] for all', async () => {
    const { merchantId, token } = await createMerchant(gateway, 'Defaults');
    const create = (body: Record<string, unknown>) =>
      call(gateway, 'POST', '/api/webhook-endpoints', { token, body: { url: receiver.url, ...body } });
    const payments = ['PAYMENT_SUCCESS', 'PAYMENT_FAILED'];
    expect((await create({})).body.events).toEqual(payments);
    expect((await create({ events: null })).body.events).toEqual(payments);
    expect((await create({ events: ['*'] })).body.events).toEqual(['*']);
    // `*` covers every kind: a list that has it is `["*"]`.
    expect((await create({ events: ['LINK_EXPIRED', '*'] })).body.events).toEqual(['*']);
    expect((await create({ events: ['LINK_EXPIRED', 'LINK_EXPIRED'] })).body.events).toEqual([
      'LINK_EXPIRED',
    ]);
    const unknown = await create({ events: ['PAYMENT_REFUND'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((error: { path: string }) => error.path)).toEqual(['events.0']);
    expect((await create({ events: [] })).status).toBe(400);

    // The operator's API has the same default.
    const operated = await call(gateway, 'POST', `/admin/merchants/${merchantId}/webhook-endpoints`, {
      admin: true,
      body: { url: receiver.url },
    });
    expect(operated.body.events).toEqual(payments);

    // Changed to every kind, and back to the default with null; absent leaves it as it is.
    const id = operated.body.id as string;
    const patch = (body: Record<string, unknown>) =>
      call(gateway, 'PATCH', `/api/webhook-endpoints/${id}`, { token, body });
    expect((await patch({ events: ['*'] })).body.events).toEqual(['*']);
    expect((await patch({ description: 'x' })).body.events).toEqual(['*']);
    expect((await patch({ events: null })).body.events).toEqual(payments);
    const stored = rowsOf<{ events: unknown }>(
      await gateway.database.db.execute(sql`select events from gateway.webhook_endpoints where id = ${id}`),
    );
    expect(stored).toEqual([{ events: payments }]);
  });

  it("another merchant's endpoint is not found (404, not 403), through every operation", async () => {
    const owner = await createMerchant(gateway, 'Owner');
    const other = await createMerchant(gateway, 'Other');
    const { id } = await createEndpoint(gateway, owner.token, { url: receiver.url });
    for (const [method, path, body] of [
      ['GET', `/api/webhook-endpoints/${id}`, undefined],
      ['PATCH', `/api/webhook-endpoints/${id}`, { description: 'x' }],
      ['POST', `/api/webhook-endpoints/${id}/rotate-secret`, undefined],
      ['POST', `/api/webhook-endpoints/${id}/test`, undefined],
      [
        'POST',
        `/api/webhook-endpoints/${id}/replay`,
        { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' },
      ],
      ['DELETE', `/api/webhook-endpoints/${id}`, undefined],
    ] as const) {
      const answer = await call(gateway, method, path, { token: other.token, body });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.code).toBe('WEBHOOK_ENDPOINT_NOT_FOUND');
    }
    const list = await call(gateway, 'GET', '/api/webhook-endpoints', { token: other.token });
    expect(list.body.endpoints).toEqual([]);
    expect((await call(gateway, 'GET', `/api/webhook-endpoints/${id}`, { token: owner.token })).status).toBe(
      200,
    );
  });

  it('rotation: during the overlap both secrets verify the same delivery; the new one is shown once', async () => {
    const { token } = await createMerchant(gateway, 'Rotating');
    const { id, secret: oldSecret } = await createEndpoint(gateway, token, { url: receiver.url });
    const rotated = await call(gateway, 'POST', `/api/webhook-endpoints/${id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const read = await call(gateway, 'GET', `/api/webhook-endpoints/${id}`, { token });
    expect(read.body.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt);

    const before = receiver.requests.length;
    const test = await call(gateway, 'POST', `/api/webhook-endpoints/${id}/test`, { token });
    expect(test.status).toBe(202);
    const request = await waitFor(() =>
      receiver.requests.slice(before).find((r) => r.headers['webhook-id'] === test.body.eventId),
    );
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(newSecret, request)).toBe(true);
    expect(verifies(oldSecret, request)).toBe(true);
    expect(verifies('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', request)).toBe(false);
  });

  it('after the overlap only the new secret signs', async () => {
    const { token, merchantId } = await createMerchant(gateway, 'Rotated long ago');
    const { id, secret: oldSecret } = await createEndpoint(gateway, token, { url: receiver.url });
    const rotated = await call(gateway, 'POST', `/api/webhook-endpoints/${id}/rotate-secret`, { token });
    // The overlap ends: as if 24 hours had passed.
    await gateway.database.db.execute(
      sql`update gateway.webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where merchant_id = ${merchantId}`,
    );
    const test = await call(gateway, 'POST', `/api/webhook-endpoints/${id}/test`, { token });
    const request = await waitFor(() =>
      receiver.requests.find((r) => r.headers['webhook-id'] === test.body.eventId),
    );
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(rotated.body.secret, request)).toBe(true);
    expect(verifies(oldSecret, request)).toBe(false);
  });

  it('refuses URLs on loopback, private and link-local networks unless allowed, and names that resolve there', async () => {
    const { token } = await createMerchant(strict, 'Strict');
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'http://localhost/hooks',
      'http://10.1.2.3/hooks',
      'http://192.168.0.10/hooks',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hooks',
      'http://[fe80::1]/hooks',
      'http://[::ffff:127.0.0.1]/hooks',
      'ftp://files.example.com/hooks',
    ]) {
      const refused = await call(strict, 'POST', '/api/webhook-endpoints', { token, body: { url } });
      expect(refused.status, url).toBe(400);
      expect(refused.body.errors[0].path, url).toBe('url');
    }
    const rows = rowsOf<{ n: number }>(
      await strict.database.db.execute(sql`select count(*)::int as n from gateway.webhook_endpoints`),
    );
    expect(rows[0]?.n).toBe(0);
    // A public-looking name is accepted, but sending is refused where it resolves to a private address.
    const named = await createEndpoint(strict, token, {
      url: receiver.url.replace('127.0.0.1', 'localtest.invalid'),
    });
    expect(named.id).toBeDefined();
  });

  it("the operator manages a merchant's endpoints and sees a disabled one", async () => {
    const { merchantId, token } = await createMerchant(gateway, 'Operated');
    const created = await call(gateway, 'POST', `/admin/merchants/${merchantId}/webhook-endpoints`, {
      admin: true,
      body: { url: receiver.url, auth: { type: 'header', name: 'X-Token', value: 'op' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    // The merchant sees it too.
    expect((await call(gateway, 'GET', `/api/webhook-endpoints/${id}`, { token })).status).toBe(200);
    const paused = await call(gateway, 'PATCH', `/admin/merchants/${merchantId}/webhook-endpoints/${id}`, {
      admin: true,
      body: { enabled: false },
    });
    expect(paused.body).toMatchObject({ status: 'disabled', disabledReason: 'merchant' });
    const listed = await call(gateway, 'GET', `/admin/merchants/${merchantId}/webhook-endpoints`, {
      admin: true,
    });
    expect(listed.body.endpoints[0]).toMatchObject({ id, status: 'disabled' });
    const rotated = await call(
      gateway,
      'POST',
      `/admin/merchants/${merchantId}/webhook-endpoints/${id}/rotate-secret`,
      {
        admin: true,
      },
    );
    expect(rotated.status).toBe(200);
    const tested = await call(
      gateway,
      'POST',
      `/admin/merchants/${merchantId}/webhook-endpoints/${id}/test`,
      { admin: true },
    );
    expect(tested.status).toBe(202);
    expect(
      (
        await call(gateway, 'GET', `/admin/merchants/${crypto.randomUUID()}/webhook-endpoints`, {
          admin: true,
        })
      ).body.code,
    ).toBe('MERCHANT_NOT_FOUND');
    expect((await call(gateway, 'GET', `/admin/merchants/${merchantId}/webhook-endpoints`)).status).toBe(401);
    expect(
      (
        await call(gateway, 'DELETE', `/admin/merchants/${merchantId}/webhook-endpoints/${id}`, {
          admin: true,
        })
      ).status,
    ).toBe(204);
  });
});
