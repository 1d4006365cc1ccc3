import type { Database } from '@payrail/db';
import { and, eq, lte } from 'drizzle-orm';
import type { IdempotencyRecord } from '../../domain/idempotency';
import type { IdempotencyClaim, IdempotencyStore } from '../../ports/idempotency-store';
import { idempotencyRecords } from './schema';

type Row = typeof idempotencyRecords.$inferSelect;

function toRecord(row: Row): IdempotencyRecord {
  return {
    merchantId: row.merchantId,
    key: row.key,
    fingerprint: row.fingerprint,
    state: row.state,
    response:
      row.state === 'completed' && row.responseStatus !== null
        ? { status: row.responseStatus, contentType: row.responseContentType, body: row.responseBody ?? '' }
        : null,
    lockedAt: row.lockedAt,
    expiresAt: row.expiresAt,
  };
}

function columns(record: IdempotencyRecord) {
  return {
    merchantId: record.merchantId,
    key: record.key,
    fingerprint: record.fingerprint,
    state: record.state,
    responseStatus: record.response?.status ?? null,
    responseContentType: record.response?.contentType ?? null,
    responseBody: record.response?.body ?? null,
    lockedAt: record.lockedAt,
    expiresAt: record.expiresAt,
  };
}

const sameClaim = (claim: IdempotencyClaim) =>
  and(
    eq(idempotencyRecords.merchantId, claim.merchantId),
    eq(idempotencyRecords.key, claim.key),
    eq(idempotencyRecords.lockedAt, claim.lockedAt),
  );

export function postgresIdempotencyStore(db: Database): IdempotencyStore {
  return {
    async insert(record) {
      // Insert-first: the primary key decides which of two concurrent requests holds the key.
      const inserted = await db
        .insert(idempotencyRecords)
        .values(columns(record))
        .onConflictDoNothing()
        .returning({ key: idempotencyRecords.key });
      return inserted.length > 0;
    },

    async find(merchantId, key) {
      const [row] = await db
        .select()
        .from(idempotencyRecords)
        .where(and(eq(idempotencyRecords.merchantId, merchantId), eq(idempotencyRecords.key, key)));
      return row ? toRecord(row) : undefined;
    },

    async replace(previous, record) {
      const updated = await db
        .update(idempotencyRecords)
        .set(columns(record))
        .where(sameClaim(previous))
        .returning({ key: idempotencyRecords.key });
      return updated.length > 0;
    },

    async complete(claim, response) {
      await db
        .update(idempotencyRecords)
        .set({
          state: 'completed',
          responseStatus: response.status,
          responseContentType: response.contentType,
          responseBody: response.body,
        })
        .where(sameClaim(claim));
    },

    async release(claim) {
      await db.delete(idempotencyRecords).where(sameClaim(claim));
    },

    async deleteExpired(now) {
      const deleted = await db
        .delete(idempotencyRecords)
        .where(lte(idempotencyRecords.expiresAt, now))
        .returning({ key: idempotencyRecords.key });
      return deleted.length;
    },
  };
}
