import { DomainError, type GatewayErrorCode } from '@payrail/contracts';

/**
 * The gateway's domain errors: each code is one of `GATEWAY_ERRORS` (`libs/contracts`), the table
 * `service.ts` gives the app, which answers each error with its status; the message is the `detail`.
 */
export abstract class GatewayError extends DomainError<GatewayErrorCode> {}

/** The operator asked for settings that cannot go together (400 on the field). */
export class InvalidMerchantSettings extends GatewayError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super('VALIDATION_ERROR', reason, [{ path: field, message: reason }]);
  }
}

export class MerchantNotFound extends GatewayError {
  constructor(readonly merchantId: string) {
    super('MERCHANT_NOT_FOUND', 'Merchant not found');
  }
}

export class ApiTokenNotFound extends GatewayError {
  constructor(readonly tokenId: string) {
    super('API_TOKEN_NOT_FOUND', 'API token not found');
  }
}

export class WebhookEndpointNotFound extends GatewayError {
  constructor(readonly endpointId: string) {
    super('WEBHOOK_ENDPOINT_NOT_FOUND', 'Webhook endpoint not found');
  }
}

export class WebhookDeliveryNotFound extends GatewayError {
  constructor(readonly deliveryId: string) {
    super('WEBHOOK_DELIVERY_NOT_FOUND', 'Webhook delivery not found');
  }
}

/** A webhook endpoint setting that cannot be accepted (a URL on a private network): 400 on the field. */
export class InvalidWebhookEndpoint extends GatewayError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super('VALIDATION_ERROR', `${field} ${reason}`, [{ path: field, message: reason }]);
  }
}

/**
 * The credentials are valid but lack the operation's permission (a read-only token's write, a viewer's):
 * 403 on every merchant operation the table of libs/contracts does not grant them.
 */
export class PermissionDenied extends GatewayError {
  constructor(
    readonly who: string,
    readonly operationId: string,
    readonly permission: { area: string; access: string },
  ) {
    super(
      'FORBIDDEN',
      `${who} may not call ${operationId} (it needs ${permission.area}: ${permission.access})`,
    );
  }
}

export class ConsoleUserNotFound extends GatewayError {
  constructor(readonly userId: string) {
    super('USER_NOT_FOUND', 'User not found');
  }
}

/** One console account per e-mail address, whoever's it is. */
export class ConsoleEmailTaken extends GatewayError {
  constructor(readonly email: string) {
    super('USER_EMAIL_TAKEN', `${email} already has a console account`, [
      { path: 'email', message: 'already has a console account' },
    ]);
  }
}

/** A change that would leave a merchant without an owner. */
export class LastOwner extends GatewayError {
  constructor(readonly merchantId: string) {
    super('LAST_OWNER', 'The merchant must keep at least one owner');
  }
}

/** An invitation that could not be mailed: the invited person was not stored (503; send it again). */
export class InvitationNotSent extends GatewayError {
  constructor(
    readonly email: string,
    override readonly cause?: unknown,
  ) {
    super('MAIL_UNAVAILABLE', 'The invitation could not be mailed; nothing was stored');
  }
}
