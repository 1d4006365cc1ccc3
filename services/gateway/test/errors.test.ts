import { GATEWAY_ERRORS } from '@payrail/contracts';
import { domainProblem } from '@payrail/http';
import { describe, expect, it } from 'vitest';
import {
  ApiTokenNotFound,
  InvalidMerchantSettings,
  InvalidWebhookEndpoint,
  MerchantNotFound,
  WebhookDeliveryNotFound,
  WebhookEndpointNotFound,
} from '../src/domain/errors';

const id = '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10';

/** The problem the app answers for a domain error, through the gateway's table. */
const answered = (error: Parameters<typeof domainProblem>[0]) => {
  const problem = domainProblem(error, GATEWAY_ERRORS);
  return (
    problem && { status: problem.status, code: problem.code, detail: problem.detail, errors: problem.errors }
  );
};

describe("the gateway's domain errors, as the app answers them", () => {
  it('are the problems the routes answered before the one error model, byte for byte', () => {
    expect(answered(new MerchantNotFound(id))).toEqual({
      status: 404,
      code: 'MERCHANT_NOT_FOUND',
      detail: 'Merchant not found',
      errors: [],
    });
    expect(answered(new ApiTokenNotFound(id))).toEqual({
      status: 404,
      code: 'API_TOKEN_NOT_FOUND',
      detail: 'API token not found',
      errors: [],
    });
    expect(answered(new WebhookEndpointNotFound(id))).toEqual({
      status: 404,
      code: 'WEBHOOK_ENDPOINT_NOT_FOUND',
      detail: 'Webhook endpoint not found',
      errors: [],
    });
    expect(answered(new WebhookDeliveryNotFound(id))).toEqual({
      status: 404,
      code: 'WEBHOOK_DELIVERY_NOT_FOUND',
      detail: 'Webhook delivery not found',
      errors: [],
    });
    expect(
      answered(new InvalidMerchantSettings('processors', 'a merchant needs at least one processor')),
    ).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      detail: 'a merchant needs at least one processor',
      errors: [{ path: 'processors', message: 'a merchant needs at least one processor' }],
    });
    expect(answered(new InvalidWebhookEndpoint('url', 'is on a private network'))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      detail: 'url is on a private network',
      errors: [{ path: 'url', message: 'is on a private network' }],
    });
  });
});
