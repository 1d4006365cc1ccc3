import { accessOperations, adminAccessOperations } from './access';
import { adminOperations, merchantProfileOperations } from './admin';
import { bankNotificationOperations } from './bank-notifications';
import { billingAdminOperations } from './billing';
import { customerEmailOperations } from './customer-emails';
import { customerOperations } from './customers';
import type { ApiOperation } from './operation';
import { paymentLinkOperations } from './payment-links';
import { paymentOperations } from './payments';
import { refundOperations } from './refunds';
import { reportOperations } from './reports';
import { subscriptionOperations } from './subscriptions';
import { adminWebhookOperations, webhookOperations } from './webhooks';

/** Every public endpoint, for the gateway's OpenAPI document. */
export const apiOperations: ApiOperation[] = [
  ...merchantProfileOperations,
  ...paymentLinkOperations,
  ...customerOperations,
  ...customerEmailOperations,
  ...subscriptionOperations,
  ...bankNotificationOperations,
  ...paymentOperations,
  ...reportOperations,
  ...refundOperations,
  ...webhookOperations,
  ...accessOperations,
  ...adminOperations,
  ...adminAccessOperations,
  ...billingAdminOperations,
  ...adminWebhookOperations,
];
