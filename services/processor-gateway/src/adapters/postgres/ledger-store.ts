import {
  PAYMENT_CSV_COLUMNS,
  type PaymentKind,
  type PaymentMovementMethod,
  type PaymentStatus,
} from '@payrail/contracts';
import { type Executor, rowsOf } from '@payrail/db';
import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type {
  LedgerFilter,
  LedgerPosition,
  LinkContext,
  Movement,
  MovementText,
  WrittenMovement,
} from '../../domain/ledger';
import type { LedgerStore, PositionedMovement, WrittenPage } from '../../ports/ledger-store';
import { dailyTotals, recentTotals, sumRowsQuickly } from './ledger-totals';
import { ledger, ledgerInstallments, ledgerLinks } from './schema';

type LedgerRow = typeof ledger.$inferSelect;

function toMovement(row: LedgerRow): Movement {
  return {
    ...row,
    kind: row.kind as PaymentKind,
    status: row.status as PaymentStatus,
    method: row.method as PaymentMovementMethod,
  };
}

/** A row of the hand-written page query: the row's text and its instants as the driver gives them. */
interface WrittenRow {
  text: string;
  created_ms: number | string;
  settled_ms: number | string | null;
  created_micros: string | bigint;
  id: string;
}

/**
 * How a column is written: `text` (JSON-escaped by `to_json`), `plain` (a code's text, such as a kind or a
 * status, that the table's `ledger_plain_texts` check keeps free of anything JSON escapes: only quoted in
 * the JSON, a CSV cell as any text), `id` (a uuid: its text holds nothing JSON or CSV escapes), `decimal`
 * (an amount's digits: nothing JSON escapes, but a minus sign a CSV cell guards), `number` (a JSON number).
 */
type WrittenType = 'text' | 'plain' | 'id' | 'decimal' | 'number';

/**
 * The fields of a movement as `movementView` (adapters/http) names and orders them, up to its instants,
 * each with its column and how the API writes it (text, an id, a number). The page's JSON and the export's
 * CSV are written from this list by PostgreSQL; `ledger-text.int.test.ts` reads the same rows through
 * `find` and `movementView` and compares the text, byte for byte.
 */
const WRITTEN_FIELDS: ReadonlyArray<[field: string, column: string, type: WrittenType]> = [
  ['id', 'id::text', 'id'],
  ['kind', 'kind', 'plain'],
  ['status', 'status', 'plain'],
  ['method', 'method', 'plain'],
  ['processor', 'processor', 'plain'],
  ['amount', 'amount::text', 'decimal'],
  ['currency', 'currency', 'plain'],
  ['refundedAmount', 'refunded_amount::text', 'decimal'],
  ['cardBrand', 'card_brand', 'text'],
  ['cardLast4', 'card_last4', 'text'],
  ['processorReference', 'processor_reference', 'text'],
  ['reference', 'reference', 'text'],
  ['paymentId', 'payment_id::text', 'id'],
  ['payRequestId', 'link_id', 'number'],
  ['label', 'label', 'text'],
  ['subscriptionId', 'subscription_id', 'number'],
  ['installmentId', 'installment_id', 'number'],
  ['installmentNumber', 'installment_number', 'number'],
  ['handleValue', 'handle_value', 'text'],
  ['handleLabel', 'handle_label', 'text'],
  ['customIdentifier', 'custom_identifier', 'text'],
  ['customIdentifier2', 'custom_identifier2', 'text'],
  ['declineCode', 'decline_code', 'text'],
  ['declineCategory', 'decline_category', 'plain'],
];

// The CSV's columns are the JSON's fields in the same order, the two instants last.
if (
  PAYMENT_CSV_COLUMNS.join(',') !==
  [...WRITTEN_FIELDS.map(([field]) => field), 'createdAt', 'settledAt'].join(',')
)
  throw new Error("the ledger's written fields are not PAYMENT_CSV_COLUMNS");

/**
 * A JSON value as `JSON.stringify` writes it: `to_json` of a text escapes as it does (`"`, `\`, `\b`, `\f`,
 * `\n`, `\r`, `\t`, the other control characters as `\u00xx`), a number is its digits, null is `null`. A
 * uuid's, an amount's or a code's (`plain`) text is only quoted: nothing in it is escaped, and `to_json` (a
 * type lookup and three copies a call) was about a tenth of the page statement's time for the four ids and
 * amounts.
 */
function jsonValue(column: string, type: WrittenType): string {
  if (type === 'number') return `coalesce(${column}::text, 'null')`;
  if (type === 'text') return `coalesce(to_json(${column})::text, 'null')`;
  return `coalesce('"' || ${column} || '"', 'null')`;
}

