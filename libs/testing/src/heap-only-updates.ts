import { type Executor, executePrepared } from '@payrail/db';

export interface UpdateCounts {
  /** Rows of the table `work` updated. */
  updates: number;
  /** How many of those updates were heap-only: the new version on the row's own page, no index touched. */
  heapOnly: number;
}

/**
 * Runs `work` inside the transaction `tx` and counts the updates it made to `schema.table`, and the
 * heap-only ones among them. The backend's counts not reported yet (this transaction's included) are read
 * before and after, in the same transaction: earlier transactions of the connection may still be in them.
 */
export async function countUpdates(
  tx: Executor,
  schema: string,
  table: string,
  work: () => Promise<unknown>,
): Promise<UpdateCounts> {
  const read = async (): Promise<UpdateCounts> => {
    const [row] = await executePrepared<{ updates: number; heap_only: number }>(
      tx,
      'testing_update_counts',
      `select n_tup_upd::int as updates, n_tup_hot_upd::int as heap_only
         from pg_stat_xact_user_tables where schemaname = $1 and relname = $2`,
      [schema, table],
    );
    return { updates: row?.updates ?? 0, heapOnly: row?.heap_only ?? 0 };
  };
  const before = await read();
  await work();
  const after = await read();
  return { updates: after.updates - before.updates, heapOnly: after.heapOnly - before.heapOnly };
}
