import type { GatewayErrorCode } from '@payrail/contracts';

/** The operator asked for settings that cannot go together (HTTP 400 on the field). */
export class InvalidMerchantSettings extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidMerchantSettings';
  }
}

export class MerchantNotFound extends Error {
  readonly code = 'MERCHANT_NOT_FOUND' satisfies GatewayErrorCode;
  constructor(readonly merchantId: string) {
    super(`Merchant ${merchantId} not found`);
    this.name = 'MerchantNotFound';
  }
}

export class ApiTokenNotFound extends Error {
  readonly code = 'API_TOKEN_NOT_FOUND' satisfies GatewayErrorCode;
  constructor(readonly tokenId: string) {
    super(`API token ${tokenId} not found`);
    this.name = 'ApiTokenNotFound';
  }
}

export class WebhookEndpointNotFound extends Error {
  readonly code = 'WEBHOOK_ENDPOINT_NOT_FOUND' satisfies GatewayErrorCode;
  constructor(readonly endpointId: string) {
    super(`Webhook endpoint ${endpointId} not found`);
    this.name = 'WebhookEndpointNotFound';
  }
}

export class WebhookDeliveryNotFound extends Error {
  readonly code = 'WEBHOOK_DELIVERY_NOT_FOUND' satisfies GatewayErrorCode;
  constructor(readonly deliveryId: string) {
    super(`Webhook delivery ${deliveryId} not found`);
    this.name = 'WebhookDeliveryNotFound';
  }
}

/** A webhook endpoint setting that cannot be accepted (a URL on a private network): HTTP 400 on the field. */
export class InvalidWebhookEndpoint extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidWebhookEndpoint';
  }
}
