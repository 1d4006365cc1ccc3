import { randomUUID } from 'node:crypto';
import { type ApiOperation, OPERATION_PERMISSIONS } from '@payrail/contracts';
import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import type { Context, MiddlewareHandler } from 'hono';
import { recordAudit } from '../../application/access/audit-log';
import { mayDo } from '../../domain/access/principal';
import type { AuditLogStore, AuditRecord } from '../../ports/audit-log-store';
import type { OperatorAuthVariables } from './admin-auth';
import { type AppFetch, callAs, type InProcessCaller } from './in-process-caller';
import type { MerchantAuthVariables } from './merchant-auth';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Answers larger than this are not copied into the log (`after` null); the entry is still written. */
const MAX_RECORDED_BYTES = 64 * 1024;

export interface AuditDeps {
  audit: AuditLogStore;
  clock: Clock;
  logger: Logger;
  resolve: (method: string, path: string) => ApiOperation | undefined;
  /** The gateway's own app, to read an object before its change as the caller would. */
  fetch: () => AppFetch;
}

/** The read of the same path, where the document has one: what an object was before a change. */
function readsOf(operations: readonly ApiOperation[]): Map<string, ApiOperation> {
  return new Map(
    operations
      .filter((operation) => operation.method === 'get')
      .map((operation) => [operation.path, operation]),
  );
}

async function jsonOf(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json') || type.includes('problem')) return null;
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > MAX_RECORDED_BYTES) return null;
  const text = await response.clone().text();
  if (!text || text.length > MAX_RECORDED_BYTES) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    // An object is kept (what the log documents); a list answer or a bare value is not the object changed.
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The object acted on: the path's last parameter, else the `id` of what was made. */
function targetOf(operation: ApiOperation, path: string, after: unknown): string | null {
  const names = operation.path.split('/');
  const values = path.split('/');
  for (let index = names.length - 1; index >= 0; index -= 1) {
    if (names[index]?.startsWith('{')) return decodeURIComponent(values[index] ?? '');
  }
  const id = after && typeof after === 'object' ? (after as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/**
 * Records every write (POST, PUT, PATCH, DELETE of a documented operation) that was done (2xx) or refused
 * for want of permission (403), after its answer: who, what, on what, the object before (read just before
 * as the caller, where the document has a read of the same path) and after (the answer), secrets removed.
 * Input refused as malformed changed nothing and is not recorded, nor is an idempotent replay (it ran
 * before, and was recorded then). The entry is written after the answer is known; one that cannot be
 * written is logged as an error, and the answer is not withheld (the change was made).
 */
function auditWrites<V extends object>(
  deps: AuditDeps,
  operations: readonly ApiOperation[],
  who: (c: Context<{ Variables: V }>) => {
    caller: InProcessCaller;
    actor: AuditRecord['actor'];
    mayWrite: (operation: ApiOperation) => boolean;
    merchantId: (operation: ApiOperation, after: unknown) => string | null;
  },
): MiddlewareHandler<{ Variables: V }> {
  const reads = readsOf(operations);
  return async (c, next) => {
    const operation = WRITES.has(c.req.method) ? deps.resolve(c.req.method, c.req.path) : undefined;
    if (!operation) return next();
    const context = who(c);
    const read = operation.method !== 'post' ? reads.get(operation.path) : undefined;
    let before: unknown = null;
    if (read && context.mayWrite(operation)) {
      const answer = await callAs(deps.fetch(), context.caller, { method: 'GET', path: c.req.path });
      if (answer.ok) before = await jsonOf(answer);
    }
    await next();
    const status = c.res.status;
    if (!((status >= 200 && status < 300) || status === 403)) return;
    if (c.res.headers.get('idempotent-replayed') === 'true') return;
    const after = status < 300 ? await jsonOf(c.res) : null;
    try {
      await recordAudit(deps, {
        id: randomUUID(),
        merchantId: context.merchantId(operation, after),
        at: deps.clock.now(),
        actor: context.actor,
        operationId: operation.operationId,
        method: c.req.method,
        path: c.req.path,
        target: targetOf(operation, c.req.path, after),
        status,
        before,
        after,
        clientAddress: context.caller.clientAddress,
      });
    } catch (error) {
      deps.logger.error(
        { err: error, operationId: operation.operationId },
        'a write could not be recorded in the audit log',
      );
    }
  };
}

/** The merchant API's writes, by a token or a console user. */
export function auditMerchantWrites(
  deps: AuditDeps,
  operations: readonly ApiOperation[],
): MiddlewareHandler<{ Variables: MerchantAuthVariables }> {
  return auditWrites<MerchantAuthVariables>(deps, operations, (c) => {
    const principal = c.var.principal;
    return {
      caller: { kind: 'merchant', merchant: c.var.merchant, principal, clientAddress: c.var.clientAddress },
      actor:
        principal.kind === 'token'
          ? { type: 'token', id: principal.tokenId, label: principal.name }
          : { type: 'user', id: principal.userId, label: principal.email },
      mayWrite: (operation) => {
        const permission = OPERATION_PERMISSIONS[operation.operationId];
        return permission !== undefined && mayDo(principal, permission);
      },
      merchantId: () => c.var.merchant.merchantId,
    };
  });
}

/** The operator API's writes; those about a merchant (`/admin/merchants/{id}...`, or one made) are in its log. */
export function auditOperatorWrites(
  deps: AuditDeps,
  operations: readonly ApiOperation[],
): MiddlewareHandler<{ Variables: OperatorAuthVariables }> {
  return auditWrites<OperatorAuthVariables>(deps, operations, (c) => {
    const operator = c.var.operator;
    return {
      caller: { kind: 'operator', principal: operator, clientAddress: c.var.clientAddress },
      actor:
        operator.kind === 'operator-token'
          ? { type: 'operator', id: null, label: null }
          : { type: 'operator', id: operator.userId, label: operator.email },
      mayWrite: () => true,
      merchantId: (operation, after) => {
        const about = /^\/admin\/merchants\/([0-9a-fA-F-]{36})(?:\/|$)/.exec(c.req.path)?.[1];
        if (about) return about.toLowerCase();
        const made =
          operation.path === '/admin/merchants' && after && typeof after === 'object'
            ? (after as { id?: unknown }).id
            : undefined;
        return typeof made === 'string' ? made : null;
      },
    };
  });
}
