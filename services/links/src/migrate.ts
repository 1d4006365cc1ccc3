import { runMigrationsOnly } from '@payrail/runtime';
import { linksService } from './service';

void runMigrationsOnly(linksService);
