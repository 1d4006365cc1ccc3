import { GATEWAY_ERRORS } from '@payrail/contracts';
import { problemFromTable, problems } from '@payrail/http';
import {
  ApiTokenNotFound,
  InvalidMerchantSettings,
  InvalidWebhookEndpoint,
  MerchantNotFound,
  WebhookDeliveryNotFound,
  WebhookEndpointNotFound,
} from '../../domain/errors';

/**
 * Use as `.catch(toProblem)`: domain errors become problem documents, their status from the service's
 * error table; anything else propagates.
 */
export function toProblem(error: unknown): never {
  if (error instanceof InvalidMerchantSettings) {
    throw problems.badRequest(error.message, [{ path: error.field, message: error.message }]);
  }
  if (error instanceof InvalidWebhookEndpoint) {
    throw problems.badRequest(`${error.field} ${error.message}`, [
      { path: error.field, message: error.message },
    ]);
  }
  if (error instanceof WebhookEndpointNotFound) {
    throw problemFromTable(GATEWAY_ERRORS, error.code, 'Webhook endpoint not found');
  }
  if (error instanceof WebhookDeliveryNotFound) {
    throw problemFromTable(GATEWAY_ERRORS, error.code, 'Webhook delivery not found');
  }
  if (error instanceof MerchantNotFound) {
    throw problemFromTable(GATEWAY_ERRORS, error.code, 'Merchant not found');
  }
  if (error instanceof ApiTokenNotFound) {
    throw problemFromTable(GATEWAY_ERRORS, error.code, 'API token not found');
  }
  throw error;
}
