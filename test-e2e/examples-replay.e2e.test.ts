import {
  createTestDatabase,
  deleteBrokerTopology,
  type TestDatabase,
  testAmqpUrl,
  uniqueName,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN, type E2eSystem, startSystem } from './support';

// The documented examples are one story: this test reads the served /openapi.json and replays every
// request example in document order against the services running as processes, through the gateway,
// checking each documented status. Ids and dates differ from the document's: ids are learned from the
// responses (a documented `id: 1045` is whatever the real response says at that place), and dates move by
// as many months as today is after the story's day (2026-11-23), so the schedule lines up.

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const STORY_MONTH = 2026 * 12 + 10; // November 2026, months counted from year 0
const DEMO_TIME_ZONE = 'America/Asuncion';

type Json = Record<string, unknown>;
interface MediaType {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface OperationObject {
  operationId: string;
  security: Array<Record<string, unknown>>;
  parameters?: Array<{ name?: string; in?: string; example?: unknown; $ref?: string }>;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

interface Step {
  name: string;
  method: string;
  path: string;
  security: 'apiToken' | 'adminToken' | 'none';
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  status: number;
  /** The documented response of this step, to learn ids from and to check the shape against. */
  response: unknown;
}

let testDb: TestDatabase;
let system: E2eSystem;
const exchange = uniqueName('e2e_examples');
const queuePrefix = `${uniqueName('e2e_examples')}.`;

beforeAll(async () => {
  testDb = await createTestDatabase('e2e_examples');
  system = await startSystem({
    DATABASE_URL: testDb.url,
    AMQP_URL: testAmqpUrl(),
    EVENTS_EXCHANGE: exchange,
    QUEUE_PREFIX: queuePrefix,
    DEMO_API_TOKEN: DEMO_TOKEN,
    ADMIN_TOKEN,
    INTERNAL_SECRET: 'e2e-internal-secret-0123456789',
    PUBLIC_BASE_URL: 'https://pay.example.test',
  });
});

afterAll(async () => {
  await system?.stop();
  await testDb?.drop();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
});

/** Every request example of the document, in document order, with the outcome it documents. */
function stepsOf(document: { paths: Record<string, Record<string, OperationObject>> }): Step[] {
  const steps: Step[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const media = operation.requestBody?.content['application/json'];
      const requests: Array<[string, unknown]> = media?.examples
        ? Object.entries(media.examples).map(([name, example]) => [name, example.value])
        : [['default', media?.example]];
      const pathParams: Record<string, unknown> = {};
      const query: Record<string, unknown> = {};
      for (const parameter of operation.parameters ?? []) {
        if (parameter.example === undefined || !parameter.name) continue;
        (parameter.in === 'path' ? pathParams : query)[parameter.name] = parameter.example;
      }
      const security = Object.keys(operation.security[0] ?? {})[0] ?? 'none';
      for (const [name, body] of requests) {
        const [status, response] = outcomeOf(operation, name);
        steps.push({
          name: `${operation.operationId}/${name}`,
          method: method.toUpperCase(),
          path,
          security: security as Step['security'],
          pathParams,
          query,
          body,
          status,
          response,
        });
      }
    }
  }
  return steps;
}

/** The response documented for the request example `name`: one carrying an example of that name, else the first success. */
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
  return [Number(success), media?.example];
}

const ID_KEY = /^(id|.+Id|.+_id)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function monthsSinceStory(now = new Date()): number {
  const [year, month] = new Intl.DateTimeFormat('en-CA', {
    timeZone: DEMO_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
  })
    .format(now)
    .split('-')
    .map(Number) as [number, number];
  return year * 12 + (month - 1) - STORY_MONTH;
}

