import type { ApiOperation, ApiResponse } from '@payrail/contracts';
import type { Context, Env, Hono, TypedResponse } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { rememberOperation } from './domain-problem';
import { HttpProblem } from './problem';
import { readJson, validate } from './validation';

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * What a handler bound with `route()` may answer: one of the operation's documented statuses, with a JSON
 * body its schema accepts (`c.json(body, status)`), or any body for a status documented without a schema
 * (`c.body(null, 204)`). A field the schema lacks in place of one it requires (`ammount` for `amount`), a
 * wrong type or an undocumented status does not compile. Errors are thrown (`DomainError`, `HttpProblem`),
 * not answered.
 */
export type RouteAnswer<Responses extends Record<number, ApiResponse>> = {
  [Status in keyof Responses]: Status extends StatusCode
    ? Responses[Status] extends { schema: infer Schema extends z.ZodType }
      ? TypedResponse<z.input<Schema>, Status, 'json'>
      : TypedResponse<unknown, Status, string>
    : never;
}[keyof Responses];

/**
 * A JSON answer written by a writer of the caller's own (amounts as numbers with two decimals), typed by
 * its `body` as `c.json` types it, so that `route()` checks it against the operation's schema.
 */
export function jsonAnswer<T, S extends ContentfulStatusCode = 200>(
  c: Context,
  body: T,
  status: S = 200 as S,
  write: (body: T) => string = JSON.stringify,
): Response & TypedResponse<T, S, 'json'> {
  const answer: Response = c.body(write(body), status, { 'content-type': 'application/json' });
  return answer as Response & TypedResponse<T, S, 'json'>;
}

export interface RouteInput<
  Params extends z.ZodObject | undefined,
  Query extends z.ZodObject | undefined,
  Body extends z.ZodType | undefined,
> {
  params: Output<Params>;
  query: Output<Query>;
  body: Output<Body>;
}

export interface RouteOptions {
  /** Where the router is mounted: `/api` when the operation's `/api/saleitems/add` is the router's `/saleitems/add`. */
  mountedAt?: string;
  /** Runs on the parsed JSON before the schema does (the bulk limits answer 413 whatever the items hold). */
  beforeValidation?: (body: unknown) => void;
}

/** The methods bound to each path of a router, for 405 and `Allow`. */
const boundMethods = new WeakMap<object, Map<string, Set<string>>>();

/** `/api/payrequests/{id}` → `/payrequests/:id` (relative to where the router is mounted). */
export function honoPath(operation: Pick<ApiOperation, 'path'>, mountedAt = ''): string {
  if (!operation.path.startsWith(mountedAt)) {
    throw new Error(`${operation.path} is not under ${mountedAt}`);
  }
  return operation.path.slice(mountedAt.length).replace(/\{([^}]+)\}/g, ':$1') || '/';
}

/** Where each router is mounted (`/admin`), to find a request's path among the router's own. */
const mountPoints = new WeakMap<object, string>();

function remember(app: object, path: string, method: string, mountedAt: string): void {
  mountPoints.set(app, mountedAt);
  let paths = boundMethods.get(app);
  if (!paths) {
    paths = new Map();
    boundMethods.set(app, paths);
  }
  const methods = paths.get(path) ?? new Set<string>();
  methods.add(method.toUpperCase());
  paths.set(path, methods);
}

/**
 * Binds a handler to an operation's method and path, without validating anything: for the gateway,
 * which forwards the request as it came to the service that validates it.
 */
export function mountOperation<E extends Env>(
  app: Hono<E>,
  operation: ApiOperation,
  handler: (c: Context<E>) => Response | Promise<Response>,
  options: Pick<RouteOptions, 'mountedAt'> = {},
): void {
  const path = honoPath(operation, options.mountedAt);
  const mountedAt = options.mountedAt ?? '';
  remember(app, path, operation.method, mountedAt);
  app.on(operation.method.toUpperCase(), path, async (c, next) => {
    // `GET /subscriptions/cancel-all` also matches `GET /subscriptions/{id}`: a literal path of the router
    // is that path, with its own methods and handlers (bound before or after this one), not an id.
    if (path.includes(':')) {
      const literal = boundMethods.get(app)?.get(c.req.path.slice(mountedAt.length));
      const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
      if (literal?.has(method)) {
        await next();
        return;
      }
      if (literal) throw methodNotAllowed(c.req.method, c.req.path, literal);
    }
    return handler(c);
  });
}

function allowedOf(methods: Set<string>): string {
  const allowed = [...methods];
  if (methods.has('GET')) allowed.push('HEAD');
  return allowed.join(', ');
}

function methodNotAllowed(method: string, path: string, methods: Set<string>): HttpProblem {
  const allow = allowedOf(methods);
  return new HttpProblem(
    405,
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed on ${path}; allowed: ${allow}`,
    [],
    {
      allow,
    },
  );
}

/**
 * Binds a handler to its operation: method and path come from the operation, and so do the schemas the
 * path parameters, query and body are validated with (400 with each field's path) before the handler
 * runs with the parsed input. The handler's answer is typed against the operation's responses
 * (`RouteAnswer`); a `DomainError` it throws is answered through the service's error table
 * (`createApp({ errors })`), its field names spelt as the operation's (`fieldNames`).
 */
export function route<
  E extends Env,
  Params extends z.ZodObject | undefined,
  Query extends z.ZodObject | undefined,
  Body extends z.ZodType | undefined,
  Responses extends Record<number, ApiResponse>,
>(
  app: Hono<E>,
  operation: ApiOperation<Params, Query, Body, Responses>,
  handler: (
    c: Context<E>,
    input: RouteInput<Params, Query, Body>,
  ) => RouteAnswer<Responses> | Promise<RouteAnswer<Responses>>,
  options: RouteOptions = {},
): void {
  mountOperation(
    app,
    operation as ApiOperation,
    async (c) => {
      rememberOperation(c, operation);
      const params = operation.pathParams
        ? validate(operation.pathParams, c.req.param(), 'A path parameter is invalid')
        : undefined;
      const query = operation.query
        ? validate(operation.query, c.req.query(), 'A query parameter is invalid')
        : undefined;
      let body: unknown;
      if (operation.requestBody) {
        const raw = await readJson(c);
        options.beforeValidation?.(raw);
        body = validate(operation.requestBody.schema, raw);
      }
      return (await handler(c, { params, query, body } as RouteInput<
        Params,
        Query,
        Body
      >)) as unknown as Response;
    },
    options,
  );
}

/**
 * Call after the routes are bound: a path that exists with other methods answers 405 with `Allow`
 * (`HEAD` is allowed wherever `GET` is), instead of the 404 of a path that does not exist. `Allow` names
 * the methods of the path the request names: `DELETE /subscriptions/cancel-all` is answered with
 * `POST`, the methods of that literal path, not those of `/subscriptions/{id}`, which it also matches.
 */
export function answerMethodNotAllowed<E extends Env>(app: Hono<E>): void {
  const paths = boundMethods.get(app) ?? new Map<string, Set<string>>();
  const mountedAt = mountPoints.get(app) ?? '';
  for (const [path, methods] of paths) {
    app.all(path, (c) => {
      const literal = paths.get(c.req.path.slice(mountedAt.length));
      throw methodNotAllowed(c.req.method, c.req.path, literal ?? methods);
    });
  }
}
