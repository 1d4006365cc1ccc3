import type postgres from 'postgres';

/**
 * Statements longer than this stay unnamed: their text varies with a row count (a bulk change's multi-row
 * insert), and a connection would keep a prepared statement for each size.
 */
export const PREPARE_UP_TO_CHARS = 4_000;

type Client = postgres.Sql | postgres.TransactionSql;

/**
 * The postgres.js client Drizzle is given, preparing the query builder's statements. Drizzle runs them
 * unnamed (`prepare: false`), and postgres.js asks the server to describe an unnamed statement with
 * parameters before running it: two round trips for every query, each a socket write on both sides.
 * Prepared (postgres.js keeps them per connection, by their text), a query is one round trip from its
 * second run on. Transactions and savepoints hand Drizzle a client that does the same.
 */
export function preparingClient<T extends Client>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'unsafe')
        return (query: string, parameters?: unknown[], options?: { prepare?: boolean }) =>
          target.unsafe(
            query,
            parameters as never,
            options?.prepare === false && query.length <= PREPARE_UP_TO_CHARS
              ? { ...options, prepare: true }
              : options,
          );
      if (property === 'begin' || property === 'savepoint')
        return (...args: unknown[]) => {
          const callback = args[args.length - 1] as (inner: Client) => unknown;
          return (value as (...all: unknown[]) => unknown).call(
            target,
            ...args.slice(0, -1),
            (inner: Client) => callback(preparingClient(inner)),
          );
        };
      return value;
    },
  });
}
