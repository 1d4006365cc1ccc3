import { type ServiceUnderTest, type StartServiceOptions, startService, testClock } from '@payrail/testing';
import type { SimulatedClock } from '@payrail/time';
import type { Hono } from 'hono';
import { expect } from 'vitest';
import type { ConsoleVariables } from '../../src/adapters/http/console/console-context';
import { base32Decode, timeStep, totpCode } from '../../src/application/access/totp';
import { gatewayService } from '../../src/service';

// The gateway alone in this process (its own fresh database on the real PostgreSQL), on a clock the test
// moves, its development mailbox on: what a browser and an integration see of the console and the API.

export const ADMIN_TOKEN = 'admin-token-for-console-tests-0123456789';
export const GOOD_PASSWORD = 'violet tractor umbrella 42';

export type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => Json;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Json };
}

export interface ConsoleSystem {
  gateway: ServiceUnderTest;
  clock: SimulatedClock;
  /** Any request to the gateway's app, as over HTTP. */
  http(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<Answer>;
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
  api(token: string, method: string, path: string, body?: unknown): Promise<Answer>;
  /** A merchant with its first (full) token. */
  merchant(name?: string): Promise<{ id: string; apiToken: string; tokenId: string }>;
  /** The mail the gateway would have sent to someone, newest first. */
  mailTo(email: string): Promise<Array<{ subject: string; text: string }>>;
  stop(): Promise<void>;
}

export async function startConsoleSystem(
  options: Pick<StartServiceOptions, 'upstreams' | 'env'> & {
    /** Routes a test adds behind the console's sign-in (a stand-in page), before the first request. */
    consolePages?: (app: Hono<{ Variables: ConsoleVariables }>) => void;
  } = {},
): Promise<ConsoleSystem> {
  const clock = testClock(new Date('2026-11-23T12:00:00Z'));
  const gateway = await startService(gatewayService, {
    clock,
    env: { ADMIN_TOKEN, DEV_MAILBOX: 'true', PUBLIC_BASE_URL: 'http://console.test', ...options.env },
    upstreams: {
      links: async (request) =>
        new URL(request.url).pathname === '/internal/dev/mailbox'
          ? Response.json({ code: 'NOT_FOUND' }, { status: 404 })
          : new Response('no links in this test', { status: 503 }),
      ...options.upstreams,
    },
  });
  options.consolePages?.(gateway.instance.app as unknown as Hono<{ Variables: ConsoleVariables }>);
  const http: ConsoleSystem['http'] = async (method, path, init = {}) =>
    answerOf(
      await gateway.instance.app.fetch(
        new Request(`http://console.test${path}`, {
          method,
          headers: init.headers,
          body:
            init.body === undefined
              ? undefined
              : typeof init.body === 'string' || init.body instanceof URLSearchParams
                ? init.body
                : JSON.stringify(init.body),
          redirect: 'manual',
        }),
      ),
    );
  const json = { 'content-type': 'application/json' };
  const system: ConsoleSystem = {
    gateway,
    clock,
    http,
    admin: (method, path, body) =>
      http(method, path, { body, headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` } }),
    api: (token, method, path, body) =>
      http(method, path, { body, headers: { ...json, 'api-token': token } }),
    async merchant(name = 'Gimnasio Central') {
      const created = await system.admin('POST', '/admin/merchants', { name, instance: 'NATIONAL' });
      expect(created.status).toBe(201);
      const body = created.json();
      return { id: body.id as string, apiToken: body.apiToken as string, tokenId: body.tokenId as string };
    },
    async mailTo(email) {
      const mailbox = await http('GET', '/dev/mailbox');
      expect(mailbox.status).toBe(200);
      return (JSON.parse(mailbox.text) as Array<{ to: string; subject: string; text: string }>).filter(
        (mail) => mail.to === email,
      );
    },
    stop: () => gateway.stop(),
  };
  return system;
}

/** The link a mail carries (an invitation, a reset), as a path of the console. */
export function linkIn(mail: { text: string } | undefined): string {
  const match = /http:\/\/console\.test(\/console\/[\w/-]+)/.exec(mail?.text ?? '');
  expect(match, 'a console link in the mail').not.toBeNull();
  return (match as RegExpExecArray)[1] as string;
}

/** The code an authenticator app shows for a base32 secret at an instant. */
export function codeAt(secret: string, at: Date): string {
  return totpCode(base32Decode(secret), timeStep(at));
}

/**
 * A browser of the console: keeps its cookies, follows nothing by itself (each redirect is seen), reads
 * the CSRF token of the last form it was shown and sends it with the next form it posts.
 */
export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();
  csrf = '';
  /** The client address the gateway sees (in process: none, unless a test sets one). */

  constructor(private readonly system: ConsoleSystem) {}

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0
      ? {}
      : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private keep(answer: Answer): Answer {
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = (pair ?? '').split('=');
      const value = rest.join('=');
      if (!name) continue;
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const token = /name="csrf" value="([^"]+)"/.exec(answer.text)?.[1];
    if (token) this.csrf = token;
    return answer;
  }

  async get(path: string): Promise<Answer> {
    return this.keep(await this.system.http('GET', path, { headers: this.cookieHeader() }));
  }

  /** Posts a form; `csrf: false` leaves the token out (a forged post). */
  async post(
    path: string,
    fields: Record<string, string>,
    options: { csrf?: boolean } = {},
  ): Promise<Answer> {
    const form = new URLSearchParams(fields);
    if (options.csrf !== false) form.set('csrf', this.csrf);
    return this.keep(
      await this.system.http('POST', path, {
        body: form,
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
  }

  /** A page's request with this browser's cookies and CSRF token in the header (a script's way). */
  async postJson(path: string, body: unknown): Promise<Answer> {
    return this.keep(
      await this.system.http('POST', path, {
        body,
        headers: { ...this.cookieHeader(), 'content-type': 'application/json', 'x-csrf-token': this.csrf },
      }),
    );
  }

  get session(): string | undefined {
    return this.cookies.get('payrail_console_session');
  }

  /** Signs in (no second factor): the answer is the redirect home. */
  async signIn(email: string, password = GOOD_PASSWORD): Promise<Answer> {
    await this.get('/console/login');
    return this.post('/console/login', { email, password, next: '' });
  }
}

/**
 * Invites a person (by the operator for a merchant, or as given), accepts the invitation with
 * `GOOD_PASSWORD` and skips the second factor: the person can sign in.
 */
export async function aConsoleUser(
  system: ConsoleSystem,
  merchantId: string,
  email: string,
  role: 'owner' | 'operations' | 'developer' | 'viewer',
): Promise<ConsoleBrowser> {
  const invited = await system.admin('POST', `/admin/merchants/${merchantId}/users`, { email, role });
  expect(invited.status).toBe(201);
  const browser = new ConsoleBrowser(system);
  const invitation = linkIn((await system.mailTo(email))[0]);
  await browser.get(invitation);
  const accepted = await browser.post(invitation, { password: GOOD_PASSWORD, confirmation: GOOD_PASSWORD });
  expect(accepted.status).toBe(303);
  await browser.get('/console/enrol');
  await browser.post('/console/enrol/skip', {});
  const signedIn = await browser.signIn(email);
  expect(signedIn.status).toBe(303);
  // A page of its own (the password page) gives the browser its CSRF token.
  await browser.get('/console/account/password');
  return browser;
}

/** An entry of `GET /api/audit-log` as a test reads it. */
export interface AuditEntryJson {
  id: string;
  at: string;
  actor: { type: string; id: string | null; label: string | null };
  operationId: string;
  method: string;
  path: string;
  target: string | null;
  status: number;
  before: unknown;
  after: unknown;
}