/**
 * A CSV field as `csvField` (adapters/http/payments-csv.ts) writes it, a null left null (the row's `concat`
 * writes it as nothing). Text goes through `processor_gateway.csv_cell` (migration 0009: a formula start
 * guarded with a leading `'`; a field with a comma, a quote or a line break quoted, its quotes doubled),
 * which PostgreSQL inlines; ids and numbers never need either. The text is most of PostgreSQL's CPU in an
 * export (docs/performance.md). The statement must stay under `PREPARE_UP_TO_CHARS` (libs/db), else it is
 * not prepared and is parsed and planned every batch; `ledger-text.int.test.ts` checks both.
 */
function csvValue(column: string, type: WrittenType): string {
  return type === 'text' || type === 'plain' || type === 'decimal'
    ? `processor_gateway.csv_cell(${column})`
    : column;
}

/** The text of each row, by `MovementText` (constants: no value of a request is in them). */
const WRITTEN_TEXT: Record<MovementText, SQL> = {
  json: sql.raw(
    `'{' || ${WRITTEN_FIELDS.map(
      ([field, column, type], index) =>
        `'${index > 0 ? ',' : ''}${JSON.stringify(field)}:' || ${jsonValue(column, type)}`,
    ).join(' || ')}`,
  ),
  csv: sql.raw(`concat(${WRITTEN_FIELDS.map(([, column, type]) => csvValue(column, type)).join(`,',',`)})`),
};

/** Whole milliseconds since the epoch (as `Date` reads PostgreSQL's microseconds), or null. */
const instantOf = (millis: number | string | null) => (millis === null ? null : new Date(Number(millis)));

function fromWritten(row: WrittenRow): PositionedMovement {
  return {
    movement: {
      text: row.text,
      createdAt: instantOf(row.created_ms) as Date,
      settledAt: instantOf(row.settled_ms),
    },
    position: { createdMicros: BigInt(row.created_micros), id: row.id },
  };
}

/** The one row of the page statement (`jsonPage`): null aggregates when nothing matched. */
interface PageRow {
  texts: string | null;
  instants: string | null;
}

/** How each movement's JSON text begins: its id, the cursor's second half, is read back from there. */
const JSON_ID_START = '{"id":"';
const UUID_LENGTH = 36;

/** PostgreSQL's epoch (2000-01-01) in microseconds since the Unix epoch. */
const POSTGRES_EPOCH_MICROS = 946_684_800_000_000;
/** An instant's hexadecimal digits in the page statement (`timestamptz_send`: a signed 64-bit integer). */
const INSTANT_HEX_DIGITS = 16;

/**
 * Microseconds since the Unix epoch of an instant as `timestamptz_send` writes it in hexadecimal: a signed
 * 64-bit count of microseconds since 2000-01-01 UTC (its binary format since PostgreSQL 10), read as two
 * 32-bit halves. Exact as a number up to 2^53 microseconds (the year 2255).
 */
function microsOfHex(hex: string, from: number): number {
  const high = Number.parseInt(hex.slice(from, from + 8), 16);
  const low = Number.parseInt(hex.slice(from + 8, from + INSTANT_HEX_DIGITS), 16);
  return (high >= 0x8000_0000 ? high - 0x1_0000_0000 : high) * 0x1_0000_0000 + low + POSTGRES_EPOCH_MICROS;
}

/** The instant of so many microseconds, to the millisecond below (as `Date` reads PostgreSQL's). */
const instantOfMicros = (micros: number) => new Date(Math.floor(micros / 1000));

/**
 * The page statement's row as movements and the next position: `texts` holds each movement's JSON joined by
 * line feeds (JSON text never holds a raw one: `to_json` escapes control characters), `instants` each
 * movement's created instant and, unless null, its settled one (16 hexadecimal digits each, see
 * `microsOfHex`), the movements' joined by commas, in the same order. One row more than `limit` says that
 * more follow. Written this way, a page's 102 instants cost PostgreSQL about half what numeric epochs did.
 */
