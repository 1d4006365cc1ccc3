import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { billingSchedulerService } from './service';

void runStandalone(billingSchedulerService);