function shiftDate(date: string, months: number): string {
  const match = DATE.exec(date);
  if (!match || months === 0) return date;
  const index = Number(match[1]) * 12 + Number(match[2]) - 1 + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${match[3]}`;
}

/** What the story learned: a documented id → the real one at the same place of a real response. */
class Bindings {
  private readonly ids = new Map<string, unknown>();
  constructor(private readonly months: number) {}

  learn(documented: unknown, actual: unknown): void {
    if (Array.isArray(documented) && Array.isArray(actual)) {
      for (const [index, item] of documented.entries()) this.learn(item, actual[index]);
      return;
    }
    if (!isObject(documented) || !isObject(actual)) return;
    for (const [key, value] of Object.entries(documented)) {
      const real = actual[key];
      if (
        ID_KEY.test(key) &&
        (typeof value === 'number' || typeof value === 'string') &&
        real !== undefined
      ) {
        this.ids.set(String(value), real);
      } else {
        this.learn(value, real);
      }
    }
  }

  /** A documented value as it is in this run: a learned id, or a date moved with the story. */
  value(documented: unknown, key = ''): unknown {
    if (Array.isArray(documented)) return documented.map((item) => this.value(item));
    if (isObject(documented)) {
      return Object.fromEntries(Object.entries(documented).map(([k, v]) => [k, this.value(v, k)]));
    }
    if (ID_KEY.test(key) && this.ids.has(String(documented))) return this.ids.get(String(documented));
    if (typeof documented === 'string') return shiftDate(documented, this.months);
    return documented;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every documented key is in the real response, and every documented list is at least as long. */
function covers(documented: unknown, actual: unknown): boolean {
  if (Array.isArray(documented)) {
    return (
      Array.isArray(actual) &&
      actual.length >= documented.length &&
      documented.every((item, index) => covers(item, actual[index]))
    );
  }
  if (isObject(documented)) {
    return (
      isObject(actual) && Object.entries(documented).every(([k, v]) => k in actual && covers(v, actual[k]))
    );
  }
  return true;
}

async function send(step: Step, bindings: Bindings): Promise<{ status: number; body: unknown }> {
  let path = step.path;
  for (const [name, value] of Object.entries(step.pathParams)) {
    path = path.replace(`{${name}}`, encodeURIComponent(String(bindings.value(value, name))));
  }
  const query = new URLSearchParams(
    Object.entries(step.query).map(([name, value]): [string, string] => [
      name,
      String(bindings.value(value, name)),
    ]),
  ).toString();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (step.security === 'apiToken') headers['api-token'] = DEMO_TOKEN;
  if (step.security === 'adminToken') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  let body: string | undefined;
  if (step.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(bindings.value(step.body));
  }
  const response = await fetch(`${system.gatewayUrl}${path}${query ? `?${query}` : ''}`, {
    method: step.method,
    headers,
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A subscription exists only once `link.created` is consumed: a step that finds nothing yet (404 where
 * the story expects otherwise, or a shorter list than documented) changed nothing and is sent again.
 */
function notYet(step: Step, outcome: { status: number; body: unknown }): boolean {
  const expectedCode = isObject(step.response) ? step.response.code : undefined;
  if (
    outcome.status === 404 &&
    (step.status !== 404 || (isObject(outcome.body) && outcome.body.code !== expectedCode))
  ) {
    return true;
  }
  return step.method === 'GET' && outcome.status === step.status && !covers(step.response, outcome.body);
}

describe('the documented examples, replayed in document order', () => {
  it('each answers its documented status (and carries the documented fields)', async () => {
    const documentResponse = await fetch(`${system.gatewayUrl}/openapi.json`);
    expect(documentResponse.status).toBe(200);
    const document = (await documentResponse.json()) as {
      paths: Record<string, Record<string, OperationObject>>;
    };
    const steps = stepsOf(document);
    const operations = Object.values(document.paths).reduce(
      (n, methods) => n + Object.keys(methods).length,
      0,
    );
    expect(steps.length).toBeGreaterThanOrEqual(operations);

    const bindings = new Bindings(monthsSinceStory());
    const replayed: string[] = [];
    for (const step of steps) {
      let outcome = await send(step, bindings);
      const deadline = Date.now() + 20_000;
      while (notYet(step, outcome) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        outcome = await send(step, bindings);
      }
      expect(outcome.status, `${step.name}: ${JSON.stringify(outcome.body)}`).toBe(step.status);
      if (isObject(step.response) && typeof step.response.code === 'string') {
        expect(isObject(outcome.body) && outcome.body.code, step.name).toBe(step.response.code);
      }
      if (step.response !== undefined) {
        expect(covers(step.response, outcome.body), `${step.name}: ${JSON.stringify(outcome.body)}`).toBe(
          true,
        );
        bindings.learn(step.response, outcome.body);
      }
      if (isObject(step.response) && isObject(step.response.summary) && isObject(outcome.body)) {
        // The bulk step's counts are the story's: every documented update applied, the unknown one failed.
        expect(outcome.body.summary, step.name).toEqual(step.response.summary);
      }
      replayed.push(`${step.name} ${outcome.status}`);
    }
    // The story as it ran; among it a subscription made from a link without identifiers, reached through
    // its link id (bulk and cancel-by-amount), and the two steps whose documented outcome is an error.
    expect(replayed).toEqual([
      'createPaymentLink/oneOff 200',
      'createPaymentLink/staticSubscription 200',
      'createPaymentLink/dynamicSubscription 200',
      'createPaymentLink/subscriptionWithoutIdentifiers 200',
      'createSignedInUserPaymentLink/default 200',
      'getPaymentLink/default 200',
      'listPaymentLinks/default 200',
      'cancelPaymentLink/default 200',
      'listSubscriptions/default 200',
      'getSubscription/default 200',
      'listPendingInstallments/default 200',
      'addInstallments/dynamicInvoices 409',
      'modifyInstallment/default 200',
      'cancelInstallment/default 200',
      'listInstallmentAttempts/default 200',
      'bulkModifyInstallments/default 200',
      'modifyInstallmentsByAmount/default 200',
      'modifyAllInstallments/default 200',
      'modifyPaymentDay/default 200',
      'cancelInstallmentsByAmount/default 200',
      'cancelInstallmentByInvoice/invoice 404',
      'cancelSubscription/default 200',
      'notifyBankTransfer/default 200',
      'createWebhookEndpoint/default 201',
      'listWebhookEndpoints/default 200',
      'rotateWebhookSecret/default 200',
      'testWebhookEndpoint/default 202',
      'listWebhookDeliveries/default 200',
      'retryWebhookDelivery/default 202',
      'replayWebhookEvents/default 202',
      'getWebhookEndpoint/default 200',
      'updateWebhookEndpoint/default 200',
      'deleteWebhookEndpoint/default 204',
      'listEvents/default 200',
      'createMerchant/default 201',
      'getMerchant/default 200',
      'updateMerchant/default 200',
      'issueApiToken/default 201',
      'revokeApiToken/default 204',
      'createBillingRun/default 202',
      'listBillingRuns/default 200',
      'getBillingRun/default 200',
      'getDunningPolicy/default 200',
      'setDunningPolicy/default 200',
      'adminCreateWebhookEndpoint/default 201',
      'adminListWebhookEndpoints/default 200',
      'adminRotateWebhookSecret/default 200',
      'adminTestWebhookEndpoint/default 202',
      'adminGetWebhookEndpoint/default 200',
      'adminUpdateWebhookEndpoint/default 200',
      'adminDeleteWebhookEndpoint/default 204',
    ]);
  }, 180_000);
});
