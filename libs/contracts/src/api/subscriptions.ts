import type { ApiOperation } from './operation';

/** The v1 and v2 installment endpoints (spec 4.3, 4.4). */
export const subscriptionOperations: ApiOperation[] = [];
