import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type DatabaseHandle, openDatabase, rowsOf } from '@payrail/db';
import { createTestDatabase, type TestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { secretSealer } from '../../src/adapters/postgres/secret-sealer';
import { postgresWebhookEndpointStore } from '../../src/adapters/postgres/webhook-endpoint-store';
import { postgresWebhookEventLog } from '../../src/adapters/postgres/webhook-event-log';

// An endpoint registered before new endpoints defaulted to the payment events had no filter (null: every
// kind). The migration that brought the default writes those as `["*"]`, so they keep getting everything:
// applied here over a database migrated up to the version before it, holding such an endpoint.

const MIGRATIONS = path.join(__dirname, '..', '..', 'drizzle');
/** The last migration of the gateway from before `["*"]`. */
const BEFORE = '0003_webhooks';

let testDb: TestDatabase;
let handle: DatabaseHandle;
let olderFolder: string;

/** The gateway's migrations folder as it was up to `tag` (the journal cut there). */
function migrationsUpTo(tag: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'gateway-migrations-'));
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(last).toBeGreaterThanOrEqual(0);
  // A later migration is known to exist, or this test tests nothing.
  expect(journal.entries.length).toBeGreaterThan(last + 1);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

beforeAll(async () => {
  testDb = await createTestDatabase('gateway_events_migration');
  handle = openDatabase({ url: testDb.url, max: 2 });
  olderFolder = migrationsUpTo(BEFORE);
});
afterAll(async () => {
  await handle?.close();
  await testDb?.drop();
  if (olderFolder) rmSync(olderFolder, { recursive: true, force: true });
});

it('an endpoint stored with no filter (every kind) keeps every kind after the migrations: ["*"]', async () => {
  await handle.migrate({ migrationsFolder: olderFolder, schema: 'gateway' });
  const merchantId = '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5';
  await handle.db.execute(sql`
    insert into gateway.merchants (id, name, instance, currency, timezone, processors, created_at, updated_at)
    values (${merchantId}, 'Old merchant', 'NATIONAL', 'PYG', 'America/Asuncion',
            '["PARAGUAY.PROCESSOR_A"]'::jsonb, now(), now())`);
  const sealer = secretSealer('migration-test');
  const endpoint = (id: string, events: unknown) => sql`
    insert into gateway.webhook_endpoints (id, merchant_id, url, method, events, secret_sealed, enabled,
                                           created_at, updated_at)
    values (${id}, ${merchantId}, 'https://old.example.com/hooks', 'PUT', ${events}, ${sealer.seal('whsec_x')},
            true, now(), now())`;
  const everything = '11111111-1111-4111-8111-111111111111';
  const picky = '22222222-2222-4222-8222-222222222222';
  await handle.db.execute(endpoint(everything, null));
  await handle.db.execute(endpoint(picky, sql`'["LINK_EXPIRED"]'::jsonb`));

  await handle.migrate({ migrationsFolder: MIGRATIONS, schema: 'gateway' });

  const stored = rowsOf<{ id: string; events: unknown }>(
    await handle.db.execute(sql`select id, events from gateway.webhook_endpoints order by id`),
  );
  expect(stored).toEqual([
    { id: everything, events: ['*'] },
    { id: picky, events: ['LINK_EXPIRED'] },
  ]);

  // And it is still sent every kind: an envelope of a kind it never named is queued for it, not for the other.
  const endpoints = postgresWebhookEndpointStore(handle.db, sealer);
  expect((await endpoints.findEndpoint(merchantId, everything))?.events).toEqual(['*']);
  await postgresWebhookEventLog(handle.db).appendEvent({
    id: 'evt_migrated000000000000001',
    merchantId,
    kind: 'SUBSCRIPTION_ACTIVATED',
    orderingKey: 'subscription:1',
    body: '{}',
    createdAt: new Date(),
  });
  const queued = rowsOf<{ endpoint_id: string }>(
    await handle.db.execute(sql`select endpoint_id from gateway.webhook_deliveries`),
  );
  expect(queued).toEqual([{ endpoint_id: everything }]);
});
