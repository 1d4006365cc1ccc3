import type { Transaction } from '@payrail/db';
import { type DatabaseHandle, openDatabase, rowsOf } from '@payrail/db';
import { createTestDatabase, type TestDatabase } from '@payrail/test-infra';
import { sql } from 'drizzle-orm';
import { pgSchema } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveredMessage, inboxTable, postgresUnitOfWork } from '../src/index';

// A throw-away schema standing in for a service's: its inbox, and one table a store of the service writes.
const schema = pgSchema('uow_test');
const inbox = inboxTable(schema);

let testDb: TestDatabase;
let database: DatabaseHandle;

/** The service's stores bound to one transaction: here one, which records what a message did. */
function stores(tx: Transaction) {
  return {
    effects: {
      async record(messageId: string, order: number) {
        await tx.execute(sql`insert into uow_test.effects (message_id, n) values (${messageId}, ${order})`);
      },
    },
  };
}

beforeAll(async () => {
  testDb = await createTestDatabase('unit_of_work');
  database = openDatabase({ url: testDb.url });
  await database.db.execute(sql`create schema uow_test`);
  await database.db.execute(sql`create table uow_test.inbox (
    consumer text not null, message_id text not null, processed_at timestamptz not null default now(),
    primary key (consumer, message_id))`);
  await database.db.execute(
    sql`create table uow_test.effects (message_id text not null, n integer not null)`,
  );
});

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

const delivered = (id: string, key = 0): DeliveredMessage => ({
  id,
  type: 'link.paid',
  body: JSON.stringify({ data: { key } }),
  headers: {},
  attempt: 1,
});

async function effects(prefix: string): Promise<string[]> {
  const rows = rowsOf<{ message_id: string }>(
    await database.db.execute(
      sql`select message_id from uow_test.effects where message_id like ${`${prefix}%`} order by n, message_id`,
    ),
  );
  return rows.map((row) => row.message_id);
}

const keyOf = (message: DeliveredMessage) => (JSON.parse(message.body) as { data: { key: number } }).data.key;

describe('postgresUnitOfWork: inbox, the stores and the outbox in one transaction', () => {
  const unitOfWork = () => postgresUnitOfWork({ db: database.db, inbox, stores });

  it('runs a message once: a redelivery is a no-op, a failure leaves neither its inbox row nor its writes', async () => {
    let fail = true;
    const handler = unitOfWork().handlerFor('test.one', async (s, message) => {
      await s.effects.record(message.id, 1);
      if (fail) throw new Error('the use case failed after writing');
    });
    await expect(handler(delivered('one-1'))).rejects.toThrow('the use case failed');
    expect(await effects('one-')).toEqual([]);
    fail = false;
    await handler(delivered('one-1'));
    await handler(delivered('one-1'));
    expect(await effects('one-')).toEqual(['one-1']);
  });

  it('hands a batch over in lock order (stable), once per message id', async () => {
    const calls: string[][] = [];
    const handler = unitOfWork().batchHandlerFor(
      'test.batch',
      { maxBatch: 4, lockOrder: keyOf },
      async (s, items) => {
        calls.push(items.map((item) => item.message.id));
        for (const [index, item] of items.entries()) await s.effects.record(item.message.id, index);
      },
    );
    await Promise.all([
      handler(delivered('batch-c', 3)),
      handler(delivered('batch-a', 1)),
      handler(delivered('batch-b', 3)),
      handler(delivered('batch-a', 1)),
    ]);
    expect(calls).toEqual([['batch-a', 'batch-c', 'batch-b']]);
    expect(await effects('batch-')).toEqual(['batch-a', 'batch-c', 'batch-b']);
  });

  it('retries a failed batch message by message: only the poison one fails', async () => {
    const calls: string[][] = [];
    const handler = unitOfWork().batchHandlerFor('test.poison', { maxBatch: 3 }, async (s, items) => {
      calls.push(items.map((item) => item.message.id));
      for (const item of items) {
        if (item.message.id === 'poison-bad') throw new Error('poison');
        await s.effects.record(item.message.id, 0);
      }
    });
    const outcomes = await Promise.allSettled(
      ['poison-1', 'poison-bad', 'poison-2'].map((id) => handler(delivered(id))),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls[0]).toEqual(['poison-1', 'poison-bad', 'poison-2']);
    expect(calls.slice(1).sort()).toEqual([['poison-1'], ['poison-2'], ['poison-bad']]);
    expect(await effects('poison-')).toEqual(['poison-1', 'poison-2']);
  });
});
