import { defineOperation } from '@payrail/contracts';
import { createLogger } from '@payrail/observability';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerMethodNotAllowed, createApp, honoPath, route, validate } from '../src/index';

const logger = createLogger('test', 'silent');

const getThing = defineOperation({
  method: 'get',
  path: '/api/things/{id}',
  operationId: 'getThing',
  summary: 'A thing',
  tags: ['t'],
  security: 'none',
  pathParams: z.object({ id: z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number) }),
  query: z.object({ verbose: z.enum(['yes', 'no']).optional() }),
  responses: { 200: { description: 'ok' } },
});

const addThing = defineOperation({
  method: 'post',
  path: '/api/things',
  operationId: 'addThing',
  summary: 'Add',
  tags: ['t'],
  security: 'none',
  requestBody: {
    schema: z.object({ label: z.string(), amount: z.number().max(10), kind: z.enum(['A', 'B']).optional() }),
    example: { label: 'x', amount: 1 },
  },
  responses: { 201: { description: 'added' } },
});

const listThings = defineOperation({
  method: 'get',
  path: '/api/things/recent',
  operationId: 'listThings',
  summary: 'Recent',
  tags: ['t'],
  security: 'none',
  responses: { 200: { description: 'ok' } },
});

function app() {
  const { app } = createApp({ service: 'test', logger, errors: {} });
  const api = new Hono();
  route(api, listThings, (c) => c.json({ recent: true }), { mountedAt: '/api' });
  route(api, getThing, (c, { params, query }) => c.json({ id: params.id, verbose: query.verbose ?? null }), {
    mountedAt: '/api',
  });
  route(api, addThing, (c, { body }) => c.json(body, 201), { mountedAt: '/api' });
  answerMethodNotAllowed(api);
  app.route('/api', api);
  return app;
}

describe('route: a handler bound to its ApiOperation', () => {
  it('takes method and path from the operation and hands the handler parsed input', async () => {
    expect(honoPath(getThing, '/api')).toBe('/things/:id');
    const response = await app().request('/api/things/42?verbose=yes');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 42, verbose: 'yes' });
    const added = await app().request('/api/things', { method: 'POST', body: '{"label":"a","amount":2}' });
    expect(added.status).toBe(201);
  });

  it('answers 400 with the path parameter, query parameter or field in errors[].path', async () => {
    for (const [url, path] of [
      ['/api/things/abc', 'id'],
      ['/api/things/1?verbose=maybe', 'verbose'],
    ] as const) {
      const response = await app().request(url);
      expect(response.status, url).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await response.json()) as { errors: Array<{ path: string }> };
      expect(problem.errors.map((error) => error.path)).toEqual([path]);
    }
  });

  it('answers 405 with Allow for a method the path lacks, 404 for a path that does not exist', async () => {
    const wrong = await app().request('/api/things', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(((await wrong.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
    const onParam = await app().request('/api/things/7', { method: 'PUT' });
    expect(onParam.headers.get('allow')).toBe('GET, HEAD');
    // A literal path is not taken for an id: `POST /things/recent` is 405, not a 400 about `id`.
    const onLiteral = await app().request('/api/things/recent', { method: 'POST' });
    expect(onLiteral.status).toBe(405);
    expect(onLiteral.headers.get('allow')).toBe('GET, HEAD');
    expect((await app().request('/api/elsewhere')).status).toBe(404);
    expect((await app().request('/api/things/7', { method: 'HEAD' })).status).toBe(200);
  });
});

describe('405 on a literal path that a parameter path also matches', () => {
  const cancelAll = defineOperation({
    method: 'post',
    path: '/api/things/cancel-all',
    operationId: 'cancelAll',
    summary: 'Cancel all',
    tags: ['t'],
    security: 'none',
    responses: { 200: { description: 'ok' } },
  });

  // As the gateway binds them: `/things/{id}` (GET) before the literal `/things/cancel-all` (POST).
  function idFirst() {
    const { app } = createApp({ service: 'test', logger, errors: {} });
    const api = new Hono();
    route(api, getThing, (c) => c.json({ thing: true }), { mountedAt: '/api' });
    route(api, cancelAll, (c) => c.json({ cancelled: true }), { mountedAt: '/api' });
    route(api, listThings, (c) => c.json({ recent: true }), { mountedAt: '/api' });
    answerMethodNotAllowed(api);
    app.route('/api', api);
    return app;
  }

  it("answers with the literal path's methods, whichever was bound first", async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH', 'GET']) {
      const response = await idFirst().request('/api/things/cancel-all', { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow'), method).toBe('POST');
    }
    const onId = await idFirst().request('/api/things/7', { method: 'DELETE' });
    expect(onId.headers.get('allow')).toBe('GET, HEAD');
    expect((await idFirst().request('/api/things/cancel-all', { method: 'POST' })).status).toBe(200);
  });

  it('takes HEAD as GET on a literal path with GET', async () => {
    expect((await idFirst().request('/api/things/recent', { method: 'HEAD' })).status).toBe(200);
  });
});

describe('validation messages', () => {
  const schema = addThing.requestBody?.schema ?? z.never();
  const errorsOf = (input: unknown) => {
    try {
      validate(schema, input);
    } catch (error) {
      return error as { detail: string; errors: Array<{ path: string; message: string }> };
    }
    throw new Error('expected a refusal');
  };

  it('say what is wrong instead of "Invalid input"', () => {
    const problem = errorsOf({ label: 7, kind: 'C', amount: 11 });
    expect(problem.errors).toEqual([
      { path: 'label', message: 'must be a string' },
      { path: 'amount', message: 'must be at most 10' },
      { path: 'kind', message: 'must be one of "A", "B"' },
    ]);
    expect(problem.detail).toBe('label must be a string (and 2 more problems)');
  });

  it('say "amount is required" for a missing field', () => {
    const problem = errorsOf({ label: 'x' });
    expect(problem.errors).toEqual([{ path: 'amount', message: 'is required' }]);
    expect(problem.detail).toBe('amount is required');
    expect(errorsOf('text').detail).toBe('The request body must be an object');
  });

  it("leave a schema's own message alone", () => {
    const own = z.object({ code: z.string().regex(/^\d+$/, 'must be digits') });
    expect(() => validate(own, { code: 'x' })).toThrow(
      expect.objectContaining({ errors: [{ path: 'code', message: 'must be digits' }] }),
    );
  });
});
