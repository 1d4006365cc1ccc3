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
  // Documented paths are letters, digits, `-`, `/` and `{parameters}`: nothing to escape. Grouped by
  // method, so a request tries only its method's few.
  const byMethod = new Map<string, Array<{ operation: ApiOperation; matcher: RegExp; parameters: number }>>();
  for (const operation of operations) {
    const method = operation.method.toUpperCase();
    const candidates = byMethod.get(method) ?? [];
    candidates.push({
      operation,
      matcher: new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      parameters: (operation.path.match(/\{/g) ?? []).length,
    });
    byMethod.set(method, candidates);
  }
  return (method, path) => {
    let best: { operation: ApiOperation; parameters: number } | undefined;
    for (const candidate of byMethod.get(method === 'HEAD' ? 'GET' : method) ?? []) {
      if (!candidate.matcher.test(path)) continue;
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
