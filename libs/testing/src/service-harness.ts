import type { MerchantContext } from '@payrail/contracts';
import { type DatabaseHandle, openDatabase } from '@payrail/db';
import { signMerchantContext } from '@payrail/http';
import { createInProcessBus, type MessageBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import type { Clock, ServiceDefinition, ServiceInstance, ServiceName, Upstream } from '@payrail/runtime';
import { createTestDatabase, type TestDatabase } from '@payrail/test-infra';
import { type SimulatedClock, simulatedClock, systemClock } from '@payrail/time';

export const TEST_INTERNAL_SECRET = 'test-internal-secret-0123456789';

/** A clock tests can set and move: the simulated clock of libs/time, from a fixed default start. */
export function testClock(start = new Date('2026-11-22T12:00:00Z')): SimulatedClock {
  return simulatedClock(start);
}

/** A database of its own with one service's migrations applied, for tests of its statements. */
export interface MigratedTestDatabase {
  testDatabase: TestDatabase;
  database: DatabaseHandle;
  /** Closes the connections and drops the database. */
  drop(): Promise<void>;
}

/**
 * Creates a database, applies `service`'s migrations and opens it with `max` connections (one: a test's
 * session settings and prepared statements stay on its one connection).
 */
export async function migratedTestDatabase(
  prefix: string,
  service: Pick<ServiceDefinition, 'database'>,
  options: { max?: number; onQuery?: (text: string) => void } = {},
): Promise<MigratedTestDatabase> {
  const testDatabase = await createTestDatabase(prefix);
  const database = openDatabase({ url: testDatabase.url, max: options.max ?? 1, onQuery: options.onQuery });
  try {
    if (service.database) await database.migrate(service.database);
  } catch (error) {
    await database.close();
    await testDatabase.drop();
    throw error;
  }
  return {
    testDatabase,
    database,
    async drop() {
      await database.close();
      await testDatabase.drop();
    },
  };
}

export interface ServiceUnderTest {
  instance: ServiceInstance;
  database: DatabaseHandle;
  testDatabase: TestDatabase;
  bus: MessageBus;
  /** Calls the service's app in memory, as the gateway would (signed merchant context when given). */
  request(
    method: string,
    path: string,
    options?: {
      body?: unknown;
      rawBody?: string;
      merchant?: MerchantContext;
      headers?: Record<string, string>;
    },
  ): Promise<Response>;
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  /** Default: a fresh in-process bus. Pass a RabbitMQ bus where the behaviour is the broker's. */
  bus?: MessageBus;
  clock?: Clock;
  env?: Record<string, string | undefined>;
  upstreams?: Partial<Record<ServiceName, Upstream>>;
}

/**
 * Starts one service in this process for a component test: its own fresh database on the real test
 * PostgreSQL with the real migrations applied, consumers subscribed and the outbox relay running.
 */
export async function startService(
  definition: ServiceDefinition,
  options: StartServiceOptions = {},
): Promise<ServiceUnderTest> {
  const { testDatabase, database, drop } = await migratedTestDatabase(
    definition.name.replace(/-/g, '_'),
    definition,
    { max: 5 },
  );
  const bus = options.bus ?? createInProcessBus();
  let instance: ServiceInstance;
  try {
    await bus.start();
    instance = await definition.create({
      database,
      bus,
      logger: createLogger(definition.name, process.env.TEST_LOG_LEVEL ?? 'silent'),
      clock: options.clock ?? systemClock,
      internalSecret: TEST_INTERNAL_SECRET,
      // The relay keeps what it published, for the tests that read the events a service emitted.
      env: { PUBLIC_BASE_URL: 'http://pay.test', OUTBOX_KEEP_PUBLISHED: 'true', ...options.env },
      upstream: (name) =>
        options.upstreams?.[name] ?? (async () => new Response('no upstream in this test', { status: 503 })),
    });
    await instance.start();
  } catch (error) {
    // A service that refuses to start (a test of its settings) leaves no database behind.
    if (!options.bus) await bus.close().catch(() => undefined);
    await drop();
    throw error;
  }
  return {
    instance,
    database,
    testDatabase,
    bus,
    async request(method, path, { body, rawBody, merchant, headers = {} } = {}) {
      const allHeaders: Record<string, string> = { 'content-type': 'application/json', ...headers };
      if (merchant) Object.assign(allHeaders, signMerchantContext(merchant, TEST_INTERNAL_SECRET));
      return instance.app.fetch(
        new Request(`http://service.test${path}`, {
          method,
          headers: allHeaders,
          body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
        }),
      );
    },
    async stop() {
      await bus.stopConsuming();
      await instance.stop();
      if (!options.bus) await bus.close();
      await drop();
    },
  };
}

/** Polls until `check` returns a truthy value (or throws on timeout). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(
    `waitFor timed out after ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`,
  );
}
