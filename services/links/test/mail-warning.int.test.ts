import { openDatabase } from '@payrail/db';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import { createTestDatabase, TEST_INTERNAL_SECRET, type TestDatabase } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksService } from '../src/service';

// A links process that cannot send login codes says so once, at warn level, with what to set: without
// it the pay page's sign-in fails for every customer and nothing above info said why.

const bus = createInProcessBus();
let testDatabase: TestDatabase;
let database: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  testDatabase = await createTestDatabase('links_mail_warning');
  database = openDatabase({ url: testDatabase.url, max: 2 });
  await database.migrate(linksService.database as { schema: string; migrationsFolder: string });
  await bus.start();
});

afterAll(async () => {
  await bus.close();
  await database?.close();
  await testDatabase?.drop();
});

/** The warn-or-worse lines of a links service created with `env`, as a process of its own. */
async function warningsAtStart(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
  const lines: string[] = [];
  const instance = await linksService.create({
    database,
    bus,
    logger: createLogger('links', 'info', { write: (line: string) => void lines.push(line) }),
    clock: { now: () => new Date('2026-11-22T12:00:00Z') },
    internalSecret: TEST_INTERNAL_SECRET,
    env: { PUBLIC_BASE_URL: 'http://pay.test', ...env },
    upstream: () => async () => new Response(null, { status: 503 }),
  });
  await instance.stop();
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => Number(record.level) >= 40);
}

describe('links without a way to send login codes', () => {
  it('warns once at start, naming SMTP_URL and DEV_MAILBOX', async () => {
    const warnings = await warningsAtStart({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/login codes cannot be sent/);
    expect(warnings[0]?.msg).toContain('SMTP_URL');
    expect(warnings[0]?.msg).toContain('DEV_MAILBOX=true');
    expect(await warningsAtStart({ NODE_ENV: 'production' })).toHaveLength(1);
  });

  it('says nothing when codes go by SMTP or to the development mailbox', async () => {
    expect(await warningsAtStart({ SMTP_URL: 'smtp://mail.test:2525' })).toEqual([]);
    expect(await warningsAtStart({ DEV_MAILBOX: 'true' })).toEqual([]);
  });
});
