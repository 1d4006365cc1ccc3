import { GATEWAY_ERRORS } from '@payrail/contracts';
import { domainProblem } from '@payrail/http';
import { describe, expect, it } from 'vitest';
import {
  ApiTokenNotFound,
  type GatewayError,
  InvalidMerchantSettings,
  InvalidWebhookEndpoint,
  MerchantNotFound,
  WebhookDeliveryNotFound,
  WebhookEndpointNotFound,
} from '../src/domain/errors';

const id = '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10';
const noProcessor = 'a merchant needs at least one processor';

/** Each error, and the problem the routes answered for it before the one error model (`problems.ts`). */
const answers: Array<[GatewayError, number, string, string, Array<{ path: string; message: string }>]> = [
  [new MerchantNotFound(id), 404, 'MERCHANT_NOT_FOUND', 'Merchant not found', []],
  [new ApiTokenNotFound(id), 404, 'API_TOKEN_NOT_FOUND', 'API token not found', []],
  [new WebhookEndpointNotFound(id), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND', 'Webhook endpoint not found', []],
  [new WebhookDeliveryNotFound(id), 404, 'WEBHOOK_DELIVERY_NOT_FOUND', 'Webhook delivery not found', []],
  [
    new InvalidMerchantSettings('processors', noProcessor),
    400,
    'VALIDATION_ERROR',
    noProcessor,
    [{ path: 'processors', message: noProcessor }],
  ],
  [
    new InvalidWebhookEndpoint('url', 'is on a private network'),
    400,
    'VALIDATION_ERROR',
    'url is on a private network',
    [{ path: 'url', message: 'is on a private network' }],
  ],
];

describe("the gateway's domain errors, as the app answers them through GATEWAY_ERRORS", () => {
  it.each(answers)(
    '%s: the same status, code, detail and errors as before',
    (error, status, code, detail, errors) => {
      const problem = domainProblem(error, GATEWAY_ERRORS);
      expect(
        problem && {
          status: problem.status,
          code: problem.code,
          detail: problem.detail,
          errors: problem.errors,
        },
      ).toEqual({
        status,
        code,
        detail,
        errors,
      });
    },
  );
});
