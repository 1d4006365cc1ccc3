import type { MerchantContext } from '@payrail/contracts';
import type { Context } from 'hono';
import type { MerchantPrincipal, OperatorPrincipal } from '../../domain/access/principal';

/**
 * A request the gateway makes to its own app, in this process, as someone already authenticated: a
 * console page acting through the public API as its signed-in user, or the audit log reading an object
 * before its change as the caller. The caller travels in the request's environment (Hono's `c.env`)
 * under a symbol: nothing that arrives over HTTP can carry it, so it cannot be forged from outside.
 */
const CALLER = Symbol('payrail.in-process-caller');

export type InProcessCaller =
  | {
      kind: 'merchant';
      merchant: MerchantContext;
      principal: MerchantPrincipal;
      clientAddress: string | null;
    }
  | { kind: 'operator'; principal: OperatorPrincipal; clientAddress: string | null };

export function inProcessEnv(caller: InProcessCaller): Record<symbol, InProcessCaller> {
  return { [CALLER]: caller };
}

export function inProcessCallerOf(c: Context): InProcessCaller | undefined {
  const env = c.env as Record<symbol, InProcessCaller | undefined> | undefined;
  return env && typeof env === 'object' ? env[CALLER] : undefined;
}

/** Calls the gateway's app as `caller`: the same middleware, authorization, audit and answer as over HTTP. */
export type AppFetch = (
  request: Request,
  env: Record<symbol, InProcessCaller>,
) => Response | Promise<Response>;

export function callAs(
  fetch: AppFetch,
  caller: InProcessCaller,
  request: { method: string; path: string; body?: unknown; idempotencyKey?: string; accept?: string },
): Promise<Response> {
  const headers: Record<string, string> = { accept: request.accept ?? 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
  return Promise.resolve(
    fetch(
      new Request(`http://gateway.internal${request.path}`, {
        method: request.method.toUpperCase(),
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      }),
      inProcessEnv(caller),
    ),
  );
}
