import { grants, MERCHANT_ROLES, type MerchantRole, OPERATION_PERMISSIONS } from '@payrail/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePages } from '../../src/adapters/http/console/pages/routes';
import {
  aConsoleUser,
  type AuditEntryJson,
  type ConsoleBrowser,
  type ConsoleSystem,
  startConsoleSystem,
} from './support';

// The role × action matrix of the console's pages (issue 28): every form of every merchant page, posted by
// a signed-in user of each role with the page's CSRF token, is done or refused (403) as the permission
// table says of the API write the page makes. Which write that is, is not assumed: the viewer, refused
// every write, posts each form first, and the audit log's new entry (403, the viewer's e-mail) names the
// operation. (The gateway alone: links and subscriptions answer the reads a page makes before its write,
// and 503 to the write itself, so an allowed action changes nothing.)

const LINK = {
  id: 7,
  statusId: 1,
  paid: false,
  currency: 'PYG',
  amount: '150000.00',
  label: 'Clase de yoga',
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  customIdentifier: 'ORDER-1',
  customIdentifier2: null,
  createTime: '2026-11-23T09:00:00-03:00',
  expireTime: null,
  slug: 'abc',
  publicPayUrl: 'http://console.test/pay/abc',
  singlePayment: true,
  creditAndDebitCard: true,
  paymentMethods: ['PARAGUAY.PROCESSOR_A'],
  recurrentPayment: false,
  recurrentPaymentType: null,
  installmentAmount: null,
  totalPeriods: null,
  dayOfMonth: null,
  monthForSecondInstallment: null,
};

const SUBSCRIPTION = {
  id: 3,
  payRequestId: 7,
  type: 'DYNAMIC',
  status: 'active',
  customIdentifier: 'ORDER-1',
  customIdentifier2: null,
  currency: 'PYG',
  firstAmount: '150000.00',
  installmentAmount: '100000.00',
  totalPeriods: 3,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
  createTime: '2026-11-23T09:00:00-03:00',
  activateTime: '2026-11-23T09:05:00-03:00',
  endTime: null,
  installments: [1, 2, 3].map((number) => ({
    installmentId: 10 + number,
    number,
    paymentDate: `2026-${String(10 + number).padStart(2, '0')}-10`,
    amount: '100000.00',
    status: number === 1 ? 'paid' : 'pending',
    invoiceNumber: null,
  })),
};

const NONE = '0f0e0d0c-0b0a-4998-8776-655443322110';

/** The reads a page makes of links and subscriptions; any write: 503 (nothing behind). */
function serviceBehind(reads: Record<string, unknown>) {
  return async (request: Request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/internal/dev/mailbox') return Response.json({ code: 'NOT_FOUND' }, { status: 404 });
    if (request.method !== 'GET') return new Response('no service behind in this test', { status: 503 });
    const body = reads[pathname];
    return body
      ? Response.json(body)
      : Response.json({ code: 'NOT_FOUND', detail: pathname, errors: [] }, { status: 404 });
  };
}

let system: ConsoleSystem;
let endpointId: string;
const browsers = new Map<MerchantRole, ConsoleBrowser>();
const emailOf = (role: MerchantRole) => `${role}@gym.example.com`;
let merchantToken: string;

beforeAll(async () => {
  system = await startConsoleSystem({
    env: { WEBHOOK_DELIVERY_WORKER: 'false' },
    upstreams: {
      links: serviceBehind({ '/api/payrequests/7': LINK }),
      subscriptions: serviceBehind({
        '/api/subscriptions/3': SUBSCRIPTION,
        '/api/subscriptions': { subscriptions: [SUBSCRIPTION], nextCursor: null },
      }),
    },
  });
  const merchant = await system.merchant('Gimnasio Central');
  merchantToken = merchant.apiToken;
  const endpoint = await system.api(merchantToken, 'POST', '/api/webhook-endpoints', {
    url: 'https://shop.example.com/hooks',
  });
  expect(endpoint.status).toBe(201);
  endpointId = endpoint.json().id as string;
  for (const role of MERCHANT_ROLES)
    browsers.set(role, await aConsoleUser(system, merchant.id, emailOf(role), role));
}, 60_000);
afterAll(async () => system?.stop());