function pageOf(row: PageRow | undefined, limit: number): WrittenPage {
  if (!row || row.texts === null || row.instants === null) return { movements: [], next: undefined };
  const texts = row.texts.split('\n');
  const instants = row.instants.split(',');
  if (instants.length !== texts.length) throw new Error("the page's texts and instants do not match");
  const count = Math.min(texts.length, limit);
  const movements: WrittenMovement[] = new Array(count);
  for (let index = 0; index < count; index += 1) {
    const both = instants[index] as string;
    movements[index] = {
      text: texts[index] as string,
      createdAt: instantOfMicros(microsOfHex(both, 0)),
      settledAt:
        both.length > INSTANT_HEX_DIGITS ? instantOfMicros(microsOfHex(both, INSTANT_HEX_DIGITS)) : null,
    };
  }
  if (texts.length <= limit) return { movements, next: undefined };
  const last = texts[limit - 1] as string;
  if (!last.startsWith(JSON_ID_START)) throw new Error("a movement's JSON does not begin with its id");
  return {
    movements,
    next: {
      createdMicros: BigInt(microsOfHex(instants[limit - 1] as string, 0)),
      id: last.slice(JSON_ID_START.length, JSON_ID_START.length + UUID_LENGTH),
    },
  };
}

/** `like` pattern of a prefix: its own `%`, `_` and `\` taken literally. */
function prefixPattern(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
}

/** The page query's conditions, every one on the merchant's rows. */
function conditionsOf(merchantId: string, filter: LedgerFilter, after: LedgerPosition | undefined): SQL {
  const parts: SQL[] = [sql`merchant_id = ${merchantId}`];
  if (filter.status) parts.push(sql`status = ${filter.status}`);
  if (filter.kind) parts.push(sql`kind = ${filter.kind}`);
  if (filter.method) parts.push(sql`method = ${filter.method}`);
  if (filter.processor) parts.push(sql`processor = ${filter.processor}`);
  if (filter.linkId !== undefined) parts.push(sql`link_id = ${filter.linkId}`);
  if (filter.subscriptionId !== undefined) parts.push(sql`subscription_id = ${filter.subscriptionId}`);
  if (filter.customIdentifier) parts.push(sql`custom_identifier = ${filter.customIdentifier}`);
  if (filter.customerPrefix) {
    const pattern = prefixPattern(filter.customerPrefix);
    parts.push(sql`(lower(handle_value) like ${pattern} or lower(handle_label) like ${pattern})`);
  }
  if (filter.createdFrom) parts.push(sql`created_at >= ${filter.createdFrom.toISOString()}::timestamptz`);
  if (filter.createdBefore) parts.push(sql`created_at < ${filter.createdBefore.toISOString()}::timestamptz`);
  if (filter.amountMin) parts.push(sql`amount >= ${filter.amountMin}::numeric`);
  if (filter.amountMax) parts.push(sql`amount <= ${filter.amountMax}::numeric`);
  if (after) {
    // Row comparison: the index (merchant, created_at desc, id desc) is read from the position on.
    parts.push(
      sql`(created_at, id) < (timestamptz 'epoch' + ${after.createdMicros.toString()}::bigint * interval '1 microsecond', ${after.id}::uuid)`,
    );
  }
  return sql.join(parts, sql` and `);
}

