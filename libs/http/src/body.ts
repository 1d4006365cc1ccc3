import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestHeader } from './headers';

/** Node's own request, which `@hono/node-server` hands every handler as `c.env.incoming`. */
function incomingOf(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && typeof incoming.on === 'function' ? incoming : undefined;
}

function readStream(incoming: IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
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

/**
 * The request body's bytes. Under `@hono/node-server` a body nobody has read yet comes straight from
 * Node's request stream: Hono's own reader first turns the request into a WHATWG `Request` and a web
 * stream, which costs more than the rest of a small request's handling. Whatever reads the body later
 * through `c.req` gets these bytes (Hono's body cache). In memory (`app.fetch`, the embedded mode), or
 * once something has read the body, Hono's reader.
 */
export function requestBytes(c: Context): Promise<ArrayBuffer> {
  const incoming = incomingOf(c);
  // Hono keeps the promise of each body reading there (its type says the value).
  const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
  if (!incoming || incoming.readableDidRead || Object.keys(cache).length > 0) return c.req.arrayBuffer();
  const bytes = readStream(incoming);
  cache.arrayBuffer = bytes;
  return bytes;
}

/**
 * Refuses a request body over `maxBytes` with `onTooLarge`. A declared `Content-Length` is checked
 * from the header alone: the request is not materialised to look at its body (Hono's `bodyLimit`
 * does that on every request); a body without one (chunked) is counted as it is read, by `bodyLimit`.
 */
export function limitBody(maxBytes: number, onTooLarge: (c: Context) => Response): MiddlewareHandler {
  const counting = bodyLimit({ maxSize: maxBytes, onError: onTooLarge });
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const declared = requestHeader(c, 'content-length');
    if (declared !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
      return Number.parseInt(declared, 10) > maxBytes ? onTooLarge(c) : next();
    }
    return counting(c, next);
  };
}
