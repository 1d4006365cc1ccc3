import {
  apiOperations,
  JsonDecimal,
  SUBSCRIPTION_ERRORS,
  subscriptionApi,
  subscriptionOperations,
} from '@payrail/contracts';
import { domainProblem, route } from '@payrail/http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { assertWithinBulkLimits } from '../src/adapters/http/bulk-limits';
import { jsonWithAmounts } from '../src/adapters/http/json-amount';
import { AmountNotInCurrency, InvoiceNumberRequired, MultipleSubscriptionsMatch } from '../src/domain/errors';
import { singleMatch } from '../src/domain/identifiers';

describe('OpenAPI descriptions of the subscription endpoints', () => {
  it('describe every v1 and v2 endpoint once, listed in the gateway document', () => {
    expect(subscriptionOperations.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort()).toEqual(
      [
        'GET /api/subscriptions',
        'GET /api/subscriptions/summary',
        'GET /api/subscriptions/{id}',
        'POST /api/subscriptions/cancel-by-amount',
        'POST /api/subscriptions/cancel-by-invoice',
        'POST /api/subscriptions/cancel-all',
        'PUT /api/subscriptions/modify-by-amount',
        'PUT /api/subscriptions/modify-all',
        'PUT /api/subscriptions/modify-dates',
        'GET /api/subscriptions/installments',
        'PATCH /api/subscriptions/installments/{id}',
        'POST /api/subscriptions/installments/{id}/cancel',
        'GET /api/subscriptions/installments/{id}/attempts',
        'POST /api/subscriptions/installments',
        'PATCH /api/subscriptions/installments/bulk',
      ].sort(),
    );
    for (const operation of subscriptionOperations) expect(apiOperations).toContain(operation);
    expect(new Set(subscriptionOperations.map((op) => op.operationId)).size).toBe(
      subscriptionOperations.length,
    );
  });

  it('carry examples that their own schemas accept', () => {
    for (const operation of subscriptionOperations) {
      const requests = operation.requestBody?.examples
        ? Object.values(operation.requestBody.examples).map((example) => example.value)
        : operation.requestBody
          ? [operation.requestBody.example]
          : [];
      for (const request of requests) {
        const parsed = operation.requestBody?.schema.safeParse(request);
        expect(parsed?.success, `${operation.operationId}: ${JSON.stringify(parsed?.error?.issues)}`).toBe(
          true,
        );
      }
      const parameters = operation.parameterExamples?.default;
      if (operation.pathParams || operation.query) expect(parameters, operation.operationId).toBeDefined();
      if (operation.pathParams) {
        expect(operation.pathParams.safeParse(parameters).success, operation.operationId).toBe(true);
      }
      if (operation.query) {
        const asText = Object.fromEntries(Object.entries(parameters ?? {}).map(([k, v]) => [k, String(v)]));
        expect(operation.query.safeParse(asText).success, operation.operationId).toBe(true);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        const examples = [
          ...(response.example === undefined ? [] : [response.example]),
          ...Object.values(response.examples ?? {}).map((example) => example.value),
        ];
        expect(examples.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
        for (const example of examples) {
          const parsed = response.schema?.safeParse(example);
          expect(
            parsed?.success,
            `${operation.operationId} ${status}: ${JSON.stringify(parsed?.error?.issues)}`,
          ).toBe(true);
        }
      }
      expect(operation.security).toBe('apiToken');
    }
  });
});

describe('HTTP adapter pieces', () => {
  it("answers amounts as numbers with their two decimals, typed as that JSON: route() checks it against the operation's schema", async () => {
    const api = new Hono();
    const installment = {
      installment_id: 7,
      payment_date: '2027-01-10',
      status: 'pending' as const,
      number: 2,
    };
    route(api, subscriptionApi.cancelInstallment, (c) =>
      // @ts-expect-error `ammount` is not the schema's `amount`: the answer does not compile.
      jsonWithAmounts(c, { ...installment, ammount: new JsonDecimal('150000.00') }),
    );
    route(api, subscriptionApi.modifyInstallment, (c) =>
      jsonWithAmounts(c, { ...installment, amount: new JsonDecimal('150000.00') }),
    );
    const answer = await api.request('/api/subscriptions/installments/7', {
      method: 'PATCH',
      body: '{"amount":1}',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(await answer.text()).toBe(
      '{"installment_id":7,"payment_date":"2027-01-10","status":"pending","number":2,"amount":150000.00}',
    );
  });

  it('answers domain errors through SUBSCRIPTION_ERRORS, paths spelt as the operation spells its fields', () => {
    const error = new InvoiceNumberRequired(1);
    const message = 'DYNAMIC subscriptions need an invoice number per installment';
    expect(domainProblem(error, SUBSCRIPTION_ERRORS, subscriptionApi.addInstallments)).toMatchObject({
      status: 422,
      code: 'INVOICE_NUMBER_REQUIRED',
      detail: message,
      errors: [{ path: 'installments.1.invoice_number', message }],
    });
    expect(
      domainProblem(error, SUBSCRIPTION_ERRORS, subscriptionApi.cancelInstallmentByInvoice),
    ).toMatchObject({
      errors: [{ path: 'installments.1.invoiceNumber', message }],
    });
    expect(domainProblem(new MultipleSubscriptionsMatch(2), SUBSCRIPTION_ERRORS)).toMatchObject({
      status: 409,
      code: 'MULTIPLE_SUBSCRIPTIONS_MATCH',
      errors: [],
    });
  });

  it('names fields in messages as the endpoint spells them: v2 says custom_identifier2, v1 customIdentifier2', () => {
    let ambiguous: unknown;
    try {
      singleMatch([{ id: 1 }, { id: 2 }] as never);
    } catch (error) {
      ambiguous = error;
    }
    expect(ambiguous).toBeInstanceOf(MultipleSubscriptionsMatch);
    const error = ambiguous as MultipleSubscriptionsMatch;
    expect(
      domainProblem(error, SUBSCRIPTION_ERRORS, subscriptionApi.listPendingInstallments)?.detail,
    ).toMatch(/give custom_identifier2 or pay_request_id to choose one$/);
    expect(domainProblem(error, SUBSCRIPTION_ERRORS, subscriptionApi.modifyAllInstallments)?.detail).toMatch(
      /give customIdentifier2 or payRequestId to choose one$/,
    );
  });

  it('answers an amount its currency cannot have as any input error: 400, every field, the first in the detail', () => {
    const error = new AmountNotInCurrency([
      { path: ['installments', 0, 'amount'], message: 'must be a whole number: PYG has no decimals' },
      { path: ['installments', 2, 'amount'], message: 'must be a whole number: PYG has no decimals' },
    ]);
    expect(domainProblem(error, SUBSCRIPTION_ERRORS, subscriptionApi.addInstallments)).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      detail: 'installments.0.amount must be a whole number: PYG has no decimals (and 1 more problem)',
      errors: [
        { path: 'installments.0.amount', message: 'must be a whole number: PYG has no decimals' },
        { path: 'installments.2.amount', message: 'must be a whole number: PYG has no decimals' },
      ],
    });
  });

  it('checks the bulk limits on the raw body, leaving shape errors to validation', () => {
    const updates = (n: number) => Array.from({ length: n }, () => ({}));
    expect(() =>
      assertWithinBulkLimits({ operations: Array.from({ length: 200 }, () => ({ updates: updates(60) })) }),
    ).not.toThrow();
    expect(() => assertWithinBulkLimits({ operations: Array.from({ length: 201 }, () => 'junk') })).toThrow(
      expect.objectContaining({ status: 413 }),
    );
    expect(() =>
      assertWithinBulkLimits({ operations: [{ updates: updates(1) }, { updates: updates(61) }] }),
    ).toThrow(
      expect.objectContaining({
        status: 413,
        errors: [expect.objectContaining({ path: 'operations.1.updates' })],
      }),
    );
    expect(() => assertWithinBulkLimits({ operations: 'x' })).not.toThrow();
    expect(() => assertWithinBulkLimits([])).not.toThrow();
  });
});
