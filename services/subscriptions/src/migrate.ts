import { runMigrationsOnly } from '@payrail/runtime';
import { subscriptionsService } from './service';

void runMigrationsOnly(subscriptionsService);
