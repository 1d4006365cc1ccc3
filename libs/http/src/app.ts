import { randomUUID } from 'node:crypto';
import {
  contextFromHeaders,
  httpRequestDuration,
  httpRequests,
  type Logger,
  METRICS_CONTENT_TYPE,
  metricsText,
  SpanKind,
  SpanStatusCode,
  tracer,
} from '@payrail/observability';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { HTTPException } from 'hono/http-exception';
import { DomainError } from '@payrail/contracts';
import { limitBody } from './body';
import { domainProblem, type ErrorTable, operationOf } from './domain-problem';
import { presetResponseHeader, requestHeader } from './headers';
import { HttpProblem, problemResponse, problems } from './problem';

/** Enough for the largest legitimate request, a bulk of 200 subscriptions × 60 updates (about 600 KB). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

const MAX_BODY_BYTES_RULE = `must be a whole number of bytes from 1024 to ${1024 ** 3}`;

/**
 * `MAX_BODY_BYTES` (an integer, 1 KiB to 1 GiB; default 1 MiB), for a service's `config.ts`: the gateway and
 * every service behind it read the same setting, so a body the gateway lets through is not refused by the
 * service it goes to.
 */
export const maxBodyBytesSetting = z.coerce
  .number({ error: MAX_BODY_BYTES_RULE })
  .int({ error: MAX_BODY_BYTES_RULE })
  .min(1024, { error: MAX_BODY_BYTES_RULE })
  .max(1024 ** 3, { error: MAX_BODY_BYTES_RULE })
  .default(DEFAULT_MAX_BODY_BYTES);

export type ReadinessCheck = () => Promise<void> | void;

export interface AppVariables {
  requestId: string;
}

export interface AppOptions {
  service: string;
  logger: Logger;
  /** Named readiness checks for `/readyz` (database, broker). Each throws when not ready. */
  readiness?: Record<string, ReadinessCheck>;
  /** Larger request bodies are refused with 413 before they are read (default `DEFAULT_MAX_BODY_BYTES`). */
  maxBodyBytes?: number;
  /**
   * The service's error table (`BILLING_ERRORS`): every `DomainError` that reaches the app is answered
   * through it, so routes need no mapping of their own. A domain error whose code is not in it is a 500,
   * logged as a bug.
   */
  errors: ErrorTable;
}

export interface ServiceApp {
  app: Hono<{ Variables: AppVariables }>;
  /** Makes `/readyz` answer 503 from now on (first step of a graceful shutdown). */
  markNotReady(): void;
}

/**
 * Sets a header on the response the handler made, in place. Hono's `c.header` once the response is
 * made rebuilds it around a stream of its body, which the Node server then pumps chunk by chunk: on a
 * small JSON answer that cost more than the handler. The headers of a response that may not change
 * (straight from `fetch`) go Hono's way.
 */
function setAnswerHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

/**
 * The Hono app every service starts from: request id, a server span per request continuing the caller's
 * trace, problem+json errors, `/healthz` (liveness, no dependencies) and `/readyz` (database and broker).
 */
export function createApp(options: AppOptions): ServiceApp {
  const app = new Hono<{ Variables: AppVariables }>();
  let shuttingDown = false;

  // Counted by the matched route pattern (`/api/payrequests/:id`), never the raw path: one series per route.
  app.use('*', async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = c.req.routePath || 'unmatched';
      const method = c.req.method;
      httpRequests.inc({ service: options.service, method, route, status: String(c.res.status) });
      httpRequestDuration.observe(
        { service: options.service, method, route },
        (performance.now() - started) / 1000,
      );
    }
  });

  app.use('*', async (c, next) => {
    const requestId = requestHeader(c, 'x-request-id') || randomUUID();
    // On Node's response from the start (no `Headers` made of the answer to add it); in memory, after.
    const preset = presetResponseHeader(c, 'x-request-id', requestId);
    c.set('requestId', requestId);
    const parent = contextFromHeaders({
      traceparent: requestHeader(c, 'traceparent'),
      tracestate: requestHeader(c, 'tracestate'),
    });
    const route = c.req.path;
    await tracer(options.service).startActiveSpan(
      `${c.req.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': c.req.method,
          'url.path': route,
          'service.component': options.service,
        },
      },
      parent,
      async (span) => {
        try {
          await next();
          span.setAttribute('http.response.status_code', c.res.status);
          if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        } finally {
          span.end();
        }
      },
    );
    if (!preset) setAnswerHeader(c, 'x-request-id', requestId);
  });

  // A declared length over the limit is refused at once; a chunked body is read only up to the limit.
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  app.use(
    '*',
    limitBody(maxBodyBytes, (c) =>
      problemResponse(c, problems.tooLarge(`The request body exceeds ${maxBodyBytes} bytes`)),
    ),
  );

  // The request's logger is made only when there is something to log (an error): a child logger costs its
  // bindings' serialisation, on every request of a service that logs nothing on success.
  const loggerOf = (c: Context): Logger => {
    const requestId = c.get('requestId' as never) as string | undefined;
    return requestId ? options.logger.child({ requestId }) : options.logger;
  };

  app.onError((error, c) => {
    if (error instanceof HttpProblem) return problemResponse(c, error);
    if (error instanceof DomainError) {
      const problem = options.errors && domainProblem(error, options.errors, operationOf(c));
      if (problem) return problemResponse(c, problem);
      loggerOf(c).error(
        { err: error, code: error.code },
        "a bug: a domain error whose code is not in the service's error table",
      );
      return problemResponse(c, new HttpProblem(500, 'INTERNAL_ERROR', 'Internal error'));
    }
    if (error instanceof HTTPException) {
      const status = error.status;
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 401 ? 'UNAUTHORIZED' : 'HTTP_ERROR';
      return problemResponse(c, new HttpProblem(status as 400, code, error.message || 'Request refused'));
    }
    loggerOf(c).error({ err: error }, 'unhandled error');
    return problemResponse(c, new HttpProblem(500, 'INTERNAL_ERROR', 'Internal error'));
  });

  app.notFound((c) =>
    problemResponse(c, new HttpProblem(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`)),
  );

  app.get('/healthz', (c) => c.json({ status: 'ok', service: options.service }));

  app.get('/metrics', async (c) =>
    c.body(await metricsText(), 200, { 'content-type': METRICS_CONTENT_TYPE }),
  );

  app.get('/readyz', async (c) => {
    if (shuttingDown) return c.json({ status: 'shutting-down' }, 503);
    const results: Record<string, string> = {};
    let ready = true;
    for (const [name, check] of Object.entries(options.readiness ?? {})) {
      try {
        await check();
        results[name] = 'ok';
      } catch (error) {
        ready = false;
        results[name] = (error as Error).message || 'not ready';
      }
    }
    return c.json({ status: ready ? 'ready' : 'not-ready', checks: results }, ready ? 200 : 503);
  });

  return {
    app,
    markNotReady() {
      shuttingDown = true;
    },
  };
}
