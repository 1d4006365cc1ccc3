import type { ApiTokenScope, MerchantContext } from '@payrail/contracts';
import type { MerchantSettings } from '../domain/merchant';

export interface ApiTokenSummary {
  tokenId: string;
  name: string | null;
  scope: ApiTokenScope;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A live token's merchant, and the token itself (who is calling, with which scope). */
export interface TokenHolder {
  merchant: MerchantContext;
  token: { tokenId: string; name: string | null; scope: ApiTokenScope };
}

export interface MerchantRecord extends MerchantSettings {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  tokens: ApiTokenSummary[];
}

/** A merchant in the operator's list. */
export type MerchantListEntry = Omit<MerchantRecord, 'tokens'>;

/** A token as stored: its hash, never the token. */
export interface NewApiToken {
  tokenId: string;
  tokenHash: string;
  createdAt: Date;
  /** Default: no name, `full` (the operator's tokens). */
  name?: string | null;
  scope?: ApiTokenScope;
}

export interface MerchantStore {
  /** The merchant owning a live (not revoked) token with this hash, and the token. */
  findByTokenHash(tokenHash: string): Promise<TokenHolder | undefined>;
  /** The merchant's settings as requests carry them (a console user's requests). */
  findContext(merchantId: string): Promise<MerchantContext | undefined>;
  /**
   * Demo seeding: creates the merchant if absent and makes this token hash its only live token (attached
   * or un-revoked; every other token of the merchant revoked at `at`). False when the hash is already
   * another merchant's token.
   */
  ensureMerchantWithOnlyToken(merchant: MerchantContext, tokenHash: string, at: Date): Promise<boolean>;
  /** The merchant and its first token, in one transaction. */
  create(
    merchant: { id: string; settings: MerchantSettings; createdAt: Date },
    token: NewApiToken,
  ): Promise<MerchantRecord>;
  find(merchantId: string): Promise<MerchantRecord | undefined>;
  /**
   * Merchants newest first (by creation, then id), after `after` when given: their settings, without tokens.
   */
  list(page: { after: { createdAt: Date; id: string } | null; limit: number }): Promise<MerchantListEntry[]>;
  update(
    merchantId: string,
    settings: MerchantSettings,
    updatedAt: Date,
  ): Promise<MerchantRecord | undefined>;
  /** False when there is no such merchant. */
  addToken(merchantId: string, token: NewApiToken): Promise<boolean>;
  /** The merchant's tokens, newest first. */
  listTokens(merchantId: string): Promise<ApiTokenSummary[]>;
  /** Records a use of the token, unless one at or after `since` is recorded already (one write a minute). */
  touchToken(tokenId: string, at: Date, since: Date): Promise<void>;
  /** False when the merchant has no such token; revoking a revoked token keeps its first revocation time. */
  revokeToken(merchantId: string, tokenId: string, revokedAt: Date): Promise<boolean>;
}
