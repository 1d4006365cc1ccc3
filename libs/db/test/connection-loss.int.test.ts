import { createTestDatabase, type TestDatabase, tcpProxy, uniqueName } from '@payrail/test-infra';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// postgres.js opens each connection with a statement of its own before the query it was opened for: it
// reads the array types (`fetch_types`, on by default, which `openDatabase` keeps). As published, 3.4.9
// drops the promise of that statement (`fetchArrayTypes()` in ReadyForQuery, porsager/postgres#1192), so
// a connection lost during it rejects a promise nobody awaits: the raw `read ECONNRESET` that ended
// processor-gateway in the chaos e2e when every database connection was cut while the pool was
// reconnecting. The same statement, cut by the server (57P01, as when PostgreSQL restarts), replayed the
// old backend's error on the next connection (#1223), and so did any query under way when its backend was
// terminated (#1215). patches/postgres@3.4.9.patch settles all three; each test below fails without it.

/** The array-types statement postgres.js runs first on every new connection (a word of its text). */
const ARRAY_TYPES_STATEMENT = 'typcategory';

let testDb: TestDatabase;
let admin: postgres.Sql;
/** Rejections nobody awaited while a test ran (Node would end a service process on the first). */
let unobserved: unknown[];
const collect = (reason: unknown) => void unobserved.push(reason);

beforeAll(async () => {
  testDb = await createTestDatabase('db_loss');
  admin = postgres(testDb.url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await admin?.end({ timeout: 1 });
  await testDb?.drop();
});
beforeEach(() => {
  unobserved = [];
  process.on('unhandledRejection', collect);
});
afterEach(() => {
  process.off('unhandledRejection', collect);
});

/** Long enough for a rejection nobody handled to be reported. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** Ends, on the real server, every backend of the client named `name` (what a restart does to each). */
async function terminateBackendsOf(name: string): Promise<number> {
  const [row] = await admin<Array<{ ended: number }>>`
    select count(pg_terminate_backend(pid))::int as ended from pg_stat_activity where application_name = ${name}`;
  return row?.ended ?? 0;
}

/** A one-connection client through a proxy in front of the test database. */
async function throughProxy(name: string) {
  const target = new URL(testDb.url);
  const proxy = await tcpProxy(target.hostname, Number(target.port || 5432));
  target.hostname = '127.0.0.1';
  target.port = String(proxy.port);
  const client = postgres(target.toString(), {
    max: 1,
    onnotice: () => {},
    connection: { application_name: name },
  });
  return { proxy, client };
}

describe('postgres.js when a connection is lost (patched 3.4.9)', () => {
  it('a reset while a new connection reads the array types fails the query it was opened for, and nothing else', async () => {
    const { proxy, client } = await throughProxy(uniqueName('loss_reset'));
    let cut = false;
    proxy.onceClientSends(ARRAY_TYPES_STATEMENT, (connection) => {
      cut = true;
      connection.reset();
    });
    try {
      const failure = await client`select 1 as one`.then(
        () => undefined,
        (error: { code?: string }) => error,
      );
      expect(cut).toBe(true);
      // The query had not been sent: it fails with the connection, as a query on a cut connection does.
      expect(failure?.code).toBe('ECONNRESET');
      await settle();
      expect(unobserved).toEqual([]);
      // The pool connects again, types and all.
      expect(await client`select 2 as two`).toEqual([{ two: 2 }]);
    } finally {
      await client.end({ timeout: 1 });
      await proxy.close();
    }
  });

  it('a backend terminated while it reads the array types: the query runs on the next connection', async () => {
    const name = uniqueName('loss_terminated');
    const { proxy, client } = await throughProxy(name);
    let ended: Promise<number> | undefined;
    // The statement is held back; the server ends the backend meanwhile (57P01, then it closes).
    proxy.onceClientSends(ARRAY_TYPES_STATEMENT, () => {
      ended = terminateBackendsOf(name);
    });
    try {
      // Never sent on the lost connection, the query is run on the new one, not failed with the old error.
      expect(await client`select 1 as one`).toEqual([{ one: 1 }]);
      expect(await ended).toBe(1);
      await settle();
      expect(unobserved).toEqual([]);
    } finally {
      await client.end({ timeout: 1 });
      await proxy.close();
    }
  });

  it('a backend terminated under a query: that query fails, the next one runs on a new connection', async () => {
    const name = uniqueName('loss_under_query');
    const client = postgres(testDb.url, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: name },
    });
    try {
      await client`select 0`;
      const slow = client`select pg_sleep(10)`.then(
        () => undefined,
        (error: { code?: string }) => error,
      );
      // Terminated once it runs (the sleep shows in pg_stat_activity).
      for (let tries = 0; tries < 100; tries += 1) {
        const [row] = await admin<Array<{ running: number }>>`
          select count(*)::int as running from pg_stat_activity
          where application_name = ${name} and query like 'select pg_sleep%'`;
        if (row?.running === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await terminateBackendsOf(name)).toBe(1);
      expect((await slow)?.code).toBe('CONNECTION_CLOSED');
      // Not the terminated backend's 57P01 again.
      expect(await client`select 2 as two`).toEqual([{ two: 2 }]);
      await settle();
      expect(unobserved).toEqual([]);
    } finally {
      await client.end({ timeout: 1 });
    }
  });
});
