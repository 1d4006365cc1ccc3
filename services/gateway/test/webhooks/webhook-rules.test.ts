import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonDecimal } from '@payrail/contracts';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { httpWebhookSender } from '../../src/adapters/webhooks/http-sender';
import { isPrivateAddress, refusedWebhookUrl } from '../../src/application/webhooks/network';
import { newSigningSecret, signatureHeader } from '../../src/application/webhooks/signature';
import { serializeEnvelope } from '../../src/domain/webhooks/envelope';
import { nextRetryDelay, parseRetrySchedule } from '../../src/domain/webhooks/retry-schedule';

describe('retry schedule', () => {
  it('the default retries for 3 days: 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h until the window is covered', () => {
    const delays = parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h,...', '3d');
    expect(delays.slice(0, 6)).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
    const total = delays.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThanOrEqual(3 * 86_400_000);
    expect(total - (delays.at(-1) as number)).toBeLessThan(3 * 86_400_000);
  });

  it('a compressed schedule is taken as written; a bad one is refused', () => {
    expect(parseRetrySchedule('10ms,20ms')).toEqual([10, 20]);
    expect(() => parseRetrySchedule('5 minutes')).toThrow(/not a duration/);
    expect(() => parseRetrySchedule('...')).toThrow(/at least one/);
  });

  it('jitters each delay by at most 20 % and gives up after the last', () => {
    const delays = [1000, 2000];
    expect(nextRetryDelay(delays, 1, () => 0)).toBe(800);
    expect(nextRetryDelay(delays, 1, () => 0.999999)).toBe(1200);
    expect(nextRetryDelay(delays, 2, () => 0.5)).toBe(2000);
    expect(nextRetryDelay(delays, 3, () => 0.5)).toBeNull();
  });
});

describe('server-side request forgery', () => {
  it('knows loopback, private, link-local and mapped addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('refuses such URLs unless private networks are allowed', () => {
    expect(refusedWebhookUrl('http://127.0.0.1/x', false)).toMatch(/private/);
    expect(refusedWebhookUrl('http://LOCALHOST./x', false)).toMatch(/localhost/);
    expect(refusedWebhookUrl('http://[::1]:8080/x', false)).toMatch(/private/);
    expect(refusedWebhookUrl('https://hooks.example.com/x', false)).toBeNull();
    expect(refusedWebhookUrl('http://127.0.0.1/x', true)).toBeNull();
  });

  it('does not connect to a name that resolves to a private address, unless allowed', async () => {
    let hits = 0;
    const server = http.createServer((_request, response) => {
      hits += 1;
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const request = { url: `http://localhost:${port}/x`, method: 'POST' as const, headers: {}, body: '{}' };
      const refused = await httpWebhookSender({ timeoutMs: 2000, allowPrivateNetworks: false })(request);
      expect(refused.statusCode).toBeNull();
      expect(refused.error).toMatch(/private network/);
      const literal = await httpWebhookSender({ timeoutMs: 2000, allowPrivateNetworks: false })({
        ...request,
        url: `http://127.0.0.1:${port}/x`,
      });
      expect(literal.error).toMatch(/private network/);
      expect(hits).toBe(0);
      const allowed = await httpWebhookSender({ timeoutMs: 2000, allowPrivateNetworks: true })(request);
      expect(allowed).toMatchObject({ statusCode: 200, responseExcerpt: 'ok', error: null });
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const server = http.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const outcome = await httpWebhookSender({ timeoutMs: 200, allowPrivateNetworks: true })({
        url: `http://127.0.0.1:${port}/x`,
        method: 'PUT',
        headers: {},
        body: '{}',
      });
      expect(outcome.statusCode).toBeNull();
      expect(outcome.error).toMatch(/no answer within 200 ms/);
      expect(outcome.durationMs).toBeGreaterThanOrEqual(190);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('envelope and signature', () => {
  it('writes amounts as JSON numbers with two decimals, never through a float', () => {
    const text = serializeEnvelope({
      id: 'evt_1',
      event: 'PAYMENT_SUCCESS',
      createdAt: '2026-11-23T12:00:00.000Z',
      data: {
        txId: null,
        payRequestId: 1,
        currency: 'PYG',
        amount: new JsonDecimal('99999999999999999.10'),
        statusId: 200,
        customIdentifier: '',
        customIdentifier2: '',
        label: 'x',
        subscriptionId: null,
        subscriptionTotalPeriods: null,
        subscriptionPayedPeriod: null,
        installments: [{ amount: new JsonDecimal('150000.00') }],
      },
    });
    expect(text).toContain('"amount":99999999999999999.10');
    expect(text).toContain('"installments":[{"amount":150000.00}]');
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it('signs as Standard Webhooks does: the reference implementation verifies each secret of the header', () => {
    const [first, second] = [newSigningSecret(), newSigningSecret()];
    const body = '{"id":"evt_1"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signatureHeader([first, second], 'evt_1', timestamp, body);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': header,
    };
    expect(new Webhook(first).verify(body, headers)).toEqual({ id: 'evt_1' });
    expect(new Webhook(second).verify(body, headers)).toEqual({ id: 'evt_1' });
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(first).verify('{"id":"evt_2"}', headers)).toThrow();
  });
});
