import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { processorGatewayService } from './service';

void runStandalone(processorGatewayService);
