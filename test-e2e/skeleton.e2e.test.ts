import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  aOneOffLink,
  aStaticLink,
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  type TcpProxy,
  tcpProxy,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, ROOT, startSystem } from './support';

// Every service runs as its own process (tsx services/<name>/src/main.ts) against a fresh database on the
// real PostgreSQL and a unique exchange on the real RabbitMQ; the test drives them through the gateway.

let testDb: TestDatabase;
let sql: postgres.Sql;
let system: E2eSystem;
let proxy: TcpProxy;
const exchange = uniqueName('e2e_events');
const queuePrefix = `${uniqueName('e2e')}.`;

const recurrentLink = (customIdentifier: string) => aStaticLink({ customIdentifier });

async function createLink(body: unknown, token: string | null = DEMO_TOKEN): Promise<Response> {
  return fetch(`${system.gatewayUrl}/api/saleitems/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { 'api-token': token } : {}) },
    body: JSON.stringify(body),
  });
}

async function subscriptionFor(customIdentifier: string) {
  const rows =
    await sql`select status, link_id from subscriptions.subscriptions where custom_identifier = ${customIdentifier}`;
  return rows[0];
}

beforeAll(async () => {
  testDb = await createTestDatabase('e2e');
  sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
  const amqp = new URL(testAmqpUrl());
  proxy = await tcpProxy(amqp.hostname, Number(amqp.port || 5672));
  system = await startSystem({
    DATABASE_URL: testDb.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    INTERNAL_SECRET: 'e2e-internal-secret-0123456789',
    PUBLIC_BASE_URL: 'https://pay.example.test',
    LOG_LEVEL: 'info',
  });
});

afterAll(async () => {
  await system?.stop();
  await proxy?.close();
  await sql?.end();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

describe('walking skeleton, one process per service', () => {
  it('answers POST /api/saleitems/add with the spec 2.2 fields and types, and 401 without the token', async () => {
    const response = await createLink(
      aOneOffLink({ label: 'Concert ticket', amount: 250000, handleValue: '+595981000000' }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'ammount',
      'currency',
      'id',
      'publicPayUrl',
      'slug',
      'statusId',
    ]);
    expect(typeof body.id).toBe('number');
    expect(body).toMatchObject({ currency: 'PYG', ammount: '250000.00', statusId: 1 });
    expect(body.publicPayUrl).toBe(`https://pay.example.test/pay/${body.slug}`);

    expect((await createLink({ label: 'x' }, null)).status).toBe(401);
    expect((await createLink({ label: 'x' }, '00000000-0000-4000-8000-000000000000')).status).toBe(401);
  });

  it('carries link.created across RabbitMQ: a recurrent link leads to a pending subscription row', async () => {
    const response = await createLink(recurrentLink('member-1001'));
    expect(response.status).toBe(200);
    const { id } = (await response.json()) as { id: number };
    const subscription = await waitFor(() => subscriptionFor('member-1001'), 20_000);
    expect(subscription).toMatchObject({ status: 'pending', link_id: String(id) });
  });

  it('loses nothing when links dies after its commit and before the publish', async () => {
    // Cut links off the broker (through a proxy), so its relay cannot publish what it commits.
    await system.kill('links');
    const proxied = new URL(testAmqpUrl());
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    await system.restart('links', { AMQP_URL: proxied.toString() });
    proxy.pause();
    proxy.cutConnections();

    const response = await createLink(recurrentLink('member-2002'));
    expect(response.status).toBe(200);
    const { id } = (await response.json()) as { id: number };
    const [pending] =
      await sql`select published_at from links.outbox where body::jsonb -> 'data' ->> 'linkId' = ${String(id)}`;
    expect(pending).toEqual({ published_at: null });

    // The crash: no graceful shutdown, nothing flushed.
    await system.kill('links', 'SIGKILL');
    expect(await subscriptionFor('member-2002')).toBeUndefined();

    // After the restart the relay finds the committed row and publishes it; as deployed (the suites keep
    // published rows to read them), it then deletes it.
    proxy.resume();
    await system.restart('links', { OUTBOX_KEEP_PUBLISHED: 'false' });
    const subscription = await waitFor(() => subscriptionFor('member-2002'), 20_000);
    expect(subscription).toMatchObject({ status: 'pending', link_id: String(id) });
    // The relay deletes the row once the broker has confirmed, which may be after the consumer has run.
    const left = await waitFor(async () => {
      const [row] = await sql`select count(*)::int as count from links.outbox
        where body::jsonb -> 'data' ->> 'linkId' = ${String(id)}`;
      return row?.count === 0 ? 'published' : undefined;
    }, 20_000);
    expect(left).toBe('published');
  });

  it('every service answers /healthz and /readyz', async () => {
    for (const url of Object.values(system.urls)) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    }
  });

  it('a service started with a wrong environment stops with a message naming the variable', () => {
    const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
    const result = spawnSync(tsx, [path.join(ROOT, 'services', 'links', 'src', 'main.ts')], {
      env: { PATH: process.env.PATH, AMQP_URL: 'http://not-amqp', PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).toContain('AMQP_URL');
    expect(result.stderr).toContain('PORT');
  });
});
