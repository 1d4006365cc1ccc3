import type { ApiOperation } from './operation';

/** The operator API on the gateway (`/admin/*`). */
export const adminOperations: ApiOperation[] = [];
