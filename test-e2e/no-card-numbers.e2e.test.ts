import { aMerchant, waitFor } from '@payrail/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FormRef,
  formTarget,
  internal,
  type Processor,
  type ProcessorSystem,
  type RunningProcessors,
  registerCard,
  sandbox,
  startProcessorsOnTestInfrastructure,
} from './processor-support';

// Pays with every sandbox test card through processor-gateway's real flows (hosted payment completed on the
// sandbox's form, card registration, stored-card charge), every service its own process on real PostgreSQL
// and RabbitMQ, then looks for card numbers everywhere we keep or say anything: every row of every table of
// every schema, every log line of every process, every outbox event body.

const TEST_CARDS = [
  '4242424242424242',
  '5555555555554444',
  '4000000000000002',
  '4000000000009995',
  '4000000000000069',
  '4000000000000341',
  '4000000000000259',
  '4000000000000077',
];

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * What in `text` looks like a card number: a test card anywhere, or a run of 13-19 digits that passes the
 * Luhn check, starts like a card of a network (2-6: Mastercard 2-series, Amex/Diners/JCB, Visa, Mastercard,
 * Discover/UnionPay; this keeps epoch-millisecond timestamps, 13 digits starting with 1, out) and is a whole
 * token (not part of a longer run of hex characters: md5/sha1 digests, UUIDs and longer digit runs are not
 * card numbers).
 */
function cardNumbersIn(text: string): string[] {
  const found = TEST_CARDS.filter((card) => text.includes(card));
  for (const [token] of text.matchAll(/[0-9a-fA-F]+/g)) {
    if (/^[2-6]\d{12,18}$/.test(token) && luhnValid(token)) found.push(token);
  }
  return [...new Set(found)];
}

interface Finding {
  where: string;
  numbers: string[];
  excerpt: string;
}

function scan(where: string, texts: string[]): Finding[] {
  const findings: Finding[] = [];
  for (const text of texts) {
    const numbers = cardNumbersIn(text);
    if (numbers.length > 0) findings.push({ where, numbers, excerpt: text.slice(0, 400) });
  }
  return findings;
}

let running: RunningProcessors;
let sql: postgres.Sql;
let system: ProcessorSystem;
const merchant = aMerchant();
let nextId = 300_000 + Math.floor(Math.random() * 100_000) * 10;
const newId = () => {
  nextId += 1;
  return nextId;
};

beforeAll(async () => {
  running = await startProcessorsOnTestInfrastructure('e2e_cards', {
    // Everything the processes say, debug included, is scanned.
    LOG_LEVEL: 'debug',
    // The janitor settles the lost reply and the dropped webhook within the test.
    CHARGE_JANITOR_INTERVAL_MS: '500',
    CHARGE_STALE_AFTER_MS: '1000',
    CHARGE_UNKNOWN_CHECK_AFTER_MS: '0',
    CHARGE_RECHECK_AFTER_MS: '500',
  });
  ({ sql, system } = running);
}, 120_000);

afterAll(() => running?.stop(), 60_000);

/** Waits until processor-gateway has settled the payment (the janitor included), answers its status. */
async function settled(chargeId: string): Promise<string> {
  return waitFor(
    async () => {
      const response = await internal(system.gateways[1], merchant, 'GET', `/payments/${chargeId}`);
      const view = (await response.json()) as { status: string };
      return view.status === 'succeeded' || view.status === 'failed' ? view.status : undefined;
    },
    40_000,
    200,
  );
}

async function hostedPayment(processor: Processor, card: string): Promise<string> {
  const opened = await internal(system.gateways[0], merchant, 'POST', '/payments/hosted', {
    linkId: newId(),
    paymentNumber: 1,
    processor,
    amount: 150000,
    currency: 'PYG',
    description: 'Plan mensual',
    returnUrl: 'https://pay.example.test/pay/abc/return',
    cancelUrl: 'https://pay.example.test/pay/abc',
    buyer: { name: 'Ana', email: 'ana@example.com' },
  });
  expect(opened.status).toBe(201);
  const { chargeId, form } = (await opened.json()) as { chargeId: string; form: FormRef };
  await sandbox(system, 'POST', '/complete', {
    ...formTarget(form),
    cardNumber: card,
    expiry: '12/30',
    cvv: '123',
  });
  return settled(chargeId);
}

async function storedCardPayment(customerId: number, paymentMethodId: string): Promise<string> {
  const response = await internal(system.gateways[1], merchant, 'POST', '/payments/saved-card', {
    linkId: newId(),
    paymentNumber: 1,
    customerId,
    paymentMethodId,
    amount: 150000,
    currency: 'PYG',
  });
  expect([200, 201]).toContain(response.status);
  const { chargeId } = (await response.json()) as { chargeId: string };
  return settled(chargeId);
}

/** One card's whole life: a hosted payment, a registration, a stored-card charge when it registers. */
async function payWith(processor: Processor, card: string) {
  const hosted = await hostedPayment(processor, card);
  const customerId = newId();
  const { saved } = await registerCard(system.gateways[0], system, merchant, customerId, processor, card);
  const stored = saved[0] ? await storedCardPayment(customerId, saved[0].paymentMethodId) : 'not registered';
  return { processor, card: card.slice(-4), hosted, registered: saved.length, stored };
}

