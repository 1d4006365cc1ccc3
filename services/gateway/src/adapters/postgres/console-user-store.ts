import type { Database } from '@payrail/db';
import { and, asc, count, eq, gt, isNull, sql } from 'drizzle-orm';
import { afterFailedLogin, LOCKOUT } from '../../domain/access/rules';
import type { ConsoleUserRecord, ConsoleUserStore } from '../../ports/console-user-store';
import { consoleRecoveryCodes, consoleSessions, consoleUsers, consoleUserTokens } from './schema';

type UserRow = typeof consoleUsers.$inferSelect;

/** The newest invitation's expiry of a user not yet active (no password), read beside the user. */
const invitationExpiresAt = sql<Date | null>`(
  select max(${consoleUserTokens.expiresAt}) from ${consoleUserTokens}
  where ${consoleUserTokens.userId} = ${consoleUsers.id} and ${consoleUserTokens.purpose} = 'invitation'
)`.mapWith((value) => (value === null ? null : new Date(value)));

export function userRecord(row: UserRow, invitationExpiry: Date | null): ConsoleUserRecord {
  return {
    id: row.id,
    kind: row.kind,
    merchantId: row.merchantId,
    email: row.email,
    name: row.name,
    role: row.role,
    language: row.language,
    passwordHash: row.passwordHash,
    totpSecretSealed: row.totpSecretSealed,
    totpEnabledAt: row.totpEnabledAt,
    totpLastStep: row.totpLastStep,
    failedLogins: row.failedLogins,
    lockedUntil: row.lockedUntil,
    lastLoginAt: row.lastLoginAt,
    createdAt: row.createdAt,
    invitationExpiresAt: row.passwordHash === null ? invitationExpiry : null,
  };
}

