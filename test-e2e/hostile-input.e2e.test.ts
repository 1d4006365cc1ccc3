import { billingSchedulerService, PROJECTED_EVENTS, PROJECTION_CONSUMER } from '@payrail/billing-scheduler';
import { LEDGER_EVENTS } from '@payrail/processor-gateway/src/application/record-movements';
import {
  type ApiOperation,
  apiOperations,
  grants,
  MAX_LENGTH,
  OPERATION_PERMISSIONS,
} from '@payrail/contracts';
import { rowsOf } from '@payrail/db';
import { gatewayService, WEBHOOK_EVENTS_CONSUMER, WEBHOOK_SOURCE_EVENTS } from '@payrail/gateway';
import { linksService } from '@payrail/links';
import { createInProcessBus } from '@payrail/messaging';
import { processorGatewayService } from '@payrail/processor-gateway';
import { subscriptionsService } from '@payrail/subscriptions';
import { aMerchant, type ServiceUnderTest, startService, waitFor } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The project's own hostile-input run: for every operation of the OpenAPI document the gateway serves,
// otherwise valid requests with hostile values mixed in (NUL, lone surrogates, huge strings, wrong
// types, deep nesting, 1e309, -0, impossible dates, broken percent-encoding), through the real routes of
// the gateway, links and subscriptions on their real databases. Never a 5xx; every error is
// problem+json of the documented shape; and a refused request changes nothing in any database.

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const RUNS_PER_OPERATION = 200;
const CALLBACK = 'https://shop.example.com/payments/callback';

const bus = createInProcessBus();
let gateway: ServiceUnderTest;
let links: ServiceUnderTest;
let subscriptions: ServiceUnderTest;
let processorGateway: ServiceUnderTest;
let billingScheduler: ServiceUnderTest;

type Json = Record<string, unknown>;
interface Fixtures {
  apiToken: string;
  adminMerchantId: string;
  adminTokenId: string;
  linkId: number;
  installmentId: number;
  webhookEndpointId: string;
  webhookDeliveryId: string;
  adminWebhookEndpointId: string;
}
let fixtures: Fixtures;
let document: { paths: Record<string, Record<string, Json>> };

// ---------------------------------------------------------------------------------------------------
// Hostile values.

/** JSON text that `JSON.stringify` cannot write (1e309, -0 as written, a 30-digit integer). */
class RawJson {
  constructor(readonly text: string) {}
}

/** A long string, kept as unit × count so that a failing case prints in one line. */
class Repeated {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
  toString(): string {
    return this.unit.repeat(this.count);
  }
}

function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item) => {
    if (item instanceof Repeated) return item.toString();
    if (item instanceof RawJson) {
      raws.push(item.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return item;
  });
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_match, index) => raws[Number(index)] as string);
}

const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : { a: nested(depth - 1) });

const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\ud800y',
    '\udc00\ud800',
    '\ufeff',
    '',
    ' ',
    '\u202eevil',
    '😀',
    '0000-01-01',
    '2026-02-30',
    '2026-13-01',
    '2026-00-10',
    '0099-05-05',
    '99999-01-01',
    '-0',
    '1e309',
    'NaN',
    'Infinity',
    '0x10',
    '1_000',
    '150000.001',
    ' 150000 ',
    'null',
    'true',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '%00',
    '../../etc/passwd',
    'javascript:alert(1)',
    'https://evil.example.net/',
    'http://[::1]/',
    '00000000-0000-0000-0000-000000000000',
    'PARAGUAY.PROCESSOR_A',
    'DYNAMIC',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 6 }).map((text) => `${text}\u0000`),
  fc
    .tuple(fc.integer({ min: 250, max: 3000 }), fc.constantFrom('x', 'é', '😀', '\u0000', ' '))
    .map(([count, unit]) => new Repeated(unit, count)),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(
    new RawJson('1e309'),
    new RawJson('-1e309'),
    new RawJson('-0'),
    new RawJson('1e-400'),
    new RawJson('123456789012345678901234567890'),
    new RawJson('1.0000000000000000001'),
    0,
    -1,
    2 ** 31,
    2 ** 53 + 2,
    1.005,
    0.1,
    1e21,
    -0.01,
    new RawJson('99999999999999999.99'),
  ),
  fc.double(),
  fc.integer(),
);

const hostileStructure = fc.oneof(
  fc.constantFrom(null, true, false, [], {}, [null], { '': '' }),
  fc.constant(nested(200)),
  fc.constant(Array.from({ length: 2000 }, () => 'x')),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}')),
  fc.anything({ maxDepth: 3, maxKeys: 4, withNullPrototype: true }),
);

const hostileValue = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 2, arbitrary: hostileStructure },
);

/** Raw bodies no serializer writes: broken JSON, NUL bytes, deep nesting, the wrong document type. */
const hostileRawBody = fc.constantFrom(
  '',
  ' ',
  'null',
  '[]',
  '"text"',
  '1e309',
  '{',
  '{"label":',
  '{"a":1}{"b":2}',
  '\u0000',
  '{"label":"a\u0000"}',
  '{"label":"\\ud800"}',
  '\ufeff{}',
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  `{"operations":[${Array.from({ length: 201 }, () => '{}').join(',')}]}`,
  'x'.repeat(1_100_000),
);

/** Path and query text, already percent-encoded (a lone surrogate cannot be encoded, only its bytes). */
const hostileUrlText = fc.oneof(
  fc.constantFrom(
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%F0%9F%98%80',
    '%',
    '%zz',
    '%FF',
    '%C0%AF',
    '99999999999999999999',
    '9007199254740993',
    '2147483648',
    '-1',
    '0',
    '1.5',
    '1e3',
    '0x1F',
    '%20',
    '..%2F..%2Fadmin',
    'null',
    '00000000-0000-0000-0000-000000000000',
    'x'.repeat(5000),
  ),
  fc.string({ maxLength: 12 }).map((text) => encodeURIComponent(text)),
);

// ---------------------------------------------------------------------------------------------------
// Requests.

interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  description: string;
}

type Segment = string | number;