async function everyRow(): Promise<Array<{ where: string; text: string }>> {
  const tables = await sql<Array<{ schema: string; name: string }>>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by 1, 2`;
  const rows: Array<{ where: string; text: string }> = [];
  for (const table of tables) {
    const found = await sql<Array<{ text: string }>>`
      select t::text as text from ${sql(table.schema)}.${sql(table.name)} t`;
    for (const row of found) rows.push({ where: `${table.schema}.${table.name}`, text: row.text });
  }
  return rows;
}

async function scanDatabase() {
  const rows = await everyRow();
  const findings = rows.flatMap((row) => scan(row.where, [row.text]));
  return { findings, tables: new Set(rows.map((row) => row.where)), rows };
}

describe('no card number is kept or said anywhere', () => {
  it('the detector finds planted numbers and ignores digests, references and long runs', () => {
    expect(cardNumbersIn('{"number":"4242424242424242"}')).toEqual(['4242424242424242']);
    expect(cardNumbersIn('pan=378282246310005;')).toEqual(['378282246310005']);
    expect(cardNumbersIn('card 4111111111111111 ok')).toEqual(['4111111111111111']);
    expect(cardNumbersIn('masked 424242******4242, last4 4242')).toEqual([]);
    // md5 / sha1 with long digit stretches, a 12-digit reference, a 20-digit run, a Luhn-invalid 16 digits.
    expect(cardNumbersIn('token a4111111111111111b0c1d2e3f4a5b6c7')).toEqual([]);
    expect(cardNumbersIn('4111111111111111ffeeddccbbaa99887766554433')).toEqual([]);
    expect(cardNumbersIn('ref 424242424242 and 41111111111111111111')).toEqual([]);
    expect(cardNumbersIn('id 4242424242424241')).toEqual([]);
    // An epoch-millisecond timestamp that happens to pass the Luhn check.
    expect(luhnValid('1795443346329')).toBe(true);
    expect(cardNumbersIn('"time":1795443346329')).toEqual([]);
  });

  it('pays with every test card through the real flows; nothing anywhere holds a card number', async () => {
    const results = await Promise.all([
      ...TEST_CARDS.map((card) => payWith('PARAGUAY.PROCESSOR_A', card)),
      payWith('PARAGUAY.PROCESSOR_B', '4242424242424242'),
      payWith('PARAGUAY.PROCESSOR_B', '5555555555554444'),
    ]);
    const byCard = (processor: string, last4: string) =>
      results.find((r) => r.processor === processor && r.card === last4);
    expect(byCard('PARAGUAY.PROCESSOR_A', '4242')).toMatchObject({
      hosted: 'succeeded',
      stored: 'succeeded',
    });
    expect(byCard('PARAGUAY.PROCESSOR_A', '0002')).toMatchObject({ hosted: 'failed', registered: 0 });
    expect(byCard('PARAGUAY.PROCESSOR_A', '0069')).toMatchObject({ hosted: 'failed', registered: 0 });
    expect(byCard('PARAGUAY.PROCESSOR_A', '9995')).toMatchObject({ hosted: 'failed', stored: 'failed' });
    expect(byCard('PARAGUAY.PROCESSOR_A', '0259')).toMatchObject({
      hosted: 'succeeded',
      stored: 'succeeded',
    });
    expect(byCard('PARAGUAY.PROCESSOR_A', '0077')).toMatchObject({
      hosted: 'succeeded',
      stored: 'succeeded',
    });
    expect(byCard('PARAGUAY.PROCESSOR_B', '4444')).toMatchObject({
      hosted: 'succeeded',
      stored: 'succeeded',
    });
    // Every card reached the processor: the sandbox's ledger has each of them.
    const { entries } = await sandbox<{ entries: Array<{ last4: string }> }>(system, 'GET', '/ledger');
    expect(new Set(entries.map((entry) => entry.last4))).toEqual(new Set(TEST_CARDS.map((c) => c.slice(-4))));
    // Let the last events, logs and relays land.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const database = await scanDatabase();
    expect(database.tables).toContain('processor_gateway.charges');
    expect(database.tables).toContain('processor_gateway.payment_methods');
    // The scan reads what the card left: its masked form is there, the number is not.
    expect(database.rows.some((row) => row.text.includes('424242******4242'))).toBe(true);
    const outboxes = [...database.tables].filter((table) => table.endsWith('.outbox'));
    expect(outboxes).toContain('processor_gateway.outbox');
    const outboxBodies: string[] = [];
    for (const table of outboxes) {
      const [schema, name] = table.split('.') as [string, string];
      const bodies = await sql<
        Array<{ body: string }>
      >`select body::text as body from ${sql(schema)}.${sql(name)}`;
      outboxBodies.push(...bodies.map((row) => row.body));
    }
    expect(outboxBodies.some((body) => body.includes('payment.succeeded'))).toBe(true);
    // The processes log little (no request lines even at debug), but every line they wrote is scanned: the
    // lost reply's warning and the janitor's passes among them.
    expect(system.logs.some((line) => line.includes('charge janitor pass'))).toBe(true);
    expect(system.logs.some((line) => line.startsWith('[processor-sandbox]'))).toBe(true);
    expect(system.logs.some((line) => line.startsWith('[processor-gateway-2]'))).toBe(true);

    const findings = [
      ...database.findings,
      ...scan('outbox event body', outboxBodies),
      ...scan('process logs', system.logs),
    ];
    expect(findings).toEqual([]);
  });

  it('the database scan sees a number planted in any schema (the scan can fail)', async () => {
    await sql`create schema e2e_planted`;
    try {
      await sql`create table e2e_planted.notes (id int, note jsonb)`;
      await sql`insert into e2e_planted.notes values (1, ${sql.json({ pan: '5105105105105100' })})`;
      const { findings } = await scanDatabase();
      expect(findings).toEqual([
        expect.objectContaining({ where: 'e2e_planted.notes', numbers: ['5105105105105100'] }),
      ]);
    } finally {
      await sql`drop schema e2e_planted cascade`;
    }
  });
});
