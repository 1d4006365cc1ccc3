import type { Database } from '@payrail/db';
import { and, eq, lt, ne, or } from 'drizzle-orm';
import type { ConsoleSessionStore } from '../../ports/console-session-store';
import { userRecord } from './console-user-store';
import { toMerchantContext } from './merchant-store';
import { consoleSessions, consoleUsers, merchants } from './schema';

export function postgresConsoleSessionStore(db: Database): ConsoleSessionStore {
  return {
    async create(session) {
      await db.insert(consoleSessions).values({
        tokenHash: session.tokenHash,
        userId: session.userId,
        stage: session.stage,
        createdAt: session.at,
        lastSeenAt: session.at,
        clientAddress: session.clientAddress,
      });
    },

    async find(tokenHash) {
      // One indexed read per console request: the session, its user and the user's merchant.
      const [row] = await db
        .select({ session: consoleSessions, user: consoleUsers, merchant: merchants })
        .from(consoleSessions)
        .innerJoin(consoleUsers, eq(consoleUsers.id, consoleSessions.userId))
        .leftJoin(merchants, eq(merchants.id, consoleUsers.merchantId))
        .where(eq(consoleSessions.tokenHash, tokenHash));
      if (!row) return undefined;
      return {
        tokenHash: row.session.tokenHash,
        stage: row.session.stage,
        createdAt: row.session.createdAt,
        lastSeenAt: row.session.lastSeenAt,
        user: userRecord(row.user, null),
        merchant: row.merchant ? toMerchantContext(row.merchant) : null,
      };
    },

    async touch(tokenHash, at) {
      await db
        .update(consoleSessions)
        .set({ lastSeenAt: at })
        .where(eq(consoleSessions.tokenHash, tokenHash));
    },

    async end(tokenHash) {
      await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash));
    },

    async endAllOf(userId, keep) {
      await db
        .delete(consoleSessions)
        .where(
          keep === undefined
            ? eq(consoleSessions.userId, userId)
            : and(eq(consoleSessions.userId, userId), ne(consoleSessions.tokenHash, keep)),
        );
    },

    async deleteExpired(idleBefore, partialBefore) {
      const deleted = await db
        .delete(consoleSessions)
        .where(
          or(
            lt(consoleSessions.lastSeenAt, idleBefore),
            and(ne(consoleSessions.stage, 'full'), lt(consoleSessions.createdAt, partialBefore)),
          ),
        )
        .returning({ tokenHash: consoleSessions.tokenHash });
      return deleted.length;
    },
  };
}
