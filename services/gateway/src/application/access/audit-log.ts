import { AUDIT_LOG_RETENTION_DAYS } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import type { AuditLogFilter, AuditLogStore, AuditRecord } from '../../ports/audit-log-store';

/** Keys whose values never enter the audit log (a token's value, a webhook's secret or credential). */
const SECRET_KEYS = new Set(['apiToken', 'secret', 'password', 'value', 'token']);

/** The object without its secrets, at any depth (`after` of a new token is its view without `apiToken`). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => !SECRET_KEYS.has(key))
      .map(([key, inner]) => [key, withoutSecrets(inner)]),
  );
}

export async function recordAudit(deps: { audit: AuditLogStore }, record: AuditRecord): Promise<void> {
  await deps.audit.append({
    ...record,
    before: withoutSecrets(record.before),
    after: withoutSecrets(record.after),
  });
}

export async function listAuditLog(
  deps: { audit: AuditLogStore },
  merchantId: string,
  filter: AuditLogFilter,
): Promise<{ entries: AuditRecord[]; nextCursor: number | null }> {
  return deps.audit.list(merchantId, filter);
}

/** Entries older than a year go (with the hourly purge of idempotency records and events). */
export async function purgeAuditLog(deps: { audit: AuditLogStore; clock: Clock }): Promise<number> {
  return deps.audit.deleteOlderThan(
    new Date(deps.clock.now().getTime() - AUDIT_LOG_RETENTION_DAYS * 86_400_000),
  );
}