/** The ledger on `db` (the database, or the consumer's transaction). */
export function postgresLedgerStore(db: Executor): LedgerStore {
  /** The link's context given to the rows of the link, and of its subscription's installments. */
  async function spreadLink(link: LinkContext) {
    await db
      .update(ledger)
      .set({
        label: link.label,
        handleValue: link.handleValue,
        handleLabel: link.handleLabel,
        customIdentifier: link.customIdentifier,
        customIdentifier2: link.customIdentifier2,
      })
      .where(and(eq(ledger.linkId, link.linkId), eq(ledger.merchantId, link.merchantId)));
  }

  return {
    async record(movement) {
      await db
        .insert(ledger)
        .values(movement)
        .onConflictDoUpdate({
          target: ledger.id,
          set: {
            // A final status stays; an open one (a refund scheduled) moves on.
            status: sql`case when ${ledger.status} in ('succeeded', 'declined', 'failed') then ${ledger.status} else excluded.status end`,
            settledAt: sql`coalesce(${ledger.settledAt}, excluded.settled_at)`,
            declineCode: sql`coalesce(${ledger.declineCode}, excluded.decline_code)`,
            declineCategory: sql`coalesce(${ledger.declineCategory}, excluded.decline_category)`,
            processorReference: sql`coalesce(${ledger.processorReference}, excluded.processor_reference)`,
            cardBrand: sql`coalesce(${ledger.cardBrand}, excluded.card_brand)`,
            cardLast4: sql`coalesce(${ledger.cardLast4}, excluded.card_last4)`,
          },
        });
    },

    async refreshRefunded(paymentId) {
      await db.execute(sql`
        update processor_gateway.ledger set refunded_amount = coalesce((
          select sum(r.amount) from processor_gateway.ledger r
          where r.payment_id = ${paymentId}::uuid and r.kind = 'REFUND' and r.status = 'succeeded'
        ), 0)
        where id = ${paymentId}::uuid`);
    },

    async findLink(linkId) {
      const [row] = await db.select().from(ledgerLinks).where(eq(ledgerLinks.linkId, linkId));
      return row;
    },

    async findInstallment(installmentId) {
      const [row] = await db
        .select()
        .from(ledgerInstallments)
        .where(eq(ledgerInstallments.installmentId, installmentId));
      return row;
    },

    async saveLink(link) {
      const { linkId, ...context } = link;
      const { subscriptionId: _kept, ...described } = context;
      await db
        .insert(ledgerLinks)
        .values(link)
        .onConflictDoUpdate({ target: ledgerLinks.linkId, set: described });
      await spreadLink(link);
    },

    async saveInstallments(installments) {
      if (installments.length === 0) return;
      await db
        .insert(ledgerInstallments)
        .values(installments)
        .onConflictDoUpdate({
          target: ledgerInstallments.installmentId,
          set: { number: sql`excluded.number`, subscriptionId: sql`excluded.subscription_id` },
        });
      for (const installment of installments) {
        await db
          .update(ledger)
          .set({ subscriptionId: installment.subscriptionId, installmentNumber: installment.number })
          .where(eq(ledger.installmentId, installment.installmentId));
      }
    },

    async setLinkSubscription(merchantId, linkId, subscriptionId) {
      // The link may not be known yet (its `link.created` still on its way): its row is begun here.
      await db
        .insert(ledgerLinks)
        .values({ linkId, merchantId, subscriptionId })
        .onConflictDoUpdate({ target: ledgerLinks.linkId, set: { subscriptionId } });
      await db
        .update(ledger)
        .set({ subscriptionId })
        .where(and(eq(ledger.linkId, linkId), isNull(ledger.subscriptionId)));
    },

    async find(merchantId, id) {
      const [row] = await db
        .select()
        .from(ledger)
        .where(and(eq(ledger.id, id), eq(ledger.merchantId, merchantId)));
      return row && toMovement(row);
    },

    async refundsOf(merchantId, paymentId) {
      const rows = await db
        .select()
        .from(ledger)
        .where(
          and(
            eq(ledger.paymentId, paymentId),
            eq(ledger.merchantId, merchantId),
            inArray(ledger.kind, ['REFUND']),
          ),
        )
        .orderBy(asc(ledger.createdAt), asc(ledger.id));
      return rows.map(toMovement);
    },

    summary(merchantId, range) {
      return sumRowsQuickly(db, merchantId, range);
    },

    dailyTotals(merchantId, range) {
      return dailyTotals(db, merchantId, range);
    },

    recentTotals(merchantId, range) {
      return recentTotals(db, merchantId, range);
    },

    async page(merchantId, filter, after, limit, as) {
      if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`not a row count: ${limit}`);
      // The limit is written in the statement, not bound: with `limit $n` the generic plan is costed for a
      // tenth of the rows, so PostgreSQL planned every run afresh; written, each of the few limits used (a
      // page's, a batch's) gets its plan once per connection.
      const result = await db.execute(sql`
        select ${WRITTEN_TEXT[as]} as text,
          floor(extract(epoch from created_at) * 1000)::float8 as created_ms,
          floor(extract(epoch from settled_at) * 1000)::float8 as settled_ms,
          (extract(epoch from created_at) * 1000000)::bigint as created_micros, id
        from processor_gateway.ledger
        where ${conditionsOf(merchantId, filter, after)}
        order by created_at desc, id desc
        limit ${sql.raw(String(limit))}`);
      return rowsOf<WrittenRow>(result).map(fromWritten);
    },

    async jsonPage(merchantId, filter, after, limit) {
      if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`not a row count: ${limit}`);
      // One row for the whole page (two texts), not a row of five values per movement: the driver reads
      // one row, PostgreSQL sends one. The aggregates take the rows in the order the subquery's limit
      // hands them on (no grouping, no parallel plan above a limit), both in the same order. One row
      // more than asked tells whether more follow; the limit is written in the statement (see `page`).
      const result = await db.execute(sql`
        select string_agg(${WRITTEN_TEXT.json}, E'\\n') as texts,
          string_agg(encode(timestamptz_send(created_at), 'hex')
            || coalesce(encode(timestamptz_send(settled_at), 'hex'), ''), ',') as instants
        from (
          select * from processor_gateway.ledger
          where ${conditionsOf(merchantId, filter, after)}
          order by created_at desc, id desc
          limit ${sql.raw(String(limit + 1))}
        ) page`);
      return pageOf(rowsOf<PageRow>(result)[0], limit);
    },
  };
}
