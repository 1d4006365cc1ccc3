import { signMerchantContext } from '@payrail/http';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { MerchantContext } from '@payrail/contracts';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { createTestDatabase, deleteBrokerTopology, testAmqpUrl, uniqueName, waitFor } from '@payrail/testing';
import postgres from 'postgres';
import { CONSUMERS, type E2eSystem, freePort, ROOT, startSystem } from './support';

export const INTERNAL_SECRET = 'e2e-internal-secret-0123456789';

/** Services started as processes on a database and an exchange of the test's own. */
export interface SystemOnTestInfrastructure<S extends E2eSystem> {
  system: S;
  /** The test database, for reading what the services stored. */
  sql: postgres.Sql;
  /** The services' exchange, for publishing and observing events (queues under the same prefix). */
  bus: MessageBus;
  /** Stops the bus and the processes, drops the database and deletes this run's queues. */
  stop(): Promise<void>;
}

/**
 * A database (`name`), an exchange and a queue prefix of their own, the services started on them by
 * `start` (given `DATABASE_URL`, `AMQP_URL`, `EVENTS_EXCHANGE` and `QUEUE_PREFIX`), and a bus of the test's on
 * the same exchange. `testConsumers`: queues the test declares itself, deleted with the services' ones.
 */
export async function startOnTestInfrastructure<S extends E2eSystem>(
  name: string,
  start: (infrastructure: Record<string, string>) => Promise<S>,
  testConsumers: readonly string[] = [],
): Promise<SystemOnTestInfrastructure<S>> {
  const testDb = await createTestDatabase(name);
  const exchange = uniqueName(`${name}_events`);
  const queuePrefix = `${uniqueName(name)}.`;
  const sql = postgres(testDb.url, { max: 3, onnotice: () => {} });
  let system: S | undefined;
  let bus: MessageBus | undefined;
  const stop = async () => {
    await bus?.close();
    await system?.stop();
    await sql.end();
    await testDb.drop();
    await deleteBrokerTopology(
      testAmqpUrl(),
      exchange,
      [...CONSUMERS, ...testConsumers].map((consumer) => `${queuePrefix}${consumer}`),
    ).catch(() => {});
  };
  try {
    system = await start({
      DATABASE_URL: testDb.url,
      AMQP_URL: testAmqpUrl(),
      EVENTS_EXCHANGE: exchange,
      QUEUE_PREFIX: queuePrefix,
    });
    bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
    await bus.start();
    return { system, sql, bus, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Every service as its own process, plus a second processor-gateway process on the same database and queue;
 * `stop` stops both.
 */
export interface ProcessorSystem extends E2eSystem {
  /** Both processor-gateway processes' base URLs. */
  gateways: [string, string];
}

export async function startProcessorSystem(env: Record<string, string>): Promise<ProcessorSystem> {
  const system = await startSystem({ INTERNAL_SECRET, PUBLIC_BASE_URL: 'https://pay.example.test', ...env });
  const port = await freePort();
  const urls = system.urls;
  let second: ChildProcess | undefined;
  try {
    second = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'services', 'processor-gateway', 'src', 'main.ts')],
      {
        cwd: ROOT,
        env: {
          ...system.env,
          LINKS_URL: urls.links,
          SUBSCRIPTIONS_URL: urls.subscriptions,
          BILLING_SCHEDULER_URL: urls['billing-scheduler'],
          PROCESSOR_GATEWAY_URL: urls['processor-gateway'],
          PROCESSOR_SANDBOX_URL: urls['processor-sandbox'],
          GATEWAY_URL: urls.gateway,
          PORT: String(port),
          OTEL_SERVICE_NAME: 'processor-gateway',
        },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: true,
      },
    );
    const child = second;
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) system.logs.push(`[processor-gateway-2] ${line}`);
      });
    }
    const secondUrl = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`second processor-gateway exited ${child.exitCode}`);
        return (await fetch(`${secondUrl}/readyz`).catch(() => undefined))?.ok;
      },
      60_000,
      200,
    );
    const stopSecond = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await done;
      clearTimeout(timer);
    };
    return {
      ...system,
      gateways: [urls['processor-gateway'], secondUrl],
      async stop() {
        await Promise.all([stopSecond(), system.stop()]);
      },
    };
  } catch (error) {
    second?.kill('SIGKILL');
    await system.stop();
    throw error;
  }
}

/** The services with two processor-gateway processes, on test infrastructure of their own. */
export type RunningProcessors = SystemOnTestInfrastructure<ProcessorSystem>;

/** `startOnTestInfrastructure` with `startProcessorSystem` (`env` besides the infrastructure's). */
export function startProcessorsOnTestInfrastructure(
  name: string,
  env: Record<string, string>,
  testConsumers: readonly string[] = [],
): Promise<RunningProcessors> {
  return startOnTestInfrastructure(
    name,
    (infrastructure) => startProcessorSystem({ ...infrastructure, ...env }),
    testConsumers,
  );
}

/** Calls a processor-gateway's internal route with the signed merchant context, as links does. */
export function internal(
  baseUrl: string,
  merchant: MerchantContext,
  method: string,
  route: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${baseUrl}/internal${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...signMerchantContext(merchant, INTERNAL_SECRET) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The sandbox's test API. */
export async function sandbox<T = Record<string, unknown>>(
  system: E2eSystem,
  method: string,
  route: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${system.urls['processor-sandbox']}/__sandbox${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
}

export type Processor = 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';

export interface FormRef {
  kind: 'iframe' | 'redirect';
  processId?: string;
  hash?: string;
}

export const formTarget = (form: FormRef) =>
  form.kind === 'iframe' ? { processId: form.processId } : { hash: form.hash };

/**
 * Registers a card through processor-gateway's internal routes and the sandbox's form (`/__sandbox/complete`),
 * as the pay page does; answers the saved payment methods (none when the card is refused).
 */
export async function registerCard(
  baseUrl: string,
  system: E2eSystem,
  merchant: MerchantContext,
  customerId: number,
  processor: Processor,
  cardNumber: string,
): Promise<{ outcome: string; saved: Array<{ paymentMethodId: string; maskedNumber: string }> }> {
  const opened = await internal(baseUrl, merchant, 'POST', '/card-registrations', {
    customerId,
    processor,
    returnUrl: 'https://pay.example.test/cards/return',
    email: 'ana@example.com',
  });
  if (opened.status !== 201)
    throw new Error(`registration not opened: ${opened.status} ${await opened.text()}`);
  const { registrationId, form } = (await opened.json()) as { registrationId: string; form: FormRef };
  const completed = await sandbox<{ outcome: string }>(system, 'POST', '/complete', {
    ...formTarget(form),
    cardNumber,
    expiry: '12/30',
    cvv: '123',
  });
  const done = await internal(baseUrl, merchant, 'POST', `/card-registrations/${registrationId}/complete`);
  if (done.status !== 200) throw new Error(`registration not completed: ${done.status} ${await done.text()}`);
  const { saved } = (await done.json()) as {
    saved: Array<{ paymentMethodId: string; maskedNumber: string }>;
  };
  return { outcome: completed.outcome, saved };
}
