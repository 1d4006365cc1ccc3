// The composition root: the only place that knows every service. Services never import each other.
import { billingSchedulerService } from '@payrail/billing-scheduler';
import { gatewayService } from '@payrail/gateway';
import { linksService } from '@payrail/links';
import { processorGatewayService } from '@payrail/processor-gateway';
import { processorSandboxService } from '@payrail/processor-sandbox';
import type { ServiceDefinition } from '@payrail/runtime';
import { subscriptionsService } from '@payrail/subscriptions';

/** In start order: consumers and internal services first, the public gateway last. */
export const allServices: ServiceDefinition[] = [
  processorSandboxService,
  processorGatewayService,
  billingSchedulerService,
  subscriptionsService,
  linksService,
  gatewayService,
];
