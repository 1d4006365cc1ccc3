import { runMigrationsOnly } from '@payrail/runtime';
import { gatewayService } from './service';

void runMigrationsOnly(gatewayService);
