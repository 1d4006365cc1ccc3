import { defineOperation } from '@payrail/contracts';
import { createLogger } from '@payrail/observability';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp, jsonAnswer, route } from '../src/index';

const logger = createLogger('test', 'silent');

const transfer = z.object({
  ammount: z.number(),
  currency: z.enum(['PYG', 'USD']),
  note: z.string().nullable(),
});

/** The spec's own spelling, `ammount`: the handler must answer it as the schema spells it. */
const getTransfer = defineOperation({
  method: 'get',
  path: '/api/transfers/{id}',
  operationId: 'getTransfer',
  summary: 'A transfer',
  tags: ['t'],
  security: 'none',
  pathParams: z.object({ id: z.string() }),
  responses: { 200: { description: 'ok', schema: transfer } },
});

const cancelTransfer = defineOperation({
  method: 'delete',
  path: '/api/transfers/{id}',
  operationId: 'cancelTransfer',
  summary: 'Cancel',
  tags: ['t'],
  security: 'none',
  pathParams: z.object({ id: z.string() }),
  responses: { 202: { description: 'accepted', schema: transfer }, 204: { description: 'nothing to do' } },
});

/**
 * Type-level cases: each `@ts-expect-error` fails the type check (`npm test`'s first step) if the line
 * under it compiles, i.e. if `route()` stopped checking answers against the operation's responses.
 */
function typeCases(api: Hono) {
  route(api, getTransfer, (c) => c.json({ ammount: 1, currency: 'PYG', note: null }));
  route(api, getTransfer, (c) => c.json({ ammount: 1, currency: 'PYG', note: 'x' }, 200));
  // @ts-expect-error `amount` where the schema (and the spec) spell `ammount`
  route(api, getTransfer, (c) => c.json({ amount: 1, currency: 'PYG', note: null }));
  // @ts-expect-error a currency the schema does not have
  route(api, getTransfer, (c) => c.json({ ammount: 1, currency: 'EUR', note: null }));
  // @ts-expect-error a field of the wrong type
  route(api, getTransfer, (c) => c.json({ ammount: '1', currency: 'PYG', note: null }));
  // @ts-expect-error a status the operation does not document
  route(api, getTransfer, (c) => c.json({ ammount: 1, currency: 'PYG', note: null }, 201));
  // @ts-expect-error a body where the documented status has a schema of its own
  route(api, getTransfer, (c) => c.body(null, 200));
  route(api, cancelTransfer, async (c, { params }) =>
    params.id === 'done'
      ? c.body(null, 204)
      : c.json({ ammount: 1, currency: 'USD' as const, note: null }, 202),
  );
  route(api, getTransfer, (c) => jsonAnswer(c, { ammount: 1, currency: 'PYG' as const, note: null }));
  // @ts-expect-error a writer of its own is checked all the same
  route(api, getTransfer, (c) => jsonAnswer(c, { amount: 1, currency: 'PYG' as const, note: null }));
}

describe('route: the answer typed against the operation', () => {
  it('serves what the checked handlers answer (the checks are in the type cases above)', async () => {
    const { app } = createApp({ service: 'test', logger, errors: {} });
    const api = new Hono();
    const mounted = { mountedAt: '/api' };
    route(
      api,
      cancelTransfer,
      (c, { params }) =>
        params.id === 'done'
          ? c.body(null, 204)
          : c.json({ ammount: 150000, currency: 'PYG' as const, note: null }, 202),
      mounted,
    );
    route(
      api,
      getTransfer,
      (c) => jsonAnswer(c, { ammount: 1.5, currency: 'USD' as const, note: 'x' }),
      mounted,
    );
    app.route('/api', api);
    expect(typeof typeCases).toBe('function');

    const accepted = await app.request('/api/transfers/1', { method: 'DELETE' });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ ammount: 150000, currency: 'PYG', note: null });
    expect((await app.request('/api/transfers/done', { method: 'DELETE' })).status).toBe(204);
    const written = await app.request('/api/transfers/1');
    expect(written.headers.get('content-type')).toBe('application/json');
    expect(transfer.parse(await written.json())).toEqual({ ammount: 1.5, currency: 'USD', note: 'x' });
  });
});
