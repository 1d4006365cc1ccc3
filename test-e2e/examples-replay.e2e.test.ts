import { randomUUID } from 'node:crypto';
import { STORY_DAY } from '@payrail/contracts';
import {
  createTestDatabase,
  deleteBrokerTopology,
  payOnPayPage,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// The documented examples are one story: this test reads the served /openapi.json and pastes every request
// example in document order into a fresh system (every service its own process, as `npm start` runs them
// on PostgreSQL and RabbitMQ), through the gateway, as the demo merchant. Each must answer its documented
// status and its documented body, values included:
// - numeric ids as documented (a fresh start's sequences begin at 1);
// - UUIDs and event ids (new in every run) learned where they first appear in an answer, and the same
//   wherever they appear again; in a request, the learned one is sent;
// - calendar dates moved with the story: its day (2026-11-23) is today in the merchant's time zone, the
//   others move by as many months as today is after the story's day; instants in a request move by days;
// - instants, slugs, pay URLs, secrets and tokens of an answer: present (null where documented null);
// - a path parameter a request example names for itself (OpenAPI `examples`) is sent with that example, and
//   an operation that requires an `Idempotency-Key` (a refund) gets a key of its own each time.
// Where an operation says the story pays a link first (`x-story-pays-first`), the customer pays it on the
// pay page with the sandbox's test card, as the document tells a reader to. Every operation of the document
// must be replayed: one without an example fails the test.
//
// Against a `npm start` of your own instead (embedded mode, a fresh DATA_DIR): start it with
// `DEMO_API_TOKEN` and `ADMIN_TOKEN` set, then run this file with `EXAMPLES_GATEWAY_URL` (its gateway),
// `EXAMPLES_API_TOKEN` and `EXAMPLES_ADMIN_TOKEN` (the two tokens) and, when not on the gateway's port + 5,
// `EXAMPLES_SANDBOX_URL`.

const against = process.env.EXAMPLES_GATEWAY_URL;
const API_TOKEN = (against && process.env.EXAMPLES_API_TOKEN) || DEMO_TOKEN;
const ADMIN_TOKEN = (against && process.env.EXAMPLES_ADMIN_TOKEN) || 'e2e-admin-token-0123456789abcdef';
const DEMO_TIME_ZONE = 'America/Asuncion';
const TEST_CARD = '4242424242424242';

type Json = Record<string, unknown>;
interface MediaType {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface ParameterObject {
  name?: string;
  in?: string;
  required?: boolean;
  example?: unknown;
  /** A value for each request example of the same name (an operation whose examples name other ids). */
  examples?: Record<string, { value: unknown }>;
  $ref?: string;
}
interface OperationObject {
  operationId: string;
  security: Array<Record<string, unknown>>;
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
  'x-story-pays-first'?: number[];
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
}

interface Step {
  operationId: string;
  name: string;
  method: string;
  path: string;
  security: 'apiToken' | 'adminToken' | 'none';
  /** The operation requires an `Idempotency-Key` (a refund): each step sends a key of its own. */
  idempotencyKeyRequired: boolean;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  status: number;
  /** The documented answer of this step. */
  response: unknown;
  /** Links the customer pays on the pay page before this step (the first step of its operation only). */
  paysFirst: number[];
}

let testDb: TestDatabase | undefined;
let system: Pick<E2eSystem, 'gatewayUrl' | 'urls' | 'logs'> & { stop?: () => Promise<void> };
const exchange = uniqueName('e2e_examples');
const queuePrefix = `${uniqueName('e2e_examples')}.`;

beforeAll(async () => {
  if (against) {
    const port = Number(new URL(against).port || 80);
    const sandboxUrl = process.env.EXAMPLES_SANDBOX_URL ?? `http://localhost:${port + 5}`;
    system = {
      gatewayUrl: against.replace(/\/$/, ''),
      urls: { 'processor-sandbox': sandboxUrl } as E2eSystem['urls'],
      logs: [],
    };
    return;
  }
  const database = await createTestDatabase('e2e_examples');
  testDb = database;
  system = await startSystem((ports) => ({
    DATABASE_URL: database.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    ADMIN_TOKEN,
    INTERNAL_SECRET: 'e2e-internal-secret-0123456789',
    // The pay page's own origin, as with `npm start`: the customer comes back to it from the sandbox's form.
    PUBLIC_BASE_URL: ports.gatewayUrl,
    // As with `npm start`: mail (the console's invitations) goes to the development mailbox.
    DEV_MAILBOX: 'true',
    LOG_LEVEL: 'warn',
  }));
});

afterAll(async () => {
  if (against) return;
  await system?.stop?.();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

afterEach(({ task }) => {
  if (task.result?.state === 'fail' && system) {
    console.log(`the services' last log lines (warn and up)\n${system.logs.slice(-60).join('\n')}`);
  }
});

/** Every operation of the document, as `operationId`. */
function operationsOf(document: OpenApiDocument): string[] {
  return Object.values(document.paths).flatMap((methods) =>
    Object.values(methods).map((operation) => operation.operationId),
  );
}

/** What an operation lacks to be replayed: an example of a parameter it needs, of its body, of its answer. */
function missingExamples(document: OpenApiDocument): string[] {
  const missing: string[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const operation of Object.values(methods)) {
      const id = operation.operationId;
      for (const parameter of operation.parameters ?? []) {
        const documented = parameter.example !== undefined || parameter.examples !== undefined;
        if ((parameter.in === 'path' || parameter.required) && !documented && !parameter.$ref) {
          missing.push(`${id}: ${parameter.in} parameter ${parameter.name}`);
        }
      }
      for (const name of path.match(/\{[^}]+\}/g) ?? []) {
        const declared = operation.parameters?.some((p) => `{${p.name}}` === name && p.in === 'path');
        if (!declared) missing.push(`${id}: ${name} is not a declared path parameter`);
      }
      const body = operation.requestBody?.content['application/json'];
      if (body && body.example === undefined && !body.examples) missing.push(`${id}: request body`);
      const success = Object.entries(operation.responses).filter(
        ([status, response]) => Number(status) < 300 && response.content?.['application/json'],
      );
      for (const [status, response] of success) {
        const media = response.content?.['application/json'];
        if (media?.example === undefined && !media?.examples) missing.push(`${id}: ${status} answer`);
      }
    }
  }
  return missing;
}

/** Every request example of the document, in document order, with the outcome it documents. */
function stepsOf(document: OpenApiDocument): Step[] {
  const steps: Step[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const media = operation.requestBody?.content['application/json'];
      const requests: Array<[string, unknown]> = media?.examples
        ? Object.entries(media.examples).map(([name, example]) => [name, example.value])
        : [['default', media?.example]];
      const security = Object.keys(operation.security[0] ?? {})[0] ?? 'none';
      const idempotencyKeyRequired = (operation.parameters ?? []).some(
        (parameter) => parameter.$ref === '#/components/parameters/IdempotencyKeyRequired',
      );
      requests.forEach(([name, body], index) => {
        // A parameter's value for this request example: its own (`examples`), else the parameter's example.
        const pathParams: Record<string, unknown> = {};
        const query: Record<string, unknown> = {};
        for (const parameter of operation.parameters ?? []) {
          const value =
            parameter.examples?.[name]?.value ??
            parameter.example ??
            Object.values(parameter.examples ?? {})[0]?.value;
          if (value === undefined || !parameter.name) continue;
          (parameter.in === 'path' ? pathParams : query)[parameter.name] = value;
        }
        const [status, response] = outcomeOf(operation, name);
        steps.push({
          operationId: operation.operationId,
          name: `${operation.operationId}/${name}`,
          method: method.toUpperCase(),
          path,
          security: security as Step['security'],
          idempotencyKeyRequired,
          pathParams,
          query,
          body,
          status,
          response,
          paysFirst: index === 0 ? (operation['x-story-pays-first'] ?? []) : [],
        });
      });
    }
  }
  return steps;
}

/** The answer documented for the request example `name`: one carrying an example of that name, else the first success. */
function outcomeOf(operation: OperationObject, name: string): [number, unknown] {
  const statuses = Object.keys(operation.responses).sort((a, b) => Number(a) - Number(b));
  for (const status of statuses) {
    for (const media of Object.values(operation.responses[status]?.content ?? {})) {
      const named = media.examples?.[name];
      if (named) return [Number(status), named.value];
    }
  }
  const success = statuses.find((status) => Number(status) < 300);
  if (!success) throw new Error(`${operation.operationId} documents no success response`);
  const media = operation.responses[success]?.content?.['application/json'];
  return [Number(success), media?.example ?? Object.values(media?.examples ?? {})[0]?.value];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Values a run makes anew: UUIDs and event ids. */
const RUN_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|evt_\w+)$/i;
/** Per-run values whose documented example only shows the shape. */
const SHAPE_ONLY = new Set([
  'slug',
  'publicPayUrl',
  'secret',
  'apiToken',
  'txId',
  'processorReference',
  'authorizationCode',
  'expireTime',
  'nextCursor',
  'durationMs',
  'error',
  'response',
  // The audit log's: the address the request came from, as the gateway saw it.
  'clientAddress',
]);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const dayIndex = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
const fromDayIndex = (index: number) => new Date(index * 86_400_000).toISOString().slice(0, 10);

/** The story as it runs today: documented dates and ids → this run's. */
class Story {
  private readonly ids = new Map<string, string>();
  private readonly months: number;
  private readonly days: number;

  constructor(private readonly today: string) {
    const [storyYear, storyMonth] = STORY_DAY.split('-').map(Number) as [number, number];
    const [year, month] = today.split('-').map(Number) as [number, number];
    this.months = year * 12 + month - (storyYear * 12 + storyMonth);
    this.days = dayIndex(today) - dayIndex(STORY_DAY);
  }

  /** A documented calendar day as it falls in this run. */
  date(documented: string): string {
    if (documented === STORY_DAY) return this.today;
    const match = DATE.exec(documented);
    if (!match || this.months === 0) return documented;
    const index = Number(match[1]) * 12 + Number(match[2]) - 1 + this.months;
    return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${match[3]}`;
  }

  /** A documented value of a request as this run sends it. */
  request(documented: unknown): unknown {
    if (Array.isArray(documented)) return documented.map((item) => this.request(item));
    if (isObject(documented)) {
      return Object.fromEntries(Object.entries(documented).map(([k, v]) => [k, this.request(v)]));
    }
    if (typeof documented !== 'string') return documented;
    if (RUN_ID.test(documented)) return this.ids.get(documented) ?? documented;
    if (DATE.test(documented)) return this.date(documented);
    const instant = INSTANT.exec(documented);
    if (instant?.[1]) {
      return documented.replace(instant[1], fromDayIndex(dayIndex(instant[1]) + this.days));
    }
    return documented;
  }

  /** Where `actual` differs from the documented answer (empty: it is as documented). */
  differences(documented: unknown, actual: unknown, at = '$', key = ''): string[] {
    const here = (expected: unknown) => [
      `${at}: documented ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    ];
    if (Array.isArray(documented)) {
      if (!Array.isArray(actual) || actual.length !== documented.length) return here(documented);
      return documented.flatMap((item, index) => this.differences(item, actual[index], `${at}[${index}]`));
    }
    if (isObject(documented)) {
      if (!isObject(actual)) return here(documented);
      return Object.entries(documented).flatMap(([k, v]) =>
        k in actual ? this.differences(v, actual[k], `${at}.${k}`, k) : [`${at}.${k}: missing`],
      );
    }
    if (documented === null || actual === null) return documented === actual ? [] : here(documented);
    if (typeof documented !== typeof actual) return here(documented);
    if (SHAPE_ONLY.has(key)) return [];
    if (typeof documented === 'string' && typeof actual === 'string') {
      if (INSTANT.test(documented)) return [];
      if (RUN_ID.test(documented)) {
        const learned = this.ids.get(documented);
        if (learned !== undefined) return learned === actual ? [] : here(learned);
        const takenBy = [...this.ids].find(([, value]) => value === actual)?.[0];
        return RUN_ID.test(actual) && !takenBy ? [] : here(documented);
      }
      if (DATE.test(documented)) return this.date(documented) === actual ? [] : here(this.date(documented));
    }
    return documented === actual ? [] : here(documented);
  }

  /** After an answer matched: the run's UUIDs and event ids at the places the document shows its own. */
  learn(documented: unknown, actual: unknown): void {
    if (Array.isArray(documented) && Array.isArray(actual)) {
      for (const [index, item] of documented.entries()) this.learn(item, actual[index]);
    } else if (isObject(documented) && isObject(actual)) {
      for (const [k, v] of Object.entries(documented)) if (!SHAPE_ONLY.has(k)) this.learn(v, actual[k]);
    } else if (typeof documented === 'string' && typeof actual === 'string' && RUN_ID.test(documented)) {
      this.ids.set(documented, actual);
    }
  }
}

