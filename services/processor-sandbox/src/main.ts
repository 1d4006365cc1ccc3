import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { listenOnSandboxPort } from './config';
import { processorSandboxService } from './service';

listenOnSandboxPort(process.env);
void runStandalone(processorSandboxService);
