import { adminOperations } from './admin';
import { bankNotificationOperations } from './bank-notifications';
import type { ApiOperation } from './operation';
import { paymentLinkOperations } from './payment-links';
import { subscriptionOperations } from './subscriptions';

/** Every public endpoint, for the gateway's OpenAPI document. */
export const apiOperations: ApiOperation[] = [
  ...paymentLinkOperations,
  ...subscriptionOperations,
  ...bankNotificationOperations,
  ...adminOperations,
];
