import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { processorSandboxService } from './service';

// `SANDBOX_PORT` names the sandbox's port in every mode; alone it wins over the generic `PORT`.
if (process.env.SANDBOX_PORT) process.env.PORT = process.env.SANDBOX_PORT;
void runStandalone(processorSandboxService);
