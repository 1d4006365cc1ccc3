import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { parse } from 'hono/utils/cookie';

/** Node's own request and response, which `@hono/node-server` hands every handler in `c.env`. */
function nodeOf(c: Context): { incoming?: IncomingMessage; outgoing?: ServerResponse } {
  return (c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined) ?? {};
}

/**
 * A request header (`name` in lower case). Under `@hono/node-server` it is read from the headers Node
 * parsed already: `c.req.header` first builds a WHATWG `Headers` of the whole request, which costs more
 * than the rest of a small forwarded request's header work. Repeated headers are joined with `, ` either
 * way. In memory (`app.fetch`), `c.req.header`.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const headers = nodeOf(c).incoming?.headers;
  if (!headers || typeof headers !== 'object') return c.req.header(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Sets a response header on Node's response before the handler answers (`writeHead` merges it with the
 * response's own headers, which win). False when there is no Node response (in memory): set it on
 * `c.res` then.
 */
export function presetResponseHeader(c: Context, name: string, value: string): boolean {
  const outgoing = nodeOf(c).outgoing;
  if (!outgoing || typeof outgoing.setHeader !== 'function' || outgoing.headersSent) return false;
  outgoing.setHeader(name, value);
  return true;
}

/**
 * A cookie of the request by its name, read through `requestHeader` (Hono's `getCookie` reads
 * `c.req.raw.headers`, which under `@hono/node-server` first builds a WHATWG `Headers` of the whole request).
 */
export function requestCookie(c: Context, name: string): string | undefined {
  const cookie = requestHeader(c, 'cookie');
  if (!cookie) return undefined;
  return parse(cookie, name)[name];
}
