import { BULK_LIMITS } from '@payrail/contracts';
import { HttpProblem } from '@payrail/http';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Spec section 8: more than 200 subscriptions, or more than 60 updates in one, is 413. Checked on the
 * parsed JSON before the items are validated, so an oversized request is 413 whatever its items hold.
 */
export function assertWithinBulkLimits(body: unknown): void {
  if (!isRecord(body) || !Array.isArray(body.operations)) return;
  const count = body.operations.length;
  if (count > BULK_LIMITS.subscriptions) {
    const message = `At most ${BULK_LIMITS.subscriptions} subscriptions per request; got ${count}`;
    throw new HttpProblem(413, 'PAYLOAD_TOO_LARGE', message, [{ path: 'operations', message }]);
  }
  body.operations.forEach((operation, index) => {
    if (!isRecord(operation) || !Array.isArray(operation.updates)) return;
    if (operation.updates.length > BULK_LIMITS.updatesPerSubscription) {
      const message = `At most ${BULK_LIMITS.updatesPerSubscription} updates per subscription; got ${operation.updates.length}`;
      throw new HttpProblem(413, 'PAYLOAD_TOO_LARGE', message, [
        { path: `operations.${index}.updates`, message },
      ]);
    }
  });
}
