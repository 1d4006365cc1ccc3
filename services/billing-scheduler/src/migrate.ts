import { runMigrationsOnly } from '@payrail/runtime';
import { billingSchedulerService } from './service';

void runMigrationsOnly(billingSchedulerService);