function pathsOf(value: unknown, prefix: Segment[] = []): Segment[][] {
  const found: Segment[][] = prefix.length > 0 ? [prefix] : [];
  if (Array.isArray(value)) {
    for (const [index, item] of value.slice(0, 2).entries()) found.push(...pathsOf(item, [...prefix, index]));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) found.push(...pathsOf(item, [...prefix, key]));
  }
  return found;
}

function setAt(target: unknown, path: Segment[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  const copy: Json | unknown[] = Array.isArray(target)
    ? [...target]
    : target !== null && typeof target === 'object'
      ? { ...(target as Json) }
      : {};
  (copy as Record<Segment, unknown>)[head] = setAt((copy as Record<Segment, unknown>)[head], rest, value);
  return copy;
}

function deleteAt(target: unknown, path: Segment[]): unknown {
  if (target === null || typeof target !== 'object') return target;
  if (path.length === 1 && target !== null && typeof target === 'object' && !Array.isArray(target)) {
    const { [String(path[0])]: _removed, ...rest } = target as Json;
    return rest;
  }
  if (path.length <= 1) return target;
  const [head, ...rest] = path as [Segment, ...Segment[]];
  return setAt(target, [head], deleteAt((target as Record<Segment, unknown>)[head], rest));
}

interface OperationShape {
  method: string;
  template: string;
  security: 'apiToken' | 'adminToken' | 'none';
  example: unknown;
  bodyProperties: string[];
  pathParams: string[];
  queryParams: string[];
}

function shapeOf(template: string, method: string): OperationShape {
  const operation = document.paths[template]?.[method] as Json;
  const security = ((operation.security as Array<Json> | undefined)?.[0] ?? {}) as Json;
  const content = (operation.requestBody as Json | undefined)?.content as Json | undefined;
  const json = content?.['application/json'] as Json | undefined;
  const schema = (json?.schema ?? {}) as Json;
  const parameters = ((operation.parameters ?? []) as Json[]).filter((parameter) => 'in' in parameter);
  const examples = Object.values((json?.examples ?? {}) as Record<string, { value: unknown }>);
  return {
    method,
    template,
    security: 'apiToken' in security ? 'apiToken' : 'adminToken' in security ? 'adminToken' : 'none',
    example: json?.example ?? examples[0]?.value,
    bodyProperties: Object.keys((schema.properties ?? {}) as Json),
    pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
    queryParams: parameters.filter((p) => p.in === 'query').map((p) => String(p.name)),
  };
}

/** A valid value for each path parameter: an existing link, installment, merchant or token. */
function validPathValue(template: string, name: string): string {
  if (name === 'tokenId') return fixtures.adminTokenId;
  if (name === 'endpointId') return fixtures.adminWebhookEndpointId;
  if (template.startsWith('/api/webhook-endpoints/')) return fixtures.webhookEndpointId;
  if (template.startsWith('/api/webhook-deliveries/')) return fixtures.webhookDeliveryId;
  if (template.startsWith('/admin/')) return fixtures.adminMerchantId;
  if (template.startsWith('/api/payrequests/')) return String(fixtures.linkId);
  // A payment's id is a UUID: an unknown one reaches the body's checks, then a 404.
  if (template.startsWith('/api/payments/')) return UNKNOWN_PAYMENT_ID;
  return String(fixtures.installmentId);
}

const UNKNOWN_PAYMENT_ID = '0190a6f4-6c1e-7b3d-9a52-4e8f1c2d3b4a';

/**
 * Whether the merchant's `full` API token may call the operation. The people of an account (`users`) are
 * never a token's: those operations answer 403 before reading a body, and the refusal is recorded in the
 * audit log (by design: who tried what), the one row such a refusal writes.
 */
function tokenMayCall(operation: Pick<ApiOperation, 'operationId'>): boolean {
  const permission = OPERATION_PERMISSIONS[operation.operationId];
  return permission === undefined || grants('full', permission);
}

/** The stored state without the audit log's count. */
function withoutAuditLog(state: string): string {
  return state.replace(/audit_log=-?\d+\/\d+,?/, '');
}

function validQuery(name: string): string | undefined {
  if (name === 'custom_identifier') return 'CI-4567890';
  if (name === 'custom_identifier2') return 'CONTRACT-12';
  return undefined;
}

function authHeaders(shape: OperationShape): Record<string, string> {
  if (shape.security === 'apiToken') return { 'api-token': fixtures.apiToken };
  if (shape.security === 'adminToken') return { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {};
}

/** Removing a field is one change in five: most changes put a hostile value in. */
const rarely = fc.oneof(
  { weight: 4, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);

type Mutation =
  | { kind: 'body-fields'; changes: Array<{ pick: number; value: unknown; remove: boolean }> }
  | { kind: 'raw-body'; text: string }
  | { kind: 'path'; pick: number; text: string }
  | { kind: 'query'; pick: number; text: string; repeat: boolean };

function mutationFor(shape: OperationShape): fc.Arbitrary<Mutation> {
  const options: Array<fc.WeightedArbitrary<Mutation>> = [];
  if (shape.example !== undefined) {
    options.push({
      weight: 6,
      arbitrary: fc
        .array(fc.record({ pick: fc.nat(), value: hostileValue, remove: rarely }), {
          minLength: 1,
          maxLength: 3,
        })
        .map((changes) => ({ kind: 'body-fields' as const, changes })),
    });
    options.push({
      weight: 1,
      arbitrary: hostileRawBody.map((text) => ({ kind: 'raw-body' as const, text })),
    });
  }
  if (shape.pathParams.length > 0) {
    options.push({
      weight: 2,
      arbitrary: fc
        .record({ pick: fc.nat(), text: hostileUrlText })
        .map((m) => ({ kind: 'path' as const, ...m })),
    });
  }
  if (shape.queryParams.length > 0) {
    options.push({
      weight: 4,
      arbitrary: fc
        .record({ pick: fc.nat(), text: hostileUrlText, repeat: fc.boolean() })
        .map((m) => ({ kind: 'query' as const, ...m })),
    });
  }
  if (options.length === 0) {
    // An operation without body or parameters still gets hostile bodies it should ignore or refuse.
    options.push({
      weight: 1,
      arbitrary: hostileRawBody.map((text) => ({ kind: 'raw-body' as const, text })),
    });
  }
  return fc.oneof(...options);
}

function buildRequest(shape: OperationShape, mutation: Mutation): HostileRequest {
  const pathValues = Object.fromEntries(
    shape.pathParams.map((name) => [name, encodeURIComponent(validPathValue(shape.template, name))]),
  );
  const query: Array<[string, string]> = shape.queryParams
    .map((name) => [name, validQuery(name)] as [string, string | undefined])
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => [name, encodeURIComponent(value)]);
  let body = shape.example === undefined ? undefined : toJsonText(shape.example);
  let description: string = mutation.kind;

  if (mutation.kind === 'body-fields') {
    const targets = [...pathsOf(shape.example), ...shape.bodyProperties.map((name) => [name])];
    let value: unknown = shape.example;
    const parts: string[] = [];
    for (const change of mutation.changes) {
      const target = targets[change.pick % targets.length] ?? [];
      value =
        change.remove && target.length > 0 ? deleteAt(value, target) : setAt(value, target, change.value);
      parts.push(`${change.remove ? 'remove' : 'set'} ${target.join('.') || '(body)'}`);
    }
    body = toJsonText(value);
    description = parts.join(', ');
  } else if (mutation.kind === 'raw-body') {
    body = mutation.text;
    description = `raw body of ${mutation.text.length} characters`;
  } else if (mutation.kind === 'path') {
    const name = shape.pathParams[mutation.pick % shape.pathParams.length] as string;
    pathValues[name] = mutation.text;
    description = `path ${name}=${mutation.text.slice(0, 40)}`;
  } else {
    const name = shape.queryParams[mutation.pick % shape.queryParams.length] as string;
    const others = query.filter(([key]) => key !== name);
    const repeated: Array<[string, string]> = mutation.repeat
      ? [
          [name, mutation.text],
          [name, 'CI-4567890'],
        ]
      : [[name, mutation.text]];
    query.splice(0, query.length, ...others, ...repeated);
    description = `query ${name}=${mutation.text.slice(0, 40)}${mutation.repeat ? ' (twice)' : ''}`;
  }

  const path =
    shape.template.replace(/\{(\w+)\}/g, (_match, name) => pathValues[name] as string) +
    (query.length > 0 ? `?${query.map(([key, value]) => `${key}=${value}`).join('&')}` : '');
  const sendsBody = shape.method !== 'get' && shape.method !== 'delete';
  return {
    method: shape.method.toUpperCase(),
    path,
    headers: { 'content-type': 'application/json', ...authHeaders(shape) },
    body: sendsBody ? body : undefined,
    description,
  };
}

async function send(request: HostileRequest): Promise<Response> {
  return gateway.instance.app.fetch(
    new Request(`http://gateway.test${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// What is stored: every committed row written to a table of a service (events included) bumps a counter
// in that database, in the writing transaction itself, so a rolled-back attempt leaves it as it was.

const INSERTS_AND_DELETES_ONLY = new Set(['outbox', 'api_tokens']);

async function countWrites(service: ServiceUnderTest, schema: string): Promise<void> {
  const tables = rowsOf<{ table_name: string }>(
    await service.database.db.execute(
      sql`select table_name from information_schema.tables where table_schema = ${schema} and table_type = 'BASE TABLE'`,
    ),
  )
    .map((row) => row.table_name)
    // Idempotency records are the gateway's memory of answers, refusals included, by design.
    .filter((name) => name !== 'idempotency_records');
  // Per table: rows added minus rows removed, and rows changed in place. A refusal may claim a row and give
  // it back (processor-gateway's bank-transfer claim); what counts is that nothing stays stored or changed.
  const statements = [
    'create table public.hostile_writes (tbl text primary key, net bigint not null, updates bigint not null)',
    `create function public.hostile_count() returns trigger language plpgsql as $$
       begin
         insert into public.hostile_writes values (TG_TABLE_NAME,
             case TG_OP when 'INSERT' then 1 when 'DELETE' then -1 else 0 end,
             case TG_OP when 'UPDATE' then 1 else 0 end)
           on conflict (tbl) do update set net = hostile_writes.net + excluded.net,
             updates = hostile_writes.updates + excluded.updates;
         return null;
       end $$`,
    // The relay marks outbox rows published after the fact, and a token's last-used time moves with any
    // request made with it (a refused one too, at most once a minute): only new and removed rows count there.
    ...tables.map(
      (table) =>
        `create trigger hostile_count after insert or delete${INSERTS_AND_DELETES_ONLY.has(table) ? '' : ' or update'} on "${schema}"."${table}" for each row execute function public.hostile_count()`,
    ),
  ];
  for (const statement of statements) await service.database.db.execute(sql.raw(statement));
}

async function digestOf(service: ServiceUnderTest, schema: string): Promise<string> {
  const rows = rowsOf<{ n: string }>(
    await service.database.db.execute(
      sql.raw(
        "select coalesce(string_agg(tbl || '=' || net || '/' || updates, ',' order by tbl), '') as n from public.hostile_writes where net <> 0 or updates <> 0",
      ),
    ),
  );
  return `${schema}:${rows[0]?.n ?? '?'}`;
}

async function storedState(): Promise<string> {
  const digests = await Promise.all([
    digestOf(gateway, 'gateway'),
    digestOf(links, 'links'),
    digestOf(subscriptions, 'subscriptions'),
    digestOf(processorGateway, 'processor_gateway'),
    digestOf(billingScheduler, 'billing_scheduler'),
  ]);
  return digests.join(' ');
}

async function countOf(service: ServiceUnderTest, query: string): Promise<number> {
  return rowsOf<{ count: number }>(await service.database.db.execute(sql.raw(query)))[0]?.count ?? 0;
}

/**
 * Whether what an accepted request set going has finished: every event published, and every
 * recurrent `link.created` taken in by subscriptions (its inbox holds one row per event handled), every event
 * of the webhook log and of billing-scheduler's projection taken in, every billing run done claiming.
 */

async function quiet(): Promise<boolean> {
  const sources = WEBHOOK_SOURCE_EVENTS.map((type) => `'${type}'`).join(', ');
  const [
    unpublished,
    linksCreated,
    taken,
    webhookSources,
    webhookTaken,
    projectionSources,
    projected,
    claiming,
    ledgerSources,
    ledgerTaken,
  ] = await Promise.all([
    Promise.all(
      (['gateway', 'links', 'subscriptions', 'processor_gateway', 'billing_scheduler'] as const).map(
        (schema) =>
          countOf(
            {
              gateway,
              links,
              subscriptions,
              processor_gateway: processorGateway,
              billing_scheduler: billingScheduler,
            }[schema],
            `select count(*)::int as count from "${schema}".outbox where published_at is null`,
          ),
      ),
    ),
    // subscriptions takes in only recurrent links (routing key link.created.recurrent).
    countOf(
      links,
      `select count(*)::int as count from links.outbox where type = 'link.created' and (body::jsonb -> 'data' ->> 'recurrence') is not null`,
    ),
    countOf(
      subscriptions,
      `select count(*)::int as count from subscriptions.inbox where consumer = 'subscriptions.create-subscription-on-link-created'`,
    ),
    // The gateway's webhook log takes in every link, subscription and payment event.
    Promise.all(
      (['links', 'subscriptions', 'processor_gateway'] as const).map((schema) =>
        countOf(
          { links, subscriptions, processor_gateway: processorGateway }[schema],
          `select count(*)::int as count from "${schema}".outbox where type in (${sources})`,
        ),
      ),
    ).then((counts) => counts.reduce((sum, count) => sum + count, 0)),
    countOf(
      gateway,
      `select count(*)::int as count from gateway.inbox where consumer = '${WEBHOOK_EVENTS_CONSUMER}'`,
    ),
    // billing-scheduler projects every subscription and installment event.
    countOf(
      subscriptions,
      `select count(*)::int as count from subscriptions.outbox where type in (${PROJECTED_EVENTS.map((type) => `'${type}'`).join(', ')})`,
    ),
    countOf(
      billingScheduler,
      `select count(*)::int as count from billing_scheduler.inbox where consumer = '${PROJECTION_CONSUMER}'`,
    ),
    // An accepted billing run (202) claims in the background and then writes its run row.
    countOf(
      billingScheduler,
      'select count(*)::int as count from billing_scheduler.runs where claimed_at is null',
    ),
    // processor-gateway's ledger takes in links, subscriptions and its own money events (a link's row there).
    Promise.all(
      (['links', 'subscriptions', 'processor_gateway'] as const).map((schema) =>
        countOf(
          { links, subscriptions, processor_gateway: processorGateway }[schema],
          `select count(*)::int as count from "${schema}".outbox where type in (${LEDGER_EVENTS.map((type) => `'${type}'`).join(', ')})`,
        ),
      ),
    ).then((counts) => counts.reduce((sum, count) => sum + count, 0)),
    countOf(
      processorGateway,
      `select count(*)::int as count from processor_gateway.inbox where consumer = 'processor-gateway.record-movements-on-money-events'`,
    ),
  ]);
  return (
    unpublished.every((count) => count === 0) &&
    taken >= linksCreated &&
    webhookTaken >= webhookSources &&
    projected >= projectionSources &&
    ledgerTaken >= ledgerSources &&
    claiming === 0
  );
}

/** After an accepted request, events travel on (link.created makes a subscription): wait until still. */
async function settledState(): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (!(await quiet()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  let previous = await storedState();
  for (let attempt = 0; attempt < 50; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const current = await storedState();
    if (current === previous) return current;
    previous = current;
  }
  return previous;
}

// ---------------------------------------------------------------------------------------------------
// The checks every answer passes.

async function expectWellBehaved(request: HostileRequest, response: Response): Promise<void> {
  const context = `${request.method} ${request.path.slice(0, 120)} (${request.description})`;
  expect(response.status, context).toBeLessThan(500);
  if (response.status < 400) {
    await response.arrayBuffer();
    return;
  }
  expect(response.headers.get('content-type'), context).toBe('application/problem+json');
  const problem = (await response.json()) as Json;
  expect(problem, context).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status: response.status,
    code: expect.stringMatching(/^[A-Z][A-Z0-9_]*$/),
    detail: expect.any(String),
    errors: expect.any(Array),
    requestId: expect.any(String),
  });
  for (const error of problem.errors as Json[]) {
    expect(error, context).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
}

// ---------------------------------------------------------------------------------------------------

beforeAll(async () => {
  await bus.start();
  subscriptions = await startService(subscriptionsService, { bus });
  links = await startService(linksService, { bus });
  // Bank notifications: processor-gateway with the owners of what a transfer settles.
  processorGateway = await startService(processorGatewayService, {
    bus,
    env: { BANK_TRANSFER_SWEEP_INTERVAL_MS: '0', CHARGE_JANITOR_INTERVAL_MS: '0' },
    upstreams: {
      links: (request) => Promise.resolve(links.instance.app.fetch(request)),
      subscriptions: (request) => Promise.resolve(subscriptions.instance.app.fetch(request)),
    },
  });
  // Billing runs and dunning policies (operator API): the scheduler, its ticker off.
  billingScheduler = await startService(billingSchedulerService, {
    bus,
    env: { BILLING_RUN_INTERVAL_MS: '0' },
  });
  gateway = await startService(gatewayService, {
    bus,
    // Nothing is sent to receivers here: what is stored must change only with the requests. Invitations
    // are mailed to the development mailbox (without a way to mail one, an invitation is a 503).
    env: { ADMIN_TOKEN, WEBHOOK_DELIVERY_WORKER: 'false', DEV_MAILBOX: 'true' },
    upstreams: {
      links: (request) => Promise.resolve(links.instance.app.fetch(request)),
      subscriptions: (request) => Promise.resolve(subscriptions.instance.app.fetch(request)),
      'processor-gateway': (request) => Promise.resolve(processorGateway.instance.app.fetch(request)),
      'billing-scheduler': (request) => Promise.resolve(billingScheduler.instance.app.fetch(request)),
    },
  });
  const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  // Every merchant-configuration rule enabled, so that hostile values meet validation, not a 422.
  const merchant = await gateway.request('POST', '/admin/merchants', {
    body: {
      name: 'Gym',
      instance: 'NATIONAL',
      saasContract: true,
      noLoginEnabled: true,
      callbackUrl: CALLBACK,
    },
    headers: asAdmin,
  });
  const { apiToken } = (await merchant.json()) as { apiToken: string };
  // The admin operations work on a merchant of their own: a hostile PATCH that is accepted must not
  // change the merchant the API requests use.
  const target = (await (
    await gateway.request('POST', '/admin/merchants', {
      body: { name: 'Target', instance: 'NATIONAL' },
      headers: asAdmin,
    })
  ).json()) as { id: string; tokenId: string };
  const link = await gateway.request('POST', '/api/saleitems/add', {
    headers: { 'api-token': apiToken },
    body: {
      label: 'Monthly membership',
      amount: 200000,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana Gómez',
      customIdentifier: 'CI-4567890',
      customIdentifier2: 'CONTRACT-12',
      singlePayment: false,
      creditAndDebitCard: true,
      recurrentPayment: true,
      installmentAmount: 150000,
      totalPeriods: 12,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    },
  });
  expect(link.status).toBe(200);
  const { id: linkId } = (await link.json()) as { id: number };
  const installmentId = await waitFor(async () => {
    const rows = rowsOf<{ id: number }>(
      await subscriptions.database.db.execute(sql`select min(id)::int as id from subscriptions.installments`),
    );
    return rows[0]?.id ?? undefined;
  });
  const endpoint = (await (
    await gateway.request('POST', '/api/webhook-endpoints', {
      headers: { 'api-token': apiToken },
      body: { url: 'https://hooks.example.com/payments', method: 'POST' },
    })
  ).json()) as { id: string };
  const testDelivery = (await (
    await gateway.request('POST', `/api/webhook-endpoints/${endpoint.id}/test`, {
      headers: { 'api-token': apiToken },
    })
  ).json()) as { deliveryId: string };
  const adminEndpoint = (await (
    await gateway.request('POST', `/admin/merchants/${target.id}/webhook-endpoints`, {
      headers: asAdmin,
      body: { url: 'https://hooks.example.com/operator' },
    })
  ).json()) as { id: string };
  await Promise.all([
    countWrites(gateway, 'gateway'),
    countWrites(links, 'links'),
    countWrites(subscriptions, 'subscriptions'),
    countWrites(processorGateway, 'processor_gateway'),
    countWrites(billingScheduler, 'billing_scheduler'),
  ]);
  fixtures = {
    apiToken,
    adminMerchantId: target.id,
    adminTokenId: target.tokenId,
    linkId,
    installmentId,
    webhookEndpointId: endpoint.id,
    webhookDeliveryId: testDelivery.deliveryId,
    adminWebhookEndpointId: adminEndpoint.id,
  };
  document = (await (await gateway.request('GET', '/openapi.json')).json()) as typeof document;
});

afterAll(async () => {
  for (const service of [gateway, processorGateway, billingScheduler, links, subscriptions])
    await service?.stop();
  await bus.close();
});

// ---------------------------------------------------------------------------------------------------
// The cases the issue names, as fixed examples: status, the field's path, and nothing stored.

const STATIC_LINK = {
  label: 'Monthly membership',
  amount: 200000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  installmentAmount: 150000,
  totalPeriods: 12,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
};

async function expectRefused(
  request: { method: string; path: string; body?: string; admin?: boolean },
  status: number,
  paths: string[],
): Promise<void> {
  const before = await settledState();
  const hostile: HostileRequest = {
    method: request.method,
    path: request.path,
    headers: {
      'content-type': 'application/json',
      ...(request.admin ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { 'api-token': fixtures.apiToken }),
    },
    body: request.body,
    description: 'fixed example',
  };
  const response = await send(hostile);
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = (await response.json()) as { errors: Array<{ path: string }> };
  expect(problem.errors.map((error) => error.path)).toEqual(paths);
  expect(await settledState()).toBe(before);
}

describe('the named cases', () => {
  const bulk = (operation: Json) => toJsonText({ operations: [operation] });

  it('a NUL in a body field is 400 with its path (link, signed-in user, admin), nothing stored', async () => {
    await expectRefused(
      {
        method: 'POST',
        path: '/api/saleitems/add',
        body: toJsonText({ ...STATIC_LINK, label: 'Gym\u0000' }),
      },
      400,
      ['label'],
    );
    await expectRefused(
      {
        method: 'POST',
        path: '/api/ext-app/payrequests/signed-in-user',
        body: toJsonText({
          ...STATIC_LINK,
          signedInUser: { email: 'ana@example.com', firstName: 'A\u0000na', lastName: 'Gómez' },
        }),
      },
      400,
      ['signedInUser.firstName'],
    );
    await expectRefused(
      {
        method: 'POST',
        path: '/admin/merchants',
        body: toJsonText({ name: 'Gym\u0000', instance: 'NATIONAL' }),
        admin: true,
      },
      400,
      ['name'],
    );
  });

  it('a NUL in a query parameter is 400 with its name', async () => {
    await expectRefused(
      { method: 'GET', path: '/api/subscriptions/installments?custom_identifier=CI%00x' },
      400,
      ['custom_identifier'],
    );
  });

  it('a lone surrogate in a bulk identifier is 400 with its path, nothing changed', async () => {
    await expectRefused(
      {
        method: 'PATCH',
        path: '/api/subscriptions/installments/bulk',
        body: bulk({ custom_identifier: 'CI-\ud800', updates: [{ payment_date: '2027-01-05', amount: 1 }] }),
      },
      400,
      ['operations.0.custom_identifier'],
    );
  });

  it('impossible dates (0000-01-01, 2026-02-30) are 400 with their path, in bulk and elsewhere', async () => {
    for (const date of ['0000-01-01', '2026-02-30']) {
      await expectRefused(
        {
          method: 'PATCH',
          path: '/api/subscriptions/installments/bulk',
          body: bulk({ custom_identifier: 'CI-4567890', updates: [{ payment_date: date, amount: 1 }] }),
        },
        400,
        ['operations.0.updates.0.payment_date'],
      );
      await expectRefused(
        {
          method: 'PATCH',
          path: `/api/subscriptions/installments/${fixtures.installmentId}`,
          body: toJsonText({ payment_date: date }),
        },
        400,
        ['payment_date'],
      );
    }
  });

  it('a customIdentifier longer than a subscription holds is refused when the link is created', async () => {
    await expectRefused(
      {
        method: 'POST',
        path: '/api/saleitems/add',
        body: toJsonText({ ...STATIC_LINK, customIdentifier: 'x'.repeat(4000) }),
      },
      400,
      ['customIdentifier'],
    );
  });

  it('identifiers of exactly the maximum length, multi-byte, travel from the link to its subscription', async () => {
    const customIdentifier = 'é'.repeat(MAX_LENGTH.customIdentifier - 1) + '1';
    const customIdentifier2 = '😀'.repeat((MAX_LENGTH.customIdentifier - 1) / 2) + '2';
    expect(customIdentifier2.length).toBeLessThanOrEqual(MAX_LENGTH.customIdentifier);
    const before = await settledState();
    const created = await send({
      method: 'POST',
      path: '/api/saleitems/add',
      headers: { 'content-type': 'application/json', 'api-token': fixtures.apiToken },
      body: toJsonText({ ...STATIC_LINK, customIdentifier, customIdentifier2 }),
      description: 'longest identifiers',
    });
    expect(created.status).toBe(200);
    const query = `custom_identifier=${encodeURIComponent(customIdentifier)}&custom_identifier2=${encodeURIComponent(customIdentifier2)}`;
    const listed = await waitFor(async () => {
      const response = await gateway.request('GET', `/api/subscriptions/installments?${query}`, {
        headers: { 'api-token': fixtures.apiToken },
      });
      return response.status === 200 ? ((await response.json()) as { installments: unknown[] }) : undefined;
    });
    expect(listed.installments).toHaveLength(12);
    // The write counters see an accepted request: their silence after a refusal means something.
    expect(await settledState()).not.toBe(before);
  });

  it('the services refuse an oversized body on their internal ports too (413, nothing stored)', async () => {
    const before = await settledState();
    const oversized = toJsonText({ ...STATIC_LINK, label: 'x'.repeat(2 * 1024 * 1024) });
    const merchant = aMerchant();
    for (const [service, path] of [
      [links, '/api/saleitems/add'],
      [subscriptions, '/api/subscriptions/cancel-all'],
    ] as const) {
      const response = await service.request('POST', path, { rawBody: oversized, merchant });
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    expect(await settledState()).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------------
// Bytes that are not UTF-8 (the outside fuzzer's `f4 90 80 80`, beyond U+10FFFF) in each string field of
// each operation of the document: a 400 that names the field, never a 5xx, nothing stored.

const NOT_UTF8 = Buffer.from([0xf4, 0x90, 0x80, 0x80]);
/** Stands for the broken bytes in the JSON text until it is encoded. */
const BROKEN = '\u0001BROKEN\u0001';

/** Whether a JSON schema (or one of its `anyOf` branches) admits a string. */
function admitsString(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const node = schema as Json;
  if (([] as unknown[]).concat(node.type ?? []).includes('string')) return true;
  return ((node.anyOf ?? node.oneOf ?? []) as unknown[]).some(admitsString);
}

function requestSchemaOf(template: string, method: string): Json {
  const operation = document.paths[template]?.[method] as Json;
  const content = (operation.requestBody as Json | undefined)?.content as Json | undefined;
  return ((content?.['application/json'] as Json | undefined)?.schema ?? {}) as Json;
}

/**
 * The string fields of an operation's body: every string in its example (nested ones too), and every
 * top-level property whose schema admits a string that the example leaves out.
 */
function stringFieldsOf(shape: OperationShape): Segment[][] {
  const inExample = pathsOf(shape.example).filter((path) => {
    let value: unknown = shape.example;
    for (const segment of path) value = (value as Record<Segment, unknown>)[segment];
    return typeof value === 'string';
  });
  const properties = (requestSchemaOf(shape.template, shape.method).properties ?? {}) as Json;
  const missing = Object.entries(properties)
    .filter(([name, schema]) => admitsString(schema) && !(name in ((shape.example ?? {}) as Json)))
    .map(([name]) => [name]);
  return [...inExample, ...missing];
}

/** The example body with `ok<broken bytes>ok` at `path`, as bytes. */
function bodyWithBrokenText(example: unknown, path: Segment[]): Buffer {
  const text = toJsonText(setAt(example, path, `ok${BROKEN}ok`));
  const [before, after] = text.split(JSON.stringify(BROKEN).slice(1, -1)) as [string, string];
  return Buffer.concat([Buffer.from(before), NOT_UTF8, Buffer.from(after)]);
}

function concretePath(shape: OperationShape): string {
  return shape.template.replace(/\{(\w+)\}/g, (_match, name) =>
    encodeURIComponent(validPathValue(shape.template, name)),
  );
}

async function sendBytes(shape: OperationShape, body: Buffer | string): Promise<Response> {
  return gateway.instance.app.fetch(
    new Request(`http://gateway.test${concretePath(shape)}`, {
      method: shape.method.toUpperCase(),
      headers: { 'content-type': 'application/json', ...authHeaders(shape) },
      body,
    }),
  );
}

describe('bytes that are not UTF-8 in a body', () => {
  it('the bank notification of the report: 400 naming bankName, not 500', async () => {
    const shape = shapeOf('/api/bank-notification/add', 'post');
    const before = await settledState();
    const response = await sendBytes(shape, bodyWithBrokenText(shape.example, ['bankName']));
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: Array<{ path: string; message: string }> };
    expect(problem.errors).toEqual([{ path: 'bankName', message: 'must be valid UTF-8 text' }]);
    expect(await settledState()).toBe(before);
  });

  it('in every string field of every operation of the document: 400 naming the field, nothing stored', async () => {
    const checked: string[] = [];
    const before = await settledState();
    const refusedToTokens: string[] = [];
    for (const operation of apiOperations) {
      const shape = shapeOf(operation.path, operation.method);
      if (shape.example === undefined) continue;
      if (!tokenMayCall(operation)) {
        refusedToTokens.push(`${operation.method.toUpperCase()} ${operation.path}`);
        continue;
      }
      for (const path of stringFieldsOf(shape)) {
        const context = `${operation.method.toUpperCase()} ${operation.path} ${path.join('.')}`;
        const response = await sendBytes(shape, bodyWithBrokenText(shape.example, path));
        expect(response.status, context).toBe(400);
        expect(response.headers.get('content-type'), context).toBe('application/problem+json');
        const problem = (await response.json()) as { code: string; errors: Array<{ path: string }> };
        expect(problem.code, context).toBe('VALIDATION_ERROR');
        expect(
          problem.errors.map((error) => error.path),
          context,
        ).toEqual([path.join('.')]);
        checked.push(context);
      }
    }
    expect(await storedState()).toBe(before);
    // Every operation with a body was reached with its string fields; the dunning policy has none.
    const reached = new Set(checked.map((context) => context.split(' ').slice(0, 2).join(' ')));
    const withBodies = apiOperations.filter((operation) => shapeOf(operation.path, operation.method).example);
    expect(
      withBodies
        .map((operation) => `${operation.method.toUpperCase()} ${operation.path}`)
        .filter((operation) => !reached.has(operation))
        .sort(),
    ).toEqual(['PUT /admin/merchants/{id}/dunning-policy', ...refusedToTokens].sort());
    expect(checked).toContain('POST /api/bank-notification/add bankName');
  });
});

