import { customerApi, paymentLinkApi } from '@payrail/contracts';
import { describe, expect, it } from 'vitest';
import { linksRoutes } from '../src/adapters/http/routes';

// The service's router against its operations: each operation is bound (with `route()`), nothing else is.
describe('links router vs its ApiOperations', () => {
  it('binds exactly the documented operations', () => {
    const api = linksRoutes({ internalSecret: 'x', publicBaseUrl: 'http://pay.test' } as never);
    const bound = new Set(
      api.routes
        .filter((candidate) => candidate.method !== 'ALL')
        .map((candidate) => `${candidate.method} /api${candidate.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(
      [...Object.values(paymentLinkApi), ...Object.values(customerApi)].map(
        (op) => `${op.method.toUpperCase()} ${op.path}`,
      ),
    );
    expect([...bound].sort()).toEqual([...documented].sort());
  });
});
