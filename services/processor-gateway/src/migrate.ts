import { runMigrationsOnly } from '@payrail/runtime';
import { processorGatewayService } from './service';

void runMigrationsOnly(processorGatewayService);
