import type { Database } from '@payrail/db';
import { drizzle } from 'drizzle-orm/postgres-js';

// biome-ignore lint/suspicious/noExplicitAny: the postgres.js client is handled loosely here
type Client = any;

/**
 * The same database seen through a client that counts the statements sent (every query Drizzle runs,
 * in or out of a transaction; BEGIN and COMMIT are not counted), for tests of how many a path runs, and
 * its round trips: a statement sent while none of those counted is under way starts one (statements sent
 * together, pipelined on a connection, share it).
 */
export function countingDatabase(db: Database) {
  const counter = { statements: 0, roundTrips: 0, texts: [] as string[] };
  let underWay = 0;
  /** A postgres.js query runs when it is first awaited (`then`): that is when it is sent. */
  const watched = (query: Client): Client => {
    const then = query.then.bind(query);
    let sent = false;
    // biome-ignore lint/suspicious/noThenProperty: the query's own `then`, wrapped to see when it is sent
    query.then = (onFulfilled: unknown, onRejected: unknown) => {
      if (!sent) {
        sent = true;
        if (underWay === 0) counter.roundTrips += 1;
        underWay += 1;
        const settled = () => {
          underWay -= 1;
        };
        then(settled, settled);
      }
      return then(onFulfilled, onRejected);
    };
    return query;
  };
  const counted = (client: Client): Client =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        if (property === 'unsafe')
          return (query: string, ...rest: unknown[]) => {
            counter.statements += 1;
            counter.texts.push(query);
            return watched(value.call(target, query, ...rest));
          };
        if (property === 'begin' || property === 'savepoint')
          return (...args: unknown[]) => {
            const callback = args[args.length - 1] as (inner: Client) => unknown;
            return value.call(target, ...args.slice(0, -1), (inner: Client) => callback(counted(inner)));
          };
        return value;
      },
    });
  const client = (db as unknown as { $client: Client }).$client;
  return {
    db: drizzle(counted(client)) as unknown as Database,
    counter,
    reset() {
      counter.statements = 0;
      counter.roundTrips = 0;
      counter.texts = [];
    },
  };
}
