import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ConsoleUser, InProcessGateway } from '@payrail/gateway';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

/**
 * A stand-in for the console's sign-in, for the pages' tests until the real one (issue 28's console-auth)
 * lands: the test puts who is signed in into a cookie, and this middleware sets the seam's variables from
 * it, with a `consoleApi` that calls the gateway's own app in process with the merchant's real `Api-Token`
 * (or the operator's bearer token). It checks the CSRF field of every form as the real one will. Never part
 * of a deployment: only the browser tests' gateway entry (`console-gateway.main.ts`) mounts it.
 */
export const TEST_SESSION_COOKIE = 'payrail_console_test';

export interface TestSession {
  user: ConsoleUser;
  /** The merchant's `Api-Token` (a merchant user) or the operator's bearer token (the operator). */
  token: string;
}

export function encodeTestSession(session: TestSession): string {
  return Buffer.from(JSON.stringify(session)).toString('base64url');
}

function decode(value: string | undefined): TestSession | undefined {
  if (!value) return undefined;
  try {
    return JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as TestSession;
  } catch {
    return undefined;
  }
}

const SECRET = 'console-test-sign-in';
const csrfOf = (cookie: string) => createHmac('sha256', SECRET).update(cookie).digest('base64url');

export function testConsoleSignIn(gateway: InProcessGateway): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path.startsWith('/console/assets/')) return next();
    const cookie = getCookie(c, TEST_SESSION_COOKIE);
    const session = decode(cookie);
    if (!cookie || !session) return c.text('not signed in (test sign-in)', 401);
    const csrf = csrfOf(cookie);
    if (c.req.method === 'POST') {
      const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const given = typeof body.csrf === 'string' ? Buffer.from(body.csrf) : Buffer.alloc(0);
      const expected = Buffer.from(csrf);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return c.text('CSRF token missing or wrong', 403);
    }
    c.set('consoleUser' as never, session.user as never);
    c.set('csrfToken' as never, csrf as never);
    c.set('clientAddress' as never, '127.0.0.1' as never);
    c.set(
      'consoleApi' as never,
      {
        call: (request: {
          method: string;
          path: string;
          body?: unknown;
          idempotencyKey?: string;
          accept?: string;
        }) => {
          const headers: Record<string, string> = { accept: request.accept ?? 'application/json' };
          if (session.user.kind === 'operator') headers.authorization = `Bearer ${session.token}`;
          else headers['api-token'] = session.token;
          if (request.body !== undefined) headers['content-type'] = 'application/json';
          if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
          return gateway(
            new Request(`http://gateway.internal${request.path}`, {
              method: request.method,
              headers,
              body: request.body === undefined ? undefined : JSON.stringify(request.body),
            }),
          );
        },
      } as never,
    );
    c.set(
      'consoleAccount' as never,
      {
        async setLanguage(language: 'es' | 'en') {
          const changed = encodeTestSession({ ...session, user: { ...session.user, language } });
          setCookie(c, TEST_SESSION_COOKIE, changed, { path: '/', httpOnly: true, sameSite: 'Strict' });
        },
      } as never,
    );
    return next();
  };
}
