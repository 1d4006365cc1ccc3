import '@payrail/observability/register';
import { runStandalone } from '@payrail/runtime';
import { linksService } from './service';

void runStandalone(linksService);
