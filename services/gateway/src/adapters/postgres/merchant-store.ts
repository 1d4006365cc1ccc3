import { randomUUID } from 'node:crypto';
import { customerEmailSettings, type MerchantContext, merchantContextSchema } from '@payrail/contracts';
import type { Database, Executor } from '@payrail/db';
import { and, asc, desc, eq, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { MerchantSettings } from '../../domain/merchant';
import type { MerchantRecord, MerchantStore } from '../../ports/merchant-store';
import { apiTokens, merchants } from './schema';

type MerchantRow = typeof merchants.$inferSelect;

export function toMerchantContext(row: MerchantRow): MerchantContext {
  return merchantContextSchema.parse({
    merchantId: row.id,
    name: row.name,
    instance: row.instance,
    currency: row.currency,
    saasContract: row.saasContract,
    noLoginEnabled: row.noLoginEnabled,
    customerCancelAllowed: row.customerCancelAllowed,
    callbackUrl: row.callbackUrl,
    timezone: row.timezone,
    processors: row.processors,
    customerEmails: customerEmailSettings.parse(row.customerEmails ?? {}),
    contactEmail: row.contactEmail,
  });
}

/**
 * Every gateway replica caches token lookups briefly and LISTENs here: a write that revokes a token or
 * changes a merchant NOTIFYs in its own transaction (delivered at commit), and each replica drops its cache.
 */
export const CREDENTIALS_CHANNEL = 'gateway_credentials';

async function announceCredentialsChange(tx: Executor, merchantId: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${CREDENTIALS_CHANNEL}, ${merchantId})`);
}

function settingsColumns(
  settings: Omit<MerchantSettings, 'customerEmails' | 'contactEmail'> &
    Partial<Pick<MerchantSettings, 'customerEmails' | 'contactEmail'>>,
) {
  return {
    name: settings.name,
    instance: settings.instance,
    currency: settings.currency,
    saasContract: settings.saasContract,
    noLoginEnabled: settings.noLoginEnabled,
    customerCancelAllowed: settings.customerCancelAllowed,
    callbackUrl: settings.callbackUrl,
    timezone: settings.timezone,
    processors: settings.processors,
    customerEmails: settings.customerEmails ?? null,
    contactEmail: settings.contactEmail ?? null,
  };
}

const tokenColumns = {
  tokenId: apiTokens.id,
  name: apiTokens.name,
  scope: apiTokens.scope,
  createdAt: apiTokens.createdAt,
  lastUsedAt: apiTokens.lastUsedAt,
  revokedAt: apiTokens.revokedAt,
};

export function postgresMerchantStore(db: Database): MerchantStore {
  async function find(merchantId: string): Promise<MerchantRecord | undefined> {
    const [row] = await db.select().from(merchants).where(eq(merchants.id, merchantId));
    if (!row) return undefined;
    const tokens = await db
      .select(tokenColumns)
      .from(apiTokens)
      .where(eq(apiTokens.merchantId, merchantId))
      .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id));
    const context = toMerchantContext(row);
    return {
      id: row.id,
      name: context.name,
      instance: context.instance,
      currency: context.currency,
      saasContract: context.saasContract,
      noLoginEnabled: context.noLoginEnabled,
      customerCancelAllowed: context.customerCancelAllowed === true,
      callbackUrl: context.callbackUrl,
      timezone: context.timezone,
      processors: context.processors,
      customerEmails: customerEmailSettings.parse(context.customerEmails ?? {}),
      contactEmail: context.contactEmail ?? null,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      tokens,
    };
  }

  return {
    async list({ after, limit }) {
      const rows = await db
        .select()
        .from(merchants)
        .where(
          after === null
            ? undefined
            : or(
                lt(merchants.createdAt, after.createdAt),
                and(eq(merchants.createdAt, after.createdAt), lt(merchants.id, after.id)),
              ),
        )
        .orderBy(desc(merchants.createdAt), desc(merchants.id))
        .limit(limit);
      return rows.map((row) => {
        const context = toMerchantContext(row);
        return {
          id: row.id,
          name: context.name,
          instance: context.instance,
          currency: context.currency,
          saasContract: context.saasContract,
          noLoginEnabled: context.noLoginEnabled,
          customerCancelAllowed: context.customerCancelAllowed === true,
          callbackUrl: context.callbackUrl,
          timezone: context.timezone,
          processors: context.processors,
          customerEmails: customerEmailSettings.parse(context.customerEmails ?? {}),
          contactEmail: context.contactEmail ?? null,
          createdAt: row.createdAt,
          updatedAt: row.updatedAt,
        };
      });
    },
    async findByTokenHash(tokenHash) {
      const [row] = await db
        .select({ merchant: merchants, tokenId: apiTokens.id, name: apiTokens.name, scope: apiTokens.scope })
        .from(apiTokens)
        .innerJoin(merchants, eq(merchants.id, apiTokens.merchantId))
        .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)));
      return row
        ? {
            merchant: toMerchantContext(row.merchant),
            token: { tokenId: row.tokenId, name: row.name, scope: row.scope },
          }
        : undefined;
    },

    async findContext(merchantId) {
      const [row] = await db.select().from(merchants).where(eq(merchants.id, merchantId));
      return row ? toMerchantContext(row) : undefined;
    },

    async listTokens(merchantId) {
      return db
        .select(tokenColumns)
        .from(apiTokens)
        .where(eq(apiTokens.merchantId, merchantId))
        .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
    },

    async touchToken(tokenId, at, since) {
      await db
        .update(apiTokens)
        .set({ lastUsedAt: at })
        .where(
          and(eq(apiTokens.id, tokenId), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, since))),
        );
    },

    async ensureMerchantWithOnlyToken(merchant, tokenHash, at) {
      return db.transaction(async (tx) => {
        await tx
          .insert(merchants)
          .values({
            id: merchant.merchantId,
            ...settingsColumns({
              ...merchant,
              customerCancelAllowed: merchant.customerCancelAllowed === true,
            }),
          })
          .onConflictDoNothing();
        // A token given again after another replaced it is live again: the same DEMO_API_TOKEN keeps working.
        const [kept] = await tx
          .insert(apiTokens)
          .values({ id: randomUUID(), merchantId: merchant.merchantId, tokenHash, createdAt: at })
          .onConflictDoUpdate({
            target: apiTokens.tokenHash,
            set: { revokedAt: null },
            setWhere: eq(apiTokens.merchantId, merchant.merchantId),
          })
          .returning({ id: apiTokens.id });
        if (!kept) return false;
        await tx
          .update(apiTokens)
          .set({ revokedAt: at })
          .where(
            and(
              eq(apiTokens.merchantId, merchant.merchantId),
              ne(apiTokens.id, kept.id),
              isNull(apiTokens.revokedAt),
            ),
          );
        await announceCredentialsChange(tx, merchant.merchantId);
        return true;
      });
    },

    async create(merchant, token) {
      await db.transaction(async (tx) => {
        await tx.insert(merchants).values({
          id: merchant.id,
          ...settingsColumns(merchant.settings),
          createdAt: merchant.createdAt,
          updatedAt: merchant.createdAt,
        });
        await tx.insert(apiTokens).values({
          id: token.tokenId,
          merchantId: merchant.id,
          tokenHash: token.tokenHash,
          createdAt: token.createdAt,
          name: token.name ?? null,
          scope: token.scope ?? 'full',
        });
      });
      const created = await find(merchant.id);
      if (!created) throw new Error('merchant vanished after insert');
      return created;
    },

    find,

    async update(merchantId, settings, updatedAt) {
      const updated = await db.transaction(async (tx) => {
        const rows = await tx
          .update(merchants)
          .set({ ...settingsColumns(settings), updatedAt })
          .where(eq(merchants.id, merchantId))
          .returning({ id: merchants.id });
        if (rows.length > 0) await announceCredentialsChange(tx, merchantId);
        return rows;
      });
      return updated.length > 0 ? find(merchantId) : undefined;
    },

    async addToken(merchantId, token) {
      const [merchant] = await db
        .select({ id: merchants.id })
        .from(merchants)
        .where(eq(merchants.id, merchantId));
      if (!merchant) return false;
      await db.insert(apiTokens).values({
        id: token.tokenId,
        merchantId,
        tokenHash: token.tokenHash,
        createdAt: token.createdAt,
        name: token.name ?? null,
        scope: token.scope ?? 'full',
      });
      return true;
    },

    async revokeToken(merchantId, tokenId, revokedAt) {
      const [token] = await db
        .select({ revokedAt: apiTokens.revokedAt })
        .from(apiTokens)
        .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.merchantId, merchantId)));
      if (!token) return false;
      if (!token.revokedAt) {
        await db.transaction(async (tx) => {
          await tx
            .update(apiTokens)
            .set({ revokedAt })
            .where(and(eq(apiTokens.id, tokenId), isNull(apiTokens.revokedAt)));
          await announceCredentialsChange(tx, merchantId);
        });
      }
      return true;
    },
  };
}
