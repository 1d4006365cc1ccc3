import { subscriptionOperations } from '@payrail/contracts';
import { describe, expect, it } from 'vitest';
import { subscriptionsRoutes } from '../src/adapters/http/routes';

// The service's router against its operations: each operation is bound (with `route()`), nothing else is.
describe('subscriptions router vs its ApiOperations', () => {
  it('binds exactly the documented operations', () => {
    const api = subscriptionsRoutes({ internalSecret: 'x' } as never);
    const bound = new Set(
      api.routes
        .filter((candidate) => candidate.method !== 'ALL')
        .map((candidate) => `${candidate.method} /api${candidate.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(subscriptionOperations.map((op) => `${op.method.toUpperCase()} ${op.path}`));
    expect([...bound].sort()).toEqual([...documented].sort());
  });
});