/** Each merchant page's form: where it posts (the route's parameters filled in) and what it sends. */
function pageActions(): Array<{ route: string; path: string; fields: Record<string, string> }> {
  const actions = [];
  for (const route of consolePages().routes) {
    if (route.method !== 'POST' || route.path.startsWith('/operator') || route.path === '/language') continue;
    const path = route.path.replace(/:(\w+)\{(.+?)\}(?=\/|$)/g, (_, name: string, pattern: string) => {
      if (name === 'installment') return '12';
      if (/^\[0-9\]\+$/.test(pattern)) return route.path.startsWith('/links') ? '7' : '3';
      return route.path.startsWith('/developers/webhooks') ? endpointId : NONE;
    });
    actions.push({
      route: route.path,
      path: `/console${path}`,
      fields: {
        // The link form's fields, a confirmation ticked, and a value for every other form's first field.
        label: 'Clase',
        amount: '1000',
        handleValue: 'ana@example.com',
        handleLabel: 'Ana',
        singlePayment: 'true',
        creditAndDebitCard: 'true',
        confirm: 'yes',
        url: 'https://shop.example.com/other',
        name: 'Informes',
        scope: 'read-only',
        email: 'eva@gym.example.com',
        role: 'viewer',
        from: '2026-11-01T00:00',
        to: '2026-11-02T00:00',
      },
    });
  }
  return actions;
}

async function newestAuditEntry(): Promise<AuditEntryJson | undefined> {
  const page = await system.api(merchantToken, 'GET', '/api/audit-log?limit=1');
  return (page.json().entries as AuditEntryJson[])[0];
}

/** Page action → the API write it makes, as the viewer's refusals in the audit log name them. */
const operationOf = new Map<string, string>();

describe("role × action matrix of the console's pages", () => {
  it('covers every merchant page that posts a form', () => {
    const routes = pageActions().map((action) => action.route);
    expect(routes.length).toBeGreaterThanOrEqual(22);
    for (const area of [
      '/links',
      '/subscriptions',
      '/developers/webhooks',
      '/developers/tokens',
      '/settings/users',
    ])
      expect(
        routes.some((route) => route.startsWith(area)),
        area,
      ).toBe(true);
  });

  it('a viewer: every action refused (403), each refusal in the audit log with the viewer and the write it was', async () => {
    const viewer = browsers.get('viewer') as ConsoleBrowser;
    const wrong: string[] = [];
    for (const action of pageActions()) {
      const before = await newestAuditEntry();
      const answer = await viewer.post(action.path, action.fields);
      const entry = await newestAuditEntry();
      if (answer.status !== 403) wrong.push(`${action.route}: page ${answer.status}`);
      if (!entry || entry.id === before?.id) {
        wrong.push(`${action.route}: no write reached the API`);
        continue;
      }
      expect(entry.actor).toMatchObject({ type: 'user', label: emailOf('viewer') });
      expect(entry.status, action.route).toBe(403);
      expect(OPERATION_PERMISSIONS[entry.operationId], entry.operationId).toMatchObject({ access: 'write' });
      operationOf.set(action.route, entry.operationId);
    }
    expect(wrong).toEqual([]);
  });

  // The ones that may delete the webhook endpoint last (a refusal shows the endpoint's page again).
  it.each(['operations', 'developer', 'owner'] as const)(
    'a console user with the role %s: each page action done or 403 as the table says of its write',
    async (role) => {
      expect(operationOf.size, 'the viewer’s run names every action’s write').toBe(pageActions().length);
      const browser = browsers.get(role) as ConsoleBrowser;
      const wrong: string[] = [];
      for (const action of pageActions()) {
        const operationId = operationOf.get(action.route) as string;
        const allowed = grants(role, OPERATION_PERMISSIONS[operationId] as never);
        const answer = await browser.post(action.path, action.fields);
        if ((answer.status === 403) === allowed)
          wrong.push(
            `${action.route} (${operationId}): ${answer.status}, ${allowed ? 'allowed' : 'refused'}`,
          );
      }
      expect(wrong).toEqual([]);
    },
  );
});
