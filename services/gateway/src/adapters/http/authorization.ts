import { type ApiOperation, OPERATION_PERMISSIONS } from '@payrail/contracts';
import type { MiddlewareHandler } from 'hono';
import { describePrincipal, mayDo } from '../../domain/access/principal';
import { PermissionDenied } from '../../domain/errors';
import type { MerchantAuthVariables } from './merchant-auth';

/**
 * Which documented operation a request is, from its method and path: the one place that knows, used to
 * authorize it and to name it in the audit log. A literal path wins over a template that also matches it
 * (`POST /subscriptions/cancel-all` is not `/subscriptions/{id}`), as the router decides.
 */
export function operationResolver(
  operations: readonly ApiOperation[],
): (method: string, path: string) => ApiOperation | undefined {
  // Documented paths are letters, digits, `-`, `/` and `{parameters}`: nothing to escape.
  const compiled = operations.map((operation) => ({
    operation,
    method: operation.method.toUpperCase(),
    matcher: new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    parameters: (operation.path.match(/\{/g) ?? []).length,
  }));
  return (method, path) => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    let best: (typeof compiled)[number] | undefined;
    for (const candidate of compiled) {
      if (candidate.method !== wanted || !candidate.matcher.test(path)) continue;
      if (!best || candidate.parameters < best.parameters) best = candidate;
    }
    return best?.operation;
  };
}

/** The merchant operations that have no row in the permission table: the gateway refuses to start with any. */
export function operationsWithoutPermission(operations: readonly ApiOperation[]): string[] {
  return operations
    .filter((operation) => operation.security === 'apiToken')
    .map((operation) => operation.operationId)
    .filter((operationId) => !(operationId in OPERATION_PERMISSIONS));
}

/**
 * After authentication, before anything runs: the caller (token or console user) must have the
 * permission the operation needs (`OPERATION_PERMISSIONS`), or it is 403 `FORBIDDEN`. A path that is
 * no operation passes on, to its 404 or 405.
 */
export function authorize(
  resolve: (method: string, path: string) => ApiOperation | undefined,
): MiddlewareHandler<{ Variables: MerchantAuthVariables }> {
  return async (c, next) => {
    const operation = resolve(c.req.method, c.req.path);
    const permission = operation && OPERATION_PERMISSIONS[operation.operationId];
    if (operation && permission && !mayDo(c.var.principal, permission))
      throw new PermissionDenied(describePrincipal(c.var.principal), operation.operationId, permission);
    await next();
  };
}
