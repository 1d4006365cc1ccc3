import { openDatabase } from '@payrail/db';
import { signMerchantContext } from '@payrail/http';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger, MAX_LOG_LINE_LENGTH } from '@payrail/observability';
import type { ServiceInstance } from '@payrail/runtime';
import { aMerchant, createTestDatabase, TEST_INTERNAL_SECRET, type TestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksService } from '../src/service';

// A database error raised while a request carries a customer's e-mail and name: the log line names the
// error, its SQLSTATE and the request, never the values, and stays under the line cap.
const EMAIL = 'ana.private@example.com';
const FIRST_NAME = 'Anastasia';
const LONG_LABEL = `Membership ${'x'.repeat(240)}`;

const lines: string[] = [];
const destination = { write: (line: string) => void lines.push(line) };
const merchant = aMerchant({ saasContract: true });
const bus = createInProcessBus();
let testDatabase: TestDatabase;
let database: ReturnType<typeof openDatabase>;
let instance: ServiceInstance;

beforeAll(async () => {
  testDatabase = await createTestDatabase('links_logs');
  database = openDatabase({ url: testDatabase.url, max: 2 });
  await database.migrate(linksService.database as { schema: string; migrationsFolder: string });
  // Every new customer now fails inside PostgreSQL, after the values have reached the query.
  await database.db.execute(
    sql.raw('ALTER TABLE links.customers ADD CONSTRAINT refuse_everything CHECK (false) NOT VALID'),
  );
  await bus.start();
  instance = await linksService.create({
    database,
    bus,
    logger: createLogger('links', 'info', destination),
    clock: { now: () => new Date('2026-11-22T12:00:00Z') },
    internalSecret: TEST_INTERNAL_SECRET,
    env: { PUBLIC_BASE_URL: 'http://pay.test' },
    upstream: () => async () => new Response(null, { status: 503 }),
  });
});

afterAll(async () => {
  await instance?.stop();
  await bus.close();
  await database?.close();
  await testDatabase?.drop();
});

describe('error logs', () => {
  it('carry the error type, its SQLSTATE and the request id, not the e-mail, the name or the parameters', async () => {
    const response = await instance.app.fetch(
      new Request('http://links.test/api/ext-app/payrequests/signed-in-user', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-request-id': 'req-logs-1',
          ...signMerchantContext(merchant, TEST_INTERNAL_SECRET),
        },
        body: JSON.stringify({
          label: LONG_LABEL,
          amount: 1000,
          handleValue: EMAIL,
          handleLabel: `${FIRST_NAME} Gómez`,
          singlePayment: true,
          creditAndDebitCard: true,
          signedInUser: { email: EMAIL, firstName: FIRST_NAME, lastName: 'Gómez' },
        }),
      }),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');

    const errorLines = lines.filter((line) => line.includes('"level":50'));
    expect(errorLines).toHaveLength(1);
    const line = errorLines[0] as string;
    expect(line.length).toBeLessThan(MAX_LOG_LINE_LENGTH);
    for (const secret of [EMAIL, FIRST_NAME, 'params:', 'x'.repeat(50)]) expect(line).not.toContain(secret);
    const record = JSON.parse(line) as { requestId: string; err: Record<string, unknown> };
    expect(record.requestId).toBe('req-logs-1');
    // postgres.js's error is the cause of drizzle's: its code and constraint name are what an SRE needs.
    expect(JSON.stringify(record.err)).toContain('"code":"23514"');
    expect(JSON.stringify(record.err)).toContain('refuse_everything');
    expect(String(record.err.message)).toContain('parameters not logged');
  });
});
