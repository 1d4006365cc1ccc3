import type { Database } from '@payrail/db';
import { and, asc, count, desc, eq, gt, isNull, lt, min, sql } from 'drizzle-orm';
import type { EmailLoginRepository } from '../../ports/email-login-repository';
import { customers, emailLoginCodes } from './schema';

export function postgresEmailLoginRepository(db: Database): EmailLoginRepository {
  return {
    async issue({ merchantId, emailKey, codeHash, requesterHash, now, expiresAt, windowStart, limits }) {
      return db.transaction(async (tx) => {
        // One request at a time per e-mail (and per requester), so that two at once cannot both
        // pass the count below.
        await tx.execute(
          sql`select pg_advisory_xact_lock(hashtextextended(${`email-code:${merchantId}:${emailKey}`}, 0))`,
        );
        await tx.execute(
          sql`select pg_advisory_xact_lock(hashtextextended(${`requester:${requesterHash}`}, 0))`,
        );
        const counted = async (where: ReturnType<typeof and>) => {
          const [row] = await tx
            .select({ requests: count(), oldest: min(emailLoginCodes.createdAt) })
            .from(emailLoginCodes)
            .where(where);
          return { requests: row?.requests ?? 0, oldest: row?.oldest ?? now };
        };
        const byEmail = await counted(
          and(
            eq(emailLoginCodes.merchantId, merchantId),
            eq(emailLoginCodes.emailKey, emailKey),
            gt(emailLoginCodes.createdAt, windowStart),
          ),
        );
        if (byEmail.requests >= limits.perEmail) return { issued: false, oldestCounted: byEmail.oldest };
        const byRequester = await counted(
          and(eq(emailLoginCodes.requesterHash, requesterHash), gt(emailLoginCodes.createdAt, windowStart)),
        );
        if (byRequester.requests >= limits.perRequester)
          return { issued: false, oldestCounted: byRequester.oldest };
        // A new code replaces the e-mail's older ones: only the newest can be typed.
        await tx
          .update(emailLoginCodes)
          .set({ closedAt: now })
          .where(
            and(
              eq(emailLoginCodes.merchantId, merchantId),
              eq(emailLoginCodes.emailKey, emailKey),
              isNull(emailLoginCodes.closedAt),
            ),
          );
        await tx
          .insert(emailLoginCodes)
          .values({ merchantId, emailKey, codeHash, requesterHash, createdAt: now, expiresAt });
        return { issued: true };
      });
    },

    async check({ merchantId, email, emailKey, now, maxTries, matches }) {
      return db.transaction(async (tx) => {
        const [live] = await tx
          .select()
          .from(emailLoginCodes)
          .where(
            and(
              eq(emailLoginCodes.merchantId, merchantId),
              eq(emailLoginCodes.emailKey, emailKey),
              isNull(emailLoginCodes.closedAt),
              gt(emailLoginCodes.expiresAt, now),
              lt(emailLoginCodes.attempts, maxTries),
            ),
          )
          .orderBy(desc(emailLoginCodes.createdAt), desc(emailLoginCodes.id))
          .limit(1)
          .for('update');
        if (!live) return { ok: false, reason: 'no-live-code' } as const;
        if (!matches(live.codeHash)) {
          const attempts = live.attempts + 1;
          await tx.update(emailLoginCodes).set({ attempts }).where(eq(emailLoginCodes.id, live.id));
          return { ok: false, reason: 'wrong-code', triesLeft: maxTries - attempts } as const;
        }
        await tx
          .update(emailLoginCodes)
          .set({ attempts: live.attempts + 1, closedAt: now })
          .where(eq(emailLoginCodes.id, live.id));
        // Found or created in one statement; a known customer keeps the e-mail as first written.
        const [customer] = await tx
          .insert(customers)
          .values({
            merchantId,
            email,
            emailKey,
            firstName: '',
            lastName: '',
            status: 'active',
            createdAt: now,
            activatedAt: now,
          })
          .onConflictDoUpdate({
            target: [customers.merchantId, customers.emailKey],
            set: { emailKey: sql`excluded.email_key` },
          })
          .returning({ id: customers.id });
        if (!customer) throw new Error('customer upsert returned no row');
        return { ok: true, customerId: customer.id } as const;
      });
    },
  };
}

/** For tests and the account page: the codes of an e-mail, oldest first. */
export async function emailCodeRows(db: Database, merchantId: string, emailKey: string) {
  return db
    .select()
    .from(emailLoginCodes)
    .where(and(eq(emailLoginCodes.merchantId, merchantId), eq(emailLoginCodes.emailKey, emailKey)))
    .orderBy(asc(emailLoginCodes.id));
}
