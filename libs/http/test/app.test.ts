import { createLogger } from '@payrail/observability';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createApp,
  createShutdown,
  jsonBody,
  listen,
  problems,
  requestHeader,
  SHUTDOWN_ORDER,
  signMerchantContext,
  verifyMerchantContext,
} from '../src/index';

const logger = createLogger('test', 'silent');
const merchant = {
  merchantId: '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f',
  name: 'M',
  instance: 'NATIONAL' as const,
  currency: 'PYG' as const,
  saasContract: false,
  noLoginEnabled: false,
  callbackUrl: null,
  timezone: 'America/Asuncion',
  processors: ['PARAGUAY.PROCESSOR_A' as const],
};

describe('createApp', () => {
  it('names the request id on answers made in memory (app.request), whatever their body', async () => {
    const { app } = createApp({ service: 't', logger, errors: {} });
    app.get('/json', (c) => c.json({ ok: true }));
    app.get('/text', (c) => c.text('hola'));
    app.get('/stream', () => new Response(new ReadableStream({ start: (s) => s.close() })));
    app.get('/frozen', () => Response.redirect('http://127.0.0.1/elsewhere', 302));
    app.get('/problem', () => {
      throw problems.conflict('SOMETHING', 'no');
    });
    for (const path of ['/json', '/text', '/stream', '/frozen', '/problem']) {
      const given = await app.request(path, { headers: { 'x-request-id': `req-${path.slice(1)}` } });
      await given.arrayBuffer();
      expect([path, given.headers.get('x-request-id')]).toEqual([path, `req-${path.slice(1)}`]);
      const made = await app.request(path);
      expect([path, made.headers.get('x-request-id')]).toEqual([
        path,
        expect.stringMatching(/^[0-9a-f-]{36}$/),
      ]);
    }
  });

  it('answers errors as RFC 9457 problem+json with the request id', async () => {
    const { app } = createApp({ service: 't', logger, errors: {} });
    app.post('/things', async (c) =>
      c.json(await jsonBody(c, z.object({ user: z.object({ email: z.email() }) }))),
    );
    app.get('/conflict', () => {
      throw problems.conflict('INSTALLMENT_NOT_PENDING', 'only pending installments can change');
    });
    const bad = await app.request('/things', {
      method: 'POST',
      body: '{"user":{"email":"nope"}}',
      headers: { 'x-request-id': 'req-1' },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    const body = (await bad.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', requestId: 'req-1' });
    expect(body.errors).toEqual([{ path: 'user.email', message: expect.any(String) }]);

    const malformed = await app.request('/things', { method: 'POST', body: '{"user":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { code: string }).code).toBe('MALFORMED_JSON');

    const conflict = await app.request('/conflict');
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { code: string }).code).toBe('INSTALLMENT_NOT_PENDING');

    const missing = await app.request('/nowhere');
    expect(missing.status).toBe(404);
  });

  it('hides unexpected errors behind a 500 problem', async () => {
    const { app } = createApp({ service: 't', logger, errors: {} });
    app.get('/boom', () => {
      throw new Error('database password is hunter2');
    });
    const response = await app.request('/boom');
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('hunter2');
  });

  it('/healthz needs no dependency; /readyz reports each check and 503 once shutting down', async () => {
    let databaseUp = true;
    const { app, markNotReady } = createApp({
      errors: {},
      service: 't',
      logger,
      readiness: {
        database: () => {
          if (!databaseUp) throw new Error('connection refused');
        },
      },
    });
    expect((await app.request('/readyz')).status).toBe(200);
    databaseUp = false;
    const down = await app.request('/readyz');
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'not-ready', checks: { database: 'connection refused' } });
    expect((await app.request('/healthz')).status).toBe(200);
    databaseUp = true;
    markNotReady();
    expect((await app.request('/readyz')).status).toBe(503);
  });
});

describe('graceful shutdown', () => {
  it('runs the steps in order, once, and goes on past a failing step', async () => {
    const calls: string[] = [];
    const step =
      (name: string, fail = false) =>
      async () => {
        calls.push(name);
        if (fail) throw new Error(`${name} failed`);
      };
    const errors: string[] = [];
    const shutdown = createShutdown(
      {
        flushTelemetry: step('flushTelemetry'),
        closeDatabase: step('closeDatabase'),
        closeBroker: step('closeBroker', true),
        stopRelay: step('stopRelay'),
        drainConsumers: step('drainConsumers'),
        closeServer: step('closeServer'),
        markNotReady: () => {
          calls.push('markNotReady');
        },
      },
      (name) => errors.push(name),
    );
    await Promise.all([shutdown(), shutdown()]);
    expect(calls).toEqual([...SHUTDOWN_ORDER]);
    expect(errors).toEqual(['closeBroker']);
  });
});

describe('signed merchant context', () => {
  const secret = 'a-secret-of-enough-length';
  it('verifies what the gateway signed', () => {
    const headers = signMerchantContext(merchant, secret, 1_000_000);
    expect(
      verifyMerchantContext(
        headers['x-merchant-context'],
        headers['x-merchant-signature'],
        secret,
        1_000_500,
      ),
    ).toEqual(merchant);
  });

  it('refuses a forged, tampered, stale or foreign-secret context', () => {
    const headers = signMerchantContext(merchant, secret, 1_000_000);
    const forged = Buffer.from(JSON.stringify({ ...merchant, saasContract: true })).toString('base64url');
    expect(verifyMerchantContext(forged, headers['x-merchant-signature'], secret, 1_000_000)).toBeUndefined();
    expect(
      verifyMerchantContext(
        headers['x-merchant-context'],
        headers['x-merchant-signature'],
        'another-secret-entirely',
        1_000_000,
      ),
    ).toBeUndefined();
    expect(
      verifyMerchantContext(
        headers['x-merchant-context'],
        headers['x-merchant-signature'],
        secret,
        1_000_000 + 6 * 60_000,
      ),
    ).toBeUndefined();
    expect(verifyMerchantContext(headers['x-merchant-context'], undefined, secret)).toBeUndefined();
  });

  it('refuses a known good signature given with another payload, another secret or once too old', () => {
    const headers = signMerchantContext({ ...merchant }, secret, 3_000_000);
    const payload = headers['x-merchant-context'];
    const signature = headers['x-merchant-signature'];
    // Verified (and so remembered) first; every later check must still hold.
    expect(verifyMerchantContext(payload, signature, secret, 3_000_100)).toEqual(merchant);
    expect(verifyMerchantContext(payload, signature, secret, 3_000_200)).toEqual(merchant);
    const tampered = Buffer.from(JSON.stringify({ ...merchant, merchantId: 'another' })).toString(
      'base64url',
    );
    expect(verifyMerchantContext(tampered, signature, secret, 3_000_300)).toBeUndefined();
    expect(verifyMerchantContext(payload, signature, 'another-secret-entirely', 3_000_300)).toBeUndefined();
    expect(verifyMerchantContext(payload, signature, secret, 3_000_000 + 5 * 60_000 + 1)).toBeUndefined();
    expect(verifyMerchantContext(payload, signature, secret, 3_000_000 - 5 * 60_000 - 1)).toBeUndefined();
    // And it still verifies inside its window.
    expect(verifyMerchantContext(payload, signature, secret, 3_000_000 + 5 * 60_000)).toEqual(merchant);
  });

  it('signs the same merchant once for a while, and afresh when it is older, changed or for another secret', () => {
    const cached = { ...merchant };
    const first = signMerchantContext(cached, secret, 2_000_000);
    expect(signMerchantContext(cached, secret, 2_010_000)).toBe(first);
    // What is reused still verifies at the later time, and says when it was signed.
    const reused = signMerchantContext(cached, secret, 2_029_000);
    expect(reused['x-merchant-signature']).toMatch(/^t=2000000,/);
    expect(
      verifyMerchantContext(reused['x-merchant-context'], reused['x-merchant-signature'], secret, 2_029_000),
    ).toEqual(cached);

    expect(signMerchantContext(cached, secret, 2_030_000)['x-merchant-signature']).toMatch(/^t=2030000,/);
    expect(signMerchantContext(cached, 'another-secret-entirely', 2_030_001)).not.toBe(
      signMerchantContext(cached, secret, 2_030_001),
    );
    // An earlier time than the one signed (a test, a clock step back) is signed for that time.
    expect(signMerchantContext(cached, secret, 1_000_000)['x-merchant-signature']).toMatch(/^t=1000000,/);

    const changedInPlace = { ...merchant };
    const before = signMerchantContext(changedInPlace, secret, 3_000_000);
    changedInPlace.saasContract = true;
    const after = signMerchantContext(changedInPlace, secret, 3_000_001);
    expect(after).not.toBe(before);
    expect(
      verifyMerchantContext(after['x-merchant-context'], after['x-merchant-signature'], secret, 3_000_001),
    ).toMatchObject({ saasContract: true });
  });
});

describe('createApp behind a Node server', () => {
  it('reads request headers from Node and answers the request id on every response', async () => {
    const { app } = createApp({ service: 't', logger, errors: {} });
    app.get('/echo', (c) =>
      c.json({
        token: requestHeader(c, 'api-token') ?? null,
        repeated: requestHeader(c, 'x-repeated') ?? null,
      }),
    );
    app.get('/fails', () => {
      throw problems.conflict('NOPE', 'refused');
    });
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const given = await fetch(`${base}/echo`, {
        headers: [
          ['x-request-id', 'req-42'],
          ['api-token', 'tok'],
          ['x-repeated', 'a'],
          ['x-repeated', 'b'],
        ],
      });
      expect(given.headers.get('x-request-id')).toBe('req-42');
      expect(await given.json()).toEqual({ token: 'tok', repeated: 'a, b' });

      const made = await fetch(`${base}/fails`);
      expect(made.status).toBe(409);
      const id = made.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await made.json()) as { requestId: string }).requestId).toBe(id);
      // Once, not twice (set on Node's response and again on the answer).
      expect(made.headers.get('x-request-id')).not.toContain(',');
    } finally {
      await server.close();
    }
  });
});
