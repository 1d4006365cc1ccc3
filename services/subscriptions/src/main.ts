import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { subscriptionsService } from './service';

void runStandalone(subscriptionsService);