export function postgresConsoleUserStore(db: Database): ConsoleUserStore {
  const selectUsers = () => db.select({ user: consoleUsers, invitationExpiresAt }).from(consoleUsers);

  /** Whether the merchant would still have an owner without this user (or with it no longer an owner). */
  async function ownersBesides(tx: Database, merchantId: string, userId: string): Promise<number> {
    // Every owner row of the merchant locked, so two demotions at once cannot both pass.
    const owners = await tx
      .select({ id: consoleUsers.id })
      .from(consoleUsers)
      .where(and(eq(consoleUsers.merchantId, merchantId), eq(consoleUsers.role, 'owner')))
      .for('update');
    return owners.filter((owner) => owner.id !== userId).length;
  }

  return {
    async find(userId) {
      const [row] = await selectUsers().where(eq(consoleUsers.id, userId));
      return row ? userRecord(row.user, row.invitationExpiresAt) : undefined;
    },

    async findByEmail(email) {
      const [row] = await selectUsers().where(eq(consoleUsers.email, email.toLowerCase()));
      return row ? userRecord(row.user, row.invitationExpiresAt) : undefined;
    },

    async list(merchantId) {
      const rows = await selectUsers()
        .where(
          merchantId === null ? eq(consoleUsers.kind, 'operator') : eq(consoleUsers.merchantId, merchantId),
        )
        .orderBy(asc(consoleUsers.createdAt), asc(consoleUsers.email));
      return rows.map((row) => userRecord(row.user, row.invitationExpiresAt));
    },

    async create(user, invitation) {
      // The unique e-mail index decides between two invitations of one address at once.
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(consoleUsers)
          .values({ ...user, email: user.email.toLowerCase() })
          .onConflictDoNothing({ target: consoleUsers.email })
          .returning({ id: consoleUsers.id });
        if (inserted.length === 0) return false;
        await tx.insert(consoleUserTokens).values({ ...invitation, userId: user.id });
        return true;
      });
    },

    async replaceLink(userId, link) {
      await db.transaction(async (tx) => {
        await tx
          .delete(consoleUserTokens)
          .where(and(eq(consoleUserTokens.userId, userId), eq(consoleUserTokens.purpose, link.purpose)));
        await tx.insert(consoleUserTokens).values({ ...link, userId });
      });
    },

    async peekLink(tokenHash, purpose, now) {
      const [link] = await db
        .select({ userId: consoleUserTokens.userId })
        .from(consoleUserTokens)
        .where(
          and(
            eq(consoleUserTokens.tokenHash, tokenHash),
            eq(consoleUserTokens.purpose, purpose),
            gt(consoleUserTokens.expiresAt, now),
          ),
        );
      return link?.userId;
    },

    async takeLink(tokenHash, purpose, now) {
      // Deleted as it is read: of two requests with one link, one gets it.
      const [taken] = await db
        .delete(consoleUserTokens)
        .where(
          and(
            eq(consoleUserTokens.tokenHash, tokenHash),
            eq(consoleUserTokens.purpose, purpose),
            gt(consoleUserTokens.expiresAt, now),
          ),
        )
        .returning({ userId: consoleUserTokens.userId });
      if (!taken) return undefined;
      await db
        .delete(consoleUserTokens)
        .where(and(eq(consoleUserTokens.userId, taken.userId), eq(consoleUserTokens.purpose, purpose)));
      return taken.userId;
    },

    async changeRole(merchantId, userId, role) {
      return db.transaction(async (tx) => {
        const [user] = await tx
          .select({ role: consoleUsers.role })
          .from(consoleUsers)
          .where(and(eq(consoleUsers.id, userId), eq(consoleUsers.merchantId, merchantId)))
          .for('update');
        if (!user) return undefined;
        if (user.role === 'owner' && role !== 'owner' && (await ownersBesides(tx, merchantId, userId)) === 0)
          return false;
        await tx.update(consoleUsers).set({ role }).where(eq(consoleUsers.id, userId));
        return true;
      });
    },

    async remove(merchantId, userId) {
      return db.transaction(async (tx) => {
        const [user] = await tx
          .select({ role: consoleUsers.role })
          .from(consoleUsers)
          .where(and(eq(consoleUsers.id, userId), eq(consoleUsers.merchantId, merchantId)))
          .for('update');
        if (!user) return undefined;
        if (user.role === 'owner' && (await ownersBesides(tx, merchantId, userId)) === 0) return false;
        await tx.delete(consoleUsers).where(eq(consoleUsers.id, userId));
        return true;
      });
    },

    async removeInvited(userId) {
      await db
        .delete(consoleUsers)
        .where(and(eq(consoleUsers.id, userId), isNull(consoleUsers.passwordHash)));
    },

    async setPassword(userId, passwordHash, at) {
      await db.transaction(async (tx) => {
        await tx
          .update(consoleUsers)
          .set({ passwordHash, passwordChangedAt: at, failedLogins: 0, lockedUntil: null })
          .where(eq(consoleUsers.id, userId));
        await tx.delete(consoleSessions).where(eq(consoleSessions.userId, userId));
      });
    },

    async setName(userId, name) {
      await db.update(consoleUsers).set({ name }).where(eq(consoleUsers.id, userId));
    },

    async setLanguage(userId, language) {
      await db.update(consoleUsers).set({ language }).where(eq(consoleUsers.id, userId));
    },

    async recordFailure(userId, at) {
      const locking = afterFailedLogin(LOCKOUT.failures - 1, at).lockedUntil;
      const [row] = await db
        .update(consoleUsers)
        .set({
          failedLogins: sql`case when ${consoleUsers.failedLogins} + 1 >= ${LOCKOUT.failures} then 0 else ${consoleUsers.failedLogins} + 1 end`,
          lockedUntil: sql`case when ${consoleUsers.failedLogins} + 1 >= ${LOCKOUT.failures} then ${locking?.toISOString()}::timestamptz else null end`,
        })
        .where(
          and(
            eq(consoleUsers.id, userId),
            sql`(${consoleUsers.lockedUntil} is null or ${consoleUsers.lockedUntil} <= ${at.toISOString()}::timestamptz)`,
          ),
        )
        .returning({ lockedUntil: consoleUsers.lockedUntil });
      return row?.lockedUntil ?? null;
    },

    async recordLogin(userId, at) {
      await db
        .update(consoleUsers)
        .set({ lastLoginAt: at, failedLogins: 0, lockedUntil: null })
        .where(eq(consoleUsers.id, userId));
    },

    async setPendingTotp(userId, secretSealed) {
      await db
        .update(consoleUsers)
        .set({ totpSecretSealed: secretSealed })
        .where(and(eq(consoleUsers.id, userId), isNull(consoleUsers.totpEnabledAt)));
    },

    async enableTotp(userId, step, at, recoveryCodeHashes) {
      await db.transaction(async (tx) => {
        await tx
          .update(consoleUsers)
          .set({ totpEnabledAt: at, totpLastStep: step })
          .where(eq(consoleUsers.id, userId));
        await tx.delete(consoleRecoveryCodes).where(eq(consoleRecoveryCodes.userId, userId));
        if (recoveryCodeHashes.length > 0)
          await tx
            .insert(consoleRecoveryCodes)
            .values(recoveryCodeHashes.map((codeHash) => ({ codeHash, userId })));
      });
    },

    async disableTotp(userId) {
      await db.transaction(async (tx) => {
        await tx
          .update(consoleUsers)
          .set({ totpSecretSealed: null, totpEnabledAt: null, totpLastStep: null })
          .where(eq(consoleUsers.id, userId));
        await tx.delete(consoleRecoveryCodes).where(eq(consoleRecoveryCodes.userId, userId));
      });
    },

    async useTotpStep(userId, step) {
      const updated = await db
        .update(consoleUsers)
        .set({ totpLastStep: step })
        .where(
          and(
            eq(consoleUsers.id, userId),
            sql`(${consoleUsers.totpLastStep} is null or ${consoleUsers.totpLastStep} < ${step})`,
          ),
        )
        .returning({ id: consoleUsers.id });
      return updated.length > 0;
    },

    async useRecoveryCode(userId, codeHash, at) {
      const used = await db
        .update(consoleRecoveryCodes)
        .set({ usedAt: at })
        .where(
          and(
            eq(consoleRecoveryCodes.codeHash, codeHash),
            eq(consoleRecoveryCodes.userId, userId),
            isNull(consoleRecoveryCodes.usedAt),
          ),
        )
        .returning({ codeHash: consoleRecoveryCodes.codeHash });
      return used.length > 0;
    },

    async unusedRecoveryCodes(userId) {
      const [row] = await db
        .select({ unused: count() })
        .from(consoleRecoveryCodes)
        .where(and(eq(consoleRecoveryCodes.userId, userId), isNull(consoleRecoveryCodes.usedAt)));
      return row?.unused ?? 0;
    },
  };
}
