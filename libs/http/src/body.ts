import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestHeader } from './headers';

/** Node's own request, which `@hono/node-server` hands every handler as `c.env.incoming`. */
function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && typeof incoming.on === 'function' ? incoming : undefined;
}

/**
 * How much of a refused body is still read, and for how long, before the connection is closed (RFC 9112
 * section 9.6). A client that sends its whole body without waiting for `100 Continue` (node:http writing
 * 50 MB at once) is still writing when the 413 is answered: closing at once would reset the connection
 * under it, and it would see EPIPE or ECONNRESET instead of the answer. So the answer goes first, the rest
 * of the body is read and thrown away, and only a body larger than `maxBytes`, or one still arriving after
 * `maxMs`, gets the connection closed: its write side first, the whole of it `closeGraceMs` later.
 */
export const REFUSED_BODY_DISCARD: Readonly<DiscardLimits> = {
  maxBytes: 64 * 1024 * 1024,
  maxMs: 10_000,
  closeGraceMs: 1_000,
};

export interface DiscardLimits {
  maxBytes: number;
  maxMs: number;
  closeGraceMs: number;
}

/** Thrown (internally) when a body being read passes its limit. */
class BodyTooLarge extends Error {}

/** The request's socket as Node keeps it: `destroySoon` is how a server (or Hono's adapter) closes it. */
type ServerSocket = Socket & { destroySoon?: () => void };

/**
 * Reads and throws away the rest of a refused request body (see `REFUSED_BODY_DISCARD`). While it does,
 * the connection is not closed under the client by anyone else: `@hono/node-server` closes a connection
 * whose request is still arriving half a second after its answer (through `socket.destroySoon`), too soon
 * for a large upload; that closing is deferred to this function's own, staged one.
 */
export function discardRestOfBody(
  incoming: IncomingMessage,
  limits: Readonly<DiscardLimits> = REFUSED_BODY_DISCARD,
): void {
  if (incoming.complete || incoming.destroyed || incoming.readableEnded) return;
  const socket = incoming.socket as ServerSocket | null;
  if (!socket) return;
  const ownDestroySoon = Object.hasOwn(socket, 'destroySoon');
  const originalDestroySoon = socket.destroySoon;
  let closing = false;
  let closeAsked = false;
  let read = 0;
  const restore = () => {
    if (ownDestroySoon) socket.destroySoon = originalDestroySoon;
    else delete (socket as { destroySoon?: unknown }).destroySoon;
  };
  /** The body has ended: a close asked for meanwhile (`Connection: close`) happens now. */
  const finish = () => {
    clearTimeout(timer);
    incoming.off('data', onData);
    if (closing) return;
    closing = true;
    restore();
    if (closeAsked) socket.destroySoon?.();
  };
  /** Half-close first (the answer is out), read on a little, then close. */
  const close = () => {
    if (closing) return;
    closing = true;
    clearTimeout(timer);
    incoming.off('data', onData);
    restore();
    socket.end();
    setTimeout(() => socket.destroy(), limits.closeGraceMs).unref();
  };
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.maxBytes) close();
  };
  const timer = setTimeout(close, limits.maxMs);
  timer.unref();
  socket.destroySoon = () => {
    closeAsked = true;
  };
  incoming.on('data', onData);
  incoming.once('end', finish);
  incoming.once('error', finish);
  incoming.once('close', finish);
  incoming.resume();
}

/**
 * The body from Node's request stream, at most `maxBytes` (beyond: `BodyTooLarge`, and the rest is
 * discarded as a refused body is). A request that has already ended without anyone reading it (nothing to
 * read) gives no bytes rather than waiting for an `end` that will not come again.
 */
function readStream(incoming: IncomingMessage, maxBytes = Number.POSITIVE_INFINITY): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    if (incoming.readableEnded) {
      resolve(new ArrayBuffer(0));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.off('data', onData);
        chunks.length = 0;
        discardRestOfBody(incoming);
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.once('error', reject);
    incoming.once('end', () => {
      const bytes = Buffer.concat(chunks);
      resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    });
    incoming.once('close', () => {
      if (!incoming.complete) reject(new Error('the request body was cut short'));
    });
  });
}

/** Hono keeps the promise of each body reading there (its type says the value). */
function bodyCacheOf(c: Context): Record<string, Promise<unknown>> {
  return c.req.bodyCache as Record<string, Promise<unknown>>;
}

/**
 * The request body's bytes. Under `@hono/node-server` a body nobody has read yet comes straight from
 * Node's request stream: Hono's own reader first turns the request into a WHATWG `Request` and a web
 * stream, which costs more than the rest of a small request's handling. Whatever reads the body later
 * through `c.req` gets these bytes (Hono's body cache). In memory (`app.fetch`, the embedded mode), or
 * once something has read the body, Hono's reader.
 */
export function requestBytes(c: Context): Promise<ArrayBuffer> {
  const incoming = incomingOf(c);
  const cache = bodyCacheOf(c);
  if (!incoming || incoming.readableDidRead || Object.keys(cache).length > 0) return c.req.arrayBuffer();
  const bytes = readStream(incoming);
  cache.arrayBuffer = bytes;
  return bytes;
}

/**
 * Refuses a request body over `maxBytes` with `onTooLarge`. A declared `Content-Length` is checked
 * from the header alone: the request is not materialised to look at its body (Hono's `bodyLimit`
 * does that on every request). A chunked body is read here, counted as it comes, and kept for whoever
 * reads it next (`requestBytes`, `c.req`). A request with neither header has no body (RFC 9112 section
 * 6.3). A refused body still arriving is read and thrown away before the connection closes
 * (`REFUSED_BODY_DISCARD`). In memory (no Node request), Hono's `bodyLimit` counts.
 */
export function limitBody(maxBytes: number, onTooLarge: (c: Context) => Response): MiddlewareHandler {
  const counting = bodyLimit({ maxSize: maxBytes, onError: onTooLarge });
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const incoming = incomingOf(c);
    if (!incoming) return counting(c, next);
    const chunked = requestHeader(c, 'transfer-encoding') !== undefined;
    if (!chunked) {
      const declared = requestHeader(c, 'content-length');
      if (declared !== undefined && Number.parseInt(declared, 10) > maxBytes) {
        discardRestOfBody(incoming);
        return onTooLarge(c);
      }
      return next();
    }
    const cache = bodyCacheOf(c);
    if (incoming.readableDidRead || Object.keys(cache).length > 0) return counting(c, next);
    const reading = readStream(incoming, maxBytes);
    // Whoever reads the body next waits for this reading; a refusal is answered here, not there.
    reading.catch(() => undefined);
    cache.arrayBuffer = reading;
    try {
      await reading;
    } catch (error) {
      if (error instanceof BodyTooLarge) return onTooLarge(c);
      throw error;
    }
    return next();
  };
}
