import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Database } from '@payrail/db';
import { and, eq, lte } from 'drizzle-orm';
import type { IdempotencyRecord, StoredResponse } from '../../domain/idempotency';
import type { IdempotencyClaim, IdempotencyStore } from '../../ports/idempotency-store';
import { idempotencyRecords } from './schema';

type Row = typeof idempotencyRecords.$inferSelect;

/**
 * Stored responses are sealed (AES-256-GCM) with a key derived from the internal secret: a response can
 * carry a credential (the signed-in-user link's login code), and a copy of the table alone must not
 * reveal it.
 */
function responseSealer(secret: string) {
  const key = createHmac('sha256', secret).update('gateway:idempotency-response:v1').digest();
  return {
    seal(body: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${sealed.toString('base64url')}`;
    },
    open(stored: string): string {
      const [version, iv, tag, sealed] = stored.split('.');
      if (version !== 'v1' || !iv || !tag || sealed === undefined)
        throw new Error('unreadable idempotency response');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

type Sealer = ReturnType<typeof responseSealer>;

/** Null when it cannot be read, e.g. sealed under an `INTERNAL_SECRET` that has since changed. */
function storedResponse(row: Row, sealer: Sealer): StoredResponse | null {
  if (row.responseStatus === null || row.responseBody === null) return null;
  try {
    return {
      status: row.responseStatus,
      contentType: row.responseContentType,
      body: sealer.open(row.responseBody),
    };
  } catch {
    return null;
  }
}

function toRecord(row: Row, sealer: Sealer): IdempotencyRecord {
  return {
    merchantId: row.merchantId,
    key: row.key,
    fingerprint: row.fingerprint,
    state: row.state,
    response: row.state === 'completed' ? storedResponse(row, sealer) : null,
    lockedAt: row.lockedAt,
    expiresAt: row.expiresAt,
  };
}

function columns(record: IdempotencyRecord, sealer: Sealer) {
  return {
    merchantId: record.merchantId,
    key: record.key,
    fingerprint: record.fingerprint,
    state: record.state,
    responseStatus: record.response?.status ?? null,
    responseContentType: record.response?.contentType ?? null,
    responseBody: record.response ? sealer.seal(record.response.body) : null,
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

export function postgresIdempotencyStore(db: Database, options: { secret: string }): IdempotencyStore {
  const sealer = responseSealer(options.secret);
  return {
    async insert(record) {
      // Insert-first: the primary key decides which of two concurrent requests holds the key.
      const inserted = await db
        .insert(idempotencyRecords)
        .values(columns(record, sealer))
        .onConflictDoNothing()
        .returning({ key: idempotencyRecords.key });
      return inserted.length > 0;
    },

    async find(merchantId, key) {
      const [row] = await db
        .select()
        .from(idempotencyRecords)
        .where(and(eq(idempotencyRecords.merchantId, merchantId), eq(idempotencyRecords.key, key)));
      return row ? toRecord(row, sealer) : undefined;
    },

    async replace(previous, record) {
      const updated = await db
        .update(idempotencyRecords)
        .set(columns(record, sealer))
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
          responseBody: sealer.seal(response.body),
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
