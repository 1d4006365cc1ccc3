import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { gatewayService } from './service';

void runStandalone(gatewayService);
