import { createRequire } from 'node:module';
import {
  Column,
  ColumnBuilder,
  type DrizzleEntityClass,
  entityKind,
  eq,
  FakePrimitiveParam,
  is,
  Name,
  Param,
  Placeholder,
  placeholder,
  SQL,
  StringChunk,
  Subquery,
  sql,
  Table,
  View,
  WithSubquery,
} from 'drizzle-orm';
import {
  alias,
  bigint,
  boolean,
  date,
  json,
  jsonb,
  integer,
  numeric,
  PgBigInt53,
  PgBoolean,
  PgColumn,
  PgDate,
  PgDateString,
  PgDialect,
  PgInteger,
  PgJson,
  PgJsonb,
  PgNumeric,
  PgSelectBase,
  PgSerial,
  PgTable,
  PgText,
  PgTime,
  PgTimestamp,
  PgTimestampString,
  PgUUID,
  PgVarchar,
  PgView,
  pgTable,
  pgView,
  QueryBuilder,
  serial,
  text,
  time,
  timestamp,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';

// patches/drizzle-orm@0.45.4.patch makes drizzle's is() remember its answer per (value's prototype, class).
// These tests hold the patched is() (the ESM and the CommonJS copy) to the unpatched algorithm, written out
// below, over real drizzle objects, and show by what it reads that a repeated question is not worked out
// again.

type EntityClass = DrizzleEntityClass<unknown>;
type IsFunction = (value: unknown, type: EntityClass) => boolean;

/** drizzle-orm 0.45.4's is() before the patch: instanceof, then the constructor chain by [entityKind]. */
function unpatchedIs(value: unknown, type: EntityClass): boolean {
  if (!value || typeof value !== 'object') return false;
  if (value instanceof type) return true;
  if (!Object.hasOwn(type, entityKind)) {
    throw new Error(`Class "${type.name ?? '<unknown>'}" doesn't look like a Drizzle entity (reference)`);
  }
  // A null prototype throws a TypeError here, as it did in drizzle.
  let cls: unknown = Object.getPrototypeOf(value).constructor;
  while (cls) {
    if (entityKind in (cls as object) && (cls as Record<symbol, unknown>)[entityKind] === type[entityKind]) {
      return true;
    }
    cls = Object.getPrototypeOf(cls);
  }
  return false;
}

/** What a call gave, comparable across the two implementations (the messages differ in their tail). */
function outcome(isFn: IsFunction, value: unknown, type: EntityClass): string {
  try {
    return String(isFn(value, type));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const notAnEntity = /^Class "(.*)" doesn't look like a Drizzle entity/.exec(message);
    if (notAnEntity) return `threw: ${notAnEntity[1]} is not an entity`;
    return `threw ${error instanceof Error ? error.constructor.name : typeof error}`;
  }
}

const charges = pgTable('charges', {
  id: uuid('id').primaryKey(),
  sequence: serial('sequence'),
  status: text('status').notNull(),
  currency: varchar('currency', { length: 3 }).notNull(),
  attempt: integer('attempt').notNull(),
  amount: numeric('amount', { precision: 12, scale: 2 }).notNull(),
  total: bigint('total', { mode: 'number' }),
  live: boolean('live').notNull(),
  dueOn: date('due_on').notNull(),
  paidOn: date('paid_on', { mode: 'date' }),
  cutoff: time('cutoff'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  settledAt: timestamp('settled_at', { mode: 'string' }),
  metadata: jsonb('metadata'),
  raw: json('raw'),
});
const aliased = alias(charges, 'c');
const select = new QueryBuilder().select({ id: charges.id }).from(charges).where(eq(charges.status, 'due'));
const subquery = select.as('due');
const view = pgView('due_charges').as((qb) => qb.select().from(charges));
const condition = eq(charges.currency, 'EUR');
const nullPrototype = Object.create(null);
class Unrelated {}

/** Values drizzle's builders really ask about, and a few they might (a named list, for readable failures). */
const values: Record<string, unknown> = {
  ...Object.fromEntries(Object.entries(charges).map(([key, column]) => [`column ${key}`, column])),
  table: charges,
  'aliased table (a Proxy)': aliased,
  'aliased table column': aliased.id,
  'sql``': sql`select 1`,
  'sql`` with a column and a value': sql`${charges.id} = ${'x'}`,
  'sql.raw': sql.raw('now()'),
  'sql.identifier (Name)': sql.identifier('charges'),
  'sql``.as (SQL.Aliased)': sql`1`.as('one'),
  'eq() (SQL)': condition,
  ...Object.fromEntries(condition.queryChunks.map((chunk, index) => [`eq() chunk ${index}`, chunk])),
  'new Param': new Param('EUR'),
  'Param of a placeholder': new Param(placeholder('currency')),
  placeholder: placeholder('currency'),
  'select builder': select,
  'select getSQL()': select.getSQL(),
  subquery,
  'subquery field': subquery.id,
  view,
  dialect: new PgDialect(),
  'column builder': text('x'),
  'plain object': {},
  array: [1, 2],
  date: new Date(0),
  buffer: Buffer.from('x'),
  map: new Map(),
  'unrelated class instance': new Unrelated(),
  'null-prototype object': nullPrototype,
  'object whose prototype has no constructor': Object.create(nullPrototype),
  null: null,
  undefined: undefined,
  zero: 0,
  string: 'EUR',
  boolean: true,
  bigint: 1n,
  function: () => 1,
};

/** A new entity class of the given kind, that is() has been asked nothing about yet. */
function freshEntityClass(kind: string): (new () => object) & { readonly [entityKind]: string } {
  // biome-ignore lint/complexity/noStaticOnlyClass: drizzle's entities are classes; is() is asked about their instances
  return class {
    static readonly [entityKind] = kind;
  };
}

class NotAnEntity {}
const esmTypes: Record<string, EntityClass> = {
  Table,
  Column,
  ColumnBuilder,
  SQL,
  'SQL.Aliased': SQL.Aliased,
  Param,
  FakePrimitiveParam,
  Placeholder,
  StringChunk,
  Name,
  Subquery,
  WithSubquery,
  View,
  PgTable,
  PgColumn,
  PgUUID,
  PgSerial,
  PgText,
  PgVarchar,
  PgInteger,
  PgNumeric,
  PgBigInt53,
  PgBoolean,
  PgDate,
  PgDateString,
  PgTime,
  PgTimestamp,
  PgTimestampString,
  PgJsonb,
  PgJson,
  PgSelectBase,
  PgView,
  PgDialect,
  NotAnEntity: NotAnEntity as unknown as EntityClass,
};

// The CommonJS copy (entity.cjs) with its own classes: drizzle objects built by the ESM copy are not
// instances of them, so its answers come from the constructor walk.
const require = createRequire(import.meta.url);
const cjs = require('drizzle-orm') as typeof import('drizzle-orm');
const cjsPg = require('drizzle-orm/pg-core') as typeof import('drizzle-orm/pg-core');
const cjsTypes: Record<string, EntityClass> = Object.fromEntries(
  Object.entries(esmTypes).map(([name, type]) => {
    if (name === 'NotAnEntity') return [name, type];
    if (name === 'SQL.Aliased') return [name, cjs.SQL.Aliased];
    const copy = (cjs as Record<string, unknown>)[name] ?? (cjsPg as Record<string, unknown>)[name];
    return [name, copy as EntityClass];
  }),
);

describe.each([
  { copy: 'ESM (entity.js)', patchedIs: is as IsFunction, types: esmTypes },
  { copy: 'CommonJS (entity.cjs)', patchedIs: cjs.is as IsFunction, types: cjsTypes },
])("drizzle's is(), $copy", ({ patchedIs, types }) => {
  it('is the patched copy, with a class for every name asked', () => {
    expect(patchedIs.toString()).toContain('isUncached');
    for (const [name, type] of Object.entries(types)) {
      expect(typeof type, name).toBe('function');
      if (name !== 'NotAnEntity') expect(Object.hasOwn(type, entityKind), name).toBe(true);
    }
  });

  it('answers as the unpatched algorithm for every value x class, asked three times in changing orders', () => {
    const pairs = Object.entries(values).flatMap(([valueName, value]) =>
      Object.entries(types).map(([typeName, type]) => ({ valueName, value, typeName, type })),
    );
    const seen = new Set<string>();
    const wrong: string[] = [];
    for (const order of [pairs, [...pairs].reverse(), pairs]) {
      for (const { valueName, value, typeName, type } of order) {
        const expected = outcome(unpatchedIs, value, type);
        const got = outcome(patchedIs, value, type);
        seen.add(expected);
        if (got !== expected) wrong.push(`${valueName} x ${typeName}: ${got}, expected ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
    // The matrix has every kind of answer: yes, no, the non-entity error and the null-prototype TypeError.
    expect([...seen].sort()).toEqual([
      'false',
      'threw TypeError',
      'threw: NotAnEntity is not an entity',
      'true',
    ]);
  });

  it('answers a repeated question from memory: the second time, nothing on the classes is read', () => {
    let reads = 0;
    // biome-ignore lint/complexity/noStaticOnlyClass: an entity class whose kind counts its reads
    class Probe {
      static get [entityKind]() {
        reads += 1;
        return 'PayrailProbe';
      }
    }
    const Twin = freshEntityClass('PayrailProbe');
    const Other = freshEntityClass('PayrailOther');
    expect(patchedIs(new Other(), Probe)).toBe(false);
    expect(patchedIs(new Twin(), Probe)).toBe(true);
    expect(reads).toBeGreaterThan(0); // the first answers walked the constructor chains
    reads = 0;
    for (let i = 0; i < 2; i++) {
      expect(patchedIs(new Other(), Probe)).toBe(false);
      expect(patchedIs(new Twin(), Probe)).toBe(true);
    }
    expect(reads).toBe(0);
  });

  it('throws for a class that is not an entity each time, also for a value it has answered other questions about', () => {
    const NonEntity = NotAnEntity as unknown as EntityClass;
    expect(patchedIs(new NotAnEntity(), NonEntity)).toBe(true); // an instance, as before: no check
    expect(patchedIs(charges.id, types['Column']!)).toBe(true);
    expect(patchedIs(charges.id, types['SQL']!)).toBe(false);
    for (let i = 0; i < 2; i++) {
      expect(() => patchedIs(charges.id, NonEntity)).toThrow(/doesn't look like a Drizzle entity/);
      expect(() => patchedIs({}, NonEntity)).toThrow(/doesn't look like a Drizzle entity/);
      expect(() => patchedIs(nullPrototype, types['SQL']!)).toThrow(TypeError);
    }
  });

  it('tells apart objects that share a constructor but not a prototype chain', () => {
    // Both values' prototypes say `constructor: Base`, but only one has Narrow.prototype in its chain: an
    // answer remembered per constructor would give one of them the other's answer.
    for (const askFirst of ['plain', 'narrowed'] as const) {
      const Base = freshEntityClass('PayrailBase');
      const middle = Object.create(Base.prototype) as object;
      const Narrow = function Narrow() {} as unknown as EntityClass;
      Object.defineProperty(Narrow, entityKind, { value: 'PayrailNarrow' });
      Narrow.prototype = middle;
      const plain = new Base();
      const narrowed = Object.create(middle) as object;
      expect(Object.getPrototypeOf(narrowed).constructor).toBe(Base);
      const asked = askFirst === 'plain' ? [plain, narrowed] : [narrowed, plain];
      for (const value of [...asked, ...asked]) {
        expect(patchedIs(value, Narrow)).toBe(value === narrowed);
        expect(patchedIs(value, Base)).toBe(true);
      }
    }
  });
});
