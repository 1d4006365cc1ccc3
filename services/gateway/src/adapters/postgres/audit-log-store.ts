import type { Database } from '@payrail/db';
import { and, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { AuditLogStore, AuditRecord } from '../../ports/audit-log-store';
import { auditLog } from './schema';

type AuditRow = typeof auditLog.$inferSelect;

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    merchantId: row.merchantId,
    at: row.at,
    actor: { type: row.actorType, id: row.actorId, label: row.actorLabel },
    operationId: row.operationId,
    method: row.method,
    path: row.path,
    target: row.target,
    status: row.status,
    before: row.before ?? null,
    after: row.after ?? null,
    clientAddress: row.clientAddress,
  };
}

export function postgresAuditLogStore(db: Database): AuditLogStore {
  return {
    async append(record) {
      await db.insert(auditLog).values({
        id: record.id,
        merchantId: record.merchantId,
        at: record.at,
        actorType: record.actor.type,
        actorId: record.actor.id,
        actorLabel: record.actor.label,
        operationId: record.operationId,
        method: record.method,
        path: record.path,
        target: record.target,
        status: record.status,
        before: record.before ?? null,
        after: record.after ?? null,
        clientAddress: record.clientAddress,
      });
    },

    async list(merchantId, filter) {
      const conditions: SQL[] = [eq(auditLog.merchantId, merchantId)];
      if (filter.operationId) conditions.push(eq(auditLog.operationId, filter.operationId));
      if (filter.actorId) conditions.push(eq(auditLog.actorId, filter.actorId));
      if (filter.target) conditions.push(eq(auditLog.target, filter.target));
      if (filter.from) conditions.push(gte(auditLog.at, filter.from));
      if (filter.to) conditions.push(lt(auditLog.at, filter.to));
      if (filter.before !== undefined) conditions.push(lt(auditLog.seq, filter.before));
      const rows = await db
        .select()
        .from(auditLog)
        .where(and(...conditions))
        .orderBy(desc(auditLog.seq))
        .limit(filter.limit + 1);
      const page = rows.slice(0, filter.limit);
      const last = page.at(-1);
      return {
        entries: page.map(toRecord),
        nextCursor: rows.length > filter.limit && last ? last.seq : null,
      };
    },

    async deleteOlderThan(at) {
      const deleted = await db.delete(auditLog).where(lt(auditLog.at, at)).returning({ seq: auditLog.seq });
      return deleted.length;
    },
  };
}
