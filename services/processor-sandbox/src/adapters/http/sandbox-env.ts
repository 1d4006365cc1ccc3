import { type AppVariables, requestBytes } from '@payrail/http';
import type { Context, MiddlewareHandler } from 'hono';
import type { FaultBook } from '../../application/faults';
import type { ProcessorId } from '../../application/processors';

export interface SandboxEnv {
  Variables: AppVariables & { replyLost?: boolean };
  Bindings: { incoming?: { socket?: { destroy(): void } } };
}

export type SandboxContext = Context<SandboxEnv>;

/**
 * The outage and lost-reply faults of one processor's API. A lost reply is the charge done and committed
 * and then the connection cut, so the caller cannot tell whether it happened.
 */
export function processorFaults(
  faults: FaultBook,
  processor: ProcessorId,
  outage: () => { body: unknown },
): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    if (faults.take(processor, 'outage')) return c.json(outage().body as object, 503);
    const loseReply = faults.take(processor, 'lose-reply');
    await next();
    if (loseReply || c.get('replyLost')) cutConnection(c);
  };
}

function cutConnection(c: Context<SandboxEnv>): void {
  const socket = c.env?.incoming?.socket;
  if (socket) socket.destroy();
  // Called in memory (no socket): a gateway timeout with no body is the nearest equivalent.
  c.res = new Response(null, { status: 504 });
}

/**
 * The request's JSON, or undefined when it is not JSON. Read with `requestBytes` (straight from Node's
 * request stream): through Hono's own reader a web `Request` and stream were most of a charge's cost here.
 */
export async function readJsonBody(c: Context<SandboxEnv>): Promise<unknown> {
  try {
    return JSON.parse(Buffer.from(await requestBytes(c)).toString('utf8'));
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
