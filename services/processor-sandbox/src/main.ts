import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { processorSandboxService } from './service';

void runStandalone(processorSandboxService);
