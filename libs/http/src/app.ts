import { randomUUID } from 'node:crypto';
import { contextFromHeaders, type Logger, SpanKind, SpanStatusCode, tracer } from '@payrail/observability';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { HttpProblem, problemResponse } from './problem';

export type ReadinessCheck = () => Promise<void> | void;

export interface AppVariables {
  requestId: string;
  logger: Logger;
}

export interface AppOptions {
  service: string;
  logger: Logger;
  /** Named readiness checks for `/readyz` (database, broker). Each throws when not ready. */
  readiness?: Record<string, ReadinessCheck>;
}

export interface ServiceApp {
  app: Hono<{ Variables: AppVariables }>;
  /** Makes `/readyz` answer 503 from now on (first step of a graceful shutdown). */
  markNotReady(): void;
}

/**
 * The Hono app every service starts from: request id, a server span per request continuing the caller's
 * trace, problem+json errors, `/healthz` (liveness, no dependencies) and `/readyz` (database and broker).
 */
export function createApp(options: AppOptions): ServiceApp {
  const app = new Hono<{ Variables: AppVariables }>();
  let shuttingDown = false;

  app.use('*', async (c, next) => {
    const requestId = c.req.header('x-request-id') || randomUUID();
    c.set('requestId', requestId);
    c.set('logger', options.logger.child({ requestId }));
    const parent = contextFromHeaders({
      traceparent: c.req.header('traceparent'),
      tracestate: c.req.header('tracestate'),
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
    c.header('x-request-id', requestId);
  });

  app.onError((error, c) => {
    if (error instanceof HttpProblem) return problemResponse(c, error);
    if (error instanceof HTTPException) {
      const status = error.status;
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 401 ? 'UNAUTHORIZED' : 'HTTP_ERROR';
      return problemResponse(c, new HttpProblem(status as 400, code, error.message || 'Request refused'));
    }
    c.var.logger?.error({ err: error }, 'unhandled error');
    return problemResponse(c, new HttpProblem(500, 'INTERNAL_ERROR', 'Internal error'));
  });

  app.notFound((c) =>
    problemResponse(c, new HttpProblem(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`)),
  );

  app.get('/healthz', (c) => c.json({ status: 'ok', service: options.service }));

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