/** Today in the demo merchant's time zone, `yyyy-MM-dd`. */
function today(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: DEMO_TIME_ZONE }).format(new Date());
}

async function call(
  method: string,
  path: string,
  security: Step['security'],
  body?: unknown,
  idempotencyKey?: string,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  if (security === 'apiToken') headers['api-token'] = API_TOKEN;
  if (security === 'adminToken') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function send(step: Step, story: Story): Promise<{ status: number; body: unknown }> {
  // A key of its own each time: a step is only sent again after an answer that changed nothing (a 404).
  const key = step.idempotencyKeyRequired ? randomUUID() : undefined;
  let path = step.path;
  for (const [name, value] of Object.entries(step.pathParams)) {
    path = path.replace(`{${name}}`, encodeURIComponent(String(story.request(value))));
  }
  const query = new URLSearchParams(
    Object.entries(step.query).map(([name, value]): [string, string] => [name, String(story.request(value))]),
  ).toString();
  return call(
    step.method,
    `${path}${query ? `?${query}` : ''}`,
    step.security,
    story.request(step.body),
    key,
  );
}

/** The subscription made from a link, once subscriptions has it (and, with `status`, once it has that status). */
async function subscriptionOf(linkId: number, status?: string): Promise<void> {
  await waitFor(
    async () => {
      const found = await call('GET', `/api/subscriptions?payRequestId=${linkId}`, 'apiToken');
      const [first] = (isObject(found.body) && (found.body.subscriptions as Json[])) || [];
      return first !== undefined && (status === undefined || first.status === status);
    },
    30_000,
    100,
  );
}

/** What a link the story made needs to be paid on its page. */
interface MadeLink {
  slug: string;
  documentNumber: string;
  recurrent: boolean;
  /** Where the customer goes once paid: the merchant's page, else the receipt. */
  redirectUrl?: string;
}

describe('the documented examples, replayed in document order', () => {
  it('each answers as documented, and every operation is replayed', async () => {
    const documentResponse = await fetch(`${system.gatewayUrl}/openapi.json`);
    expect(documentResponse.status).toBe(200);
    const document = (await documentResponse.json()) as OpenApiDocument;
    expect(missingExamples(document)).toEqual([]);
    const steps = stepsOf(document);

    const story = new Story(today());
    const links = new Map<number, MadeLink>();
    const replayed: string[] = [];
    for (const step of steps) {
      for (const linkId of step.paysFirst) {
        const link = links.get(linkId);
        expect(link, `${step.name}: the story pays link ${linkId}, which it never made`).toBeDefined();
        if (!link) continue;
        const paid = await payOnPayPage({
          gatewayUrl: system.gatewayUrl,
          sandboxUrl: system.urls['processor-sandbox'],
          slug: link.slug,
          documentNumber: link.documentNumber,
          cardNumber: TEST_CARD,
          option: link.recurrent ? 'subscription' : 'single',
        });
        expect(paid.location, `${step.name}: paying link ${linkId}`).toBe(
          link.redirectUrl ?? `/pay/${link.slug}/receipt`,
        );
        if (link.recurrent) await subscriptionOf(linkId, 'active');
      }

      // An error outcome is documented by its code; its wording is the reference's.
      const documented =
        step.status >= 400 && isObject(step.response) ? { code: step.response.code } : step.response;
      let outcome = await send(step, story);
      let differences = story.differences(documented, outcome.body);
      // A GET may run ahead of what it reads (an event recorded, a delivery attempted, a run completed):
      // it changed nothing and is read again, for a while. A 404 where the story expects otherwise changed
      // nothing either (a subscription not there yet).
      const deadline = Date.now() + 20_000;
      while (
        Date.now() < deadline &&
        ((step.method === 'GET' && (outcome.status !== step.status || differences.length > 0)) ||
          (outcome.status === 404 && step.status !== 404))
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        outcome = await send(step, story);
        differences = story.differences(documented, outcome.body);
      }
      expect(outcome.status, `${step.name}: ${JSON.stringify(outcome.body)}`).toBe(step.status);
      if (documented !== undefined) {
        expect(differences, `${step.name}: ${JSON.stringify(outcome.body)}`).toEqual([]);
        story.learn(documented, outcome.body);
      }
      replayed.push(step.operationId);

      // A link the story made: how its customer pays it, and its subscription before the next step (a
      // reader pasting by hand is slower than the event that makes it).
      const request = step.body;
      if (isObject(outcome.body) && typeof outcome.body.slug === 'string' && isObject(request)) {
        const id = outcome.body.id as number;
        links.set(id, {
          slug: outcome.body.slug,
          documentNumber: String(request.documentNumber ?? ''),
          recurrent: request.recurrentPayment === true,
          ...(typeof request.redirectUrl === 'string' ? { redirectUrl: request.redirectUrl } : {}),
        });
        if (request.recurrentPayment === true) await subscriptionOf(id);
      }
    }

    // Every operation of the document was replayed, each at least once.
    expect([...new Set(replayed)].sort()).toEqual([...new Set(operationsOf(document))].sort());
    expect(replayed.length).toBeGreaterThanOrEqual(operationsOf(document).length);
    // The story pays where it says so.
    expect(steps.flatMap((step) => step.paysFirst)).not.toEqual([]);
  }, 300_000);
});