// ---------------------------------------------------------------------------------------------------
// One maximum length per field, wherever the field appears: documented (`maxLength`) and enforced, at the
// maximum accepted and one over it refused (400 naming the field), in each operation that takes it.

const LIMITED_FIELDS: Record<string, number> = {
  customIdentifier: MAX_LENGTH.customIdentifier,
  custom_identifier: MAX_LENGTH.customIdentifier,
  customIdentifier2: MAX_LENGTH.customIdentifier2,
  custom_identifier2: MAX_LENGTH.customIdentifier2,
  documentNumber: MAX_LENGTH.documentNumber,
  redirectUrl: MAX_LENGTH.redirectUrl,
};

/** The string maxLength a schema documents (through `anyOf` branches), or undefined. */
function maxLengthOf(schema: unknown): number | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const node = schema as Json;
  if (typeof node.maxLength === 'number') return node.maxLength;
  for (const branch of (node.anyOf ?? []) as unknown[]) {
    const found = maxLengthOf(branch);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A value of exactly `length` characters the field accepts otherwise (a URL at the callback's origin). */
function valueOfLength(field: string, length: number): string {
  if (field !== 'redirectUrl') return '7'.repeat(length);
  const base = `${CALLBACK}?order=`;
  return base + 'x'.repeat(length - base.length);
}

/** Every place a limited field is taken: body properties (nested in arrays too) and query parameters. */
function limitedPlaces(): Array<{
  shape: OperationShape;
  field: string;
  where: 'body' | 'query';
  path: Segment[];
  documented: number | undefined;
}> {
  const places: Array<{
    shape: OperationShape;
    field: string;
    where: 'body' | 'query';
    path: Segment[];
    documented: number | undefined;
  }> = [];
  for (const operation of apiOperations) {
    const shape = shapeOf(operation.path, operation.method);
    const walk = (schema: unknown, path: Segment[]) => {
      if (schema === null || typeof schema !== 'object') return;
      const node = schema as Json;
      for (const [name, property] of Object.entries((node.properties ?? {}) as Json)) {
        if (name in LIMITED_FIELDS)
          places.push({
            shape,
            field: name,
            where: 'body',
            path: [...path, name],
            documented: maxLengthOf(property),
          });
        walk(property, [...path, name]);
      }
      if (node.items) walk(node.items, [...path, 0]);
      for (const branch of (node.anyOf ?? []) as unknown[]) walk(branch, path);
    };
    walk(requestSchemaOf(operation.path, operation.method), []);
    const described = (document.paths[operation.path]?.[operation.method] ?? {}) as Json;
    const parameters = (described.parameters ?? []) as Json[];
    for (const parameter of parameters)
      if (parameter.in === 'query' && String(parameter.name) in LIMITED_FIELDS)
        places.push({
          shape,
          field: String(parameter.name),
          where: 'query',
          path: [String(parameter.name)],
          documented: maxLengthOf(parameter.schema),
        });
  }
  return places;
}

/** The example with the field set (its array parents made to exist), for a body place. */
function exampleWith(shape: OperationShape, path: Segment[], value: string): unknown {
  let body: unknown = shape.example ?? {};
  // A bank notification names its target one way: by the identifiers here, with the installment's date.
  if (shape.template === '/api/bank-notification/add') {
    const { payRequestId: _link, installmentId: _installment, ...rest } = body as Json;
    body = { ...rest, customIdentifier: 'CI-4567890', paymentDate: '2027-01-05' };
  }
  return setAt(body, path, value);
}

async function sendLimited(
  place: ReturnType<typeof limitedPlaces>[number],
  value: string,
): Promise<{ status: number; errors: Array<{ path: string; message: string }> }> {
  const response =
    place.where === 'body'
      ? await sendBytes(place.shape, toJsonText(exampleWith(place.shape, place.path, value)))
      : await gateway.instance.app.fetch(
          new Request(
            `http://gateway.test${concretePath(place.shape)}?${place.field}=${encodeURIComponent(value)}`,
            { headers: authHeaders(place.shape) },
          ),
        );
  const body = response.headers.get('content-type')?.includes('json')
    ? ((await response.json()) as Json)
    : {};
  return { status: response.status, errors: (body.errors ?? []) as Array<{ path: string; message: string }> };
}

describe('maximum lengths of customIdentifier, customIdentifier2, documentNumber and redirectUrl', () => {
  it('are one per field, the same in every operation of the document', () => {
    const places = limitedPlaces();
    const documented = places.map(
      (place) => `${place.shape.method} ${place.shape.template} ${place.path.join('.')}: ${place.documented}`,
    );
    const expected = places.map(
      (place) =>
        `${place.shape.method} ${place.shape.template} ${place.path.join('.')}: ${LIMITED_FIELDS[place.field]}`,
    );
    expect(documented).toEqual(expected);
    // Every place the issue names: link creation, signed-in user, v1, bulk, bank notification.
    const operations = new Set(places.map((place) => place.shape.template));
    for (const path of [
      '/api/saleitems/add',
      '/api/ext-app/payrequests/signed-in-user',
      '/api/subscriptions/cancel-all',
      '/api/subscriptions/modify-all',
      '/api/subscriptions/installments/bulk',
      '/api/bank-notification/add',
    ])
      expect(operations).toContain(path);
    expect(places.filter((place) => place.field === 'redirectUrl').length).toBeGreaterThanOrEqual(2);
    expect(places.filter((place) => place.field === 'documentNumber').length).toBeGreaterThanOrEqual(2);
  });

  it('are enforced where each appears: the maximum accepted, one more refused with 400 naming the field', async () => {
    for (const place of limitedPlaces()) {
      const max = LIMITED_FIELDS[place.field] as number;
      const context = `${place.shape.method.toUpperCase()} ${place.shape.template} ${place.where} ${place.path.join('.')}`;
      const over = await sendLimited(place, valueOfLength(place.field, max + 1));
      expect(over.status, context).toBe(400);
      expect(
        over.errors.filter((error) => error.path === place.path.join('.')),
        context,
      ).toEqual([{ path: place.path.join('.'), message: `must be at most ${max} characters` }]);
      const atMax = await sendLimited(place, valueOfLength(place.field, max));
      expect(atMax.status, context).toBeLessThan(500);
      expect(
        atMax.errors.filter((error) => error.path === place.path.join('.')),
        `${context}: ${JSON.stringify(atMax.errors)}`,
      ).toEqual([]);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// The guaraní has no minor unit: a PYG amount with a fraction is refused where amounts enter through the
// gateway, naming the field; USD cents are taken.

describe('a PYG amount with a fraction', () => {
  it('is refused when a link is created (both endpoints) and by a bank notification; nothing stored', async () => {
    await expectRefused(
      { method: 'POST', path: '/api/saleitems/add', body: toJsonText({ ...STATIC_LINK, amount: 99000.5 }) },
      400,
      ['amount'],
    );
    await expectRefused(
      {
        method: 'POST',
        path: '/api/ext-app/payrequests/signed-in-user',
        body: toJsonText({
          ...STATIC_LINK,
          installmentAmount: '150000.50',
          signedInUser: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Gómez' },
        }),
      },
      400,
      ['installmentAmount'],
    );
    await expectRefused(
      {
        method: 'POST',
        path: '/api/bank-notification/add',
        body: toJsonText({
          payRequestId: fixtures.linkId,
          amount: '200000.50',
          bankName: 'Banco',
          reference: 'TRF-FRACTION-1',
          transferDate: '2026-11-22',
        }),
      },
      422,
      ['amount'],
    );
  });

  it('is refused by the subscription operations that take amounts, naming the field', async () => {
    const installment = fixtures.installmentId;
    const cases: Array<[string, string, Json, string[]]> = [
      [
        'PUT',
        '/api/subscriptions/modify-all',
        { customIdentifier: 'CI-4567890', newAmount: 150000.5 },
        ['newAmount'],
      ],
      [
        'PUT',
        '/api/subscriptions/modify-by-amount',
        { customIdentifier: 'CI-4567890', amount: 150000, newAmount: '150000.10' },
        ['newAmount'],
      ],
      ['PATCH', `/api/subscriptions/installments/${installment}`, { amount: 1.5 }, ['amount']],
      [
        'PATCH',
        '/api/subscriptions/installments/bulk',
        {
          operations: [
            { custom_identifier: 'CI-4567890', updates: [{ payment_date: '2027-01-05', amount: 0.5 }] },
          ],
        },
        ['operations.0.updates.0.amount'],
      ],
    ];
    for (const [method, path, body, paths] of cases)
      await expectRefused({ method, path, body: toJsonText(body) }, 400, paths);
  });

  it('in USD keeps its cents: a link of an international merchant', async () => {
    const merchant = await gateway.request('POST', '/admin/merchants', {
      body: { name: 'Shop', instance: 'INTERNATIONAL', currency: 'USD' },
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const { apiToken } = (await merchant.json()) as { apiToken: string };
    const created = await gateway.request('POST', '/api/saleitems/add', {
      headers: { 'api-token': apiToken },
      body: { ...STATIC_LINK, amount: 19.99, installmentAmount: '9.50' },
    });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ currency: 'USD', ammount: '19.99' });
  });
});

describe('hostile input', () => {
  it('covers every operation of the served /openapi.json', () => {
    const served = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(served.sort()).toEqual(
      apiOperations.map((operation) => `${operation.method} ${operation.path}`).sort(),
    );
  });

  it('documents a maximum length for every string a request carries', () => {
    const unbounded: string[] = [];
    const walk = (schema: unknown, where: string): void => {
      if (schema === null || typeof schema !== 'object') return;
      const node = schema as Json;
      const types = ([] as unknown[]).concat(node.type ?? []);
      const closed = 'enum' in node || 'const' in node || 'pattern' in node;
      if (types.includes('string') && !('maxLength' in node) && !closed) unbounded.push(where);
      for (const [key, child] of Object.entries(node)) {
        if (key === 'examples' || key === 'example') continue;
        if (Array.isArray(child)) {
          for (const [index, item] of child.entries()) walk(item, `${where}.${key}[${index}]`);
        } else walk(child, `${where}.${key}`);
      }
    };
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        walk(operation.requestBody, `${method} ${path} body`);
        walk(operation.parameters, `${method} ${path} parameters`);
      }
    }
    expect(unbounded).toEqual([]);
  });

  for (const operation of apiOperations) {
    it(`${operation.method.toUpperCase()} ${operation.path}: ${RUNS_PER_OPERATION} hostile requests, never a 5xx, problem+json, nothing stored on refusal`, async () => {
      const shape = shapeOf(operation.path, operation.method);
      let before = await settledState();
      await fc.assert(
        fc.asyncProperty(mutationFor(shape), async (mutation) => {
          const request = buildRequest(shape, mutation);
          const response = await send(request);
          await expectWellBehaved(request, response);
          if (response.status === 403 && !tokenMayCall(operation)) {
            const context = `${request.method} ${request.path.slice(0, 120)} (${request.description})`;
            const after = await storedState();
            expect(withoutAuditLog(after), context).toBe(withoutAuditLog(before));
            before = after;
          } else if (response.status >= 400) {
            const context = `${request.method} ${request.path.slice(0, 120)} (${request.description})`;
            expect(await storedState(), context).toBe(before);
          } else {
            before = await settledState();
          }
        }),
        { numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
    });
  }
});
