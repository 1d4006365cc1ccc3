import { type BillingErrorCode, BILLING_ERRORS, DomainError, defineOperation } from '@payrail/contracts';
import { createLogger } from '@payrail/observability';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp, domainProblem, route } from '../src/index';

class RunNotFound extends DomainError<BillingErrorCode> {
  constructor() {
    super('BILLING_RUN_NOT_FOUND', 'Billing run not found');
  }
}

class DateInPast extends DomainError<'PAYMENT_DATE_IN_PAST'> {
  constructor(invoiceNumber = 'F-1') {
    super(
      'PAYMENT_DATE_IN_PAST',
      `paymentDate 2026-01-02 is before today; give customIdentifier2 (invoice ${invoiceNumber})`,
      [{ path: 'operations.3.paymentDate', message: 'is before today' }],
    );
  }
}

const table = {
  ...BILLING_ERRORS,
  PAYMENT_DATE_IN_PAST: { status: 422, description: 'Before today.', detail: 'The date is before today' },
} as const;

const operation = (fieldNames?: 'snake_case') =>
  defineOperation({
    method: 'post',
    path: '/api/runs/{id}',
    operationId: 'x',
    summary: 'x',
    tags: ['t'],
    security: 'none',
    pathParams: z.object({ id: z.string() }),
    // The fields a message may name, as the operation spells them.
    query: z.object({
      custom_identifier2: z.string().optional(),
      operations: z.array(z.object({ payment_date: z.string() })).optional(),
    }),
    ...(fieldNames ? { fieldNames } : {}),
    responses: { 204: { description: 'done' } },
  });

describe('domainProblem: a domain error through its service table', () => {
  it('takes the status from the table, the detail from the message, the field errors as they are', () => {
    const problem = domainProblem(new DateInPast(), table);
    expect(problem).toMatchObject({
      status: 422,
      code: 'PAYMENT_DATE_IN_PAST',
      detail: 'paymentDate 2026-01-02 is before today; give customIdentifier2 (invoice F-1)',
      errors: [{ path: 'operations.3.paymentDate', message: 'is before today' }],
    });
    expect(new DateInPast().name).toBe('DateInPast');
  });

  it('spells field names in snake_case for an operation whose fields are', () => {
    const problem = domainProblem(new DateInPast(), table, operation('snake_case'));
    expect(problem?.detail).toBe(
      'payment_date 2026-01-02 is before today; give custom_identifier2 (invoice F-1)',
    );
    expect(problem?.errors).toEqual([{ path: 'operations.3.payment_date', message: 'is before today' }]);
  });

  it("leaves a camelCase word of a message that names none of the operation's fields as written", () => {
    const problem = domainProblem(new DateInPast('invA1'), table, operation('snake_case'));
    expect(problem?.detail).toBe(
      'payment_date 2026-01-02 is before today; give custom_identifier2 (invoice invA1)',
    );
  });

  it('knows no status for a code outside the table', () => {
    expect(domainProblem(new DateInPast(), BILLING_ERRORS)).toBeUndefined();
  });
});

describe('createApp({ errors }): every domain error a route throws answered through the table', () => {
  function app(errors: Parameters<typeof createApp>[0]['errors'], fieldNames?: 'snake_case') {
    const logged: string[] = [];
    const logger = createLogger('test', 'silent');
    logger.error = ((_: unknown, message: string) => logged.push(message)) as unknown as typeof logger.error;
    logger.child = (() => logger) as unknown as typeof logger.child;
    const service = createApp({ service: 'test', logger, errors });
    const api = new Hono();
    route(
      api,
      operation(fieldNames),
      (_c, { params }) => {
        throw params.id === 'past' ? new DateInPast() : new RunNotFound();
      },
      { mountedAt: '/api' },
    );
    service.app.route('/api', api);
    return { app: service.app, logged };
  }

  it('answers problem+json with the status of the code, without a mapper in the route', async () => {
    const response = await app(table).app.request('/api/runs/1', { method: 'POST' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({
      status: 404,
      code: 'BILLING_RUN_NOT_FOUND',
      detail: 'Billing run not found',
      errors: [],
      instance: '/api/runs/1',
    });
  });

  it("spells the field names as the route's operation does", async () => {
    const response = await app(table, 'snake_case').app.request('/api/runs/past', { method: 'POST' });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: unknown }).errors).toEqual([
      { path: 'operations.3.payment_date', message: 'is before today' },
    ]);
  });

  it('answers 500 and logs a bug for a code missing from the table (or an empty table)', async () => {
    for (const errors of [BILLING_ERRORS, {}]) {
      const { app: served, logged } = app(errors);
      const response = await served.request('/api/runs/past', { method: 'POST' });
      expect(response.status).toBe(500);
      expect(((await response.json()) as { code: string }).code).toBe('INTERNAL_ERROR');
      expect(logged).toEqual(["a bug: a domain error whose code is not in the service's error table"]);
    }
  });
});
