import type { MerchantContext } from '@payrail/contracts';
import type { ConsoleUserRecord } from './console-user-store';

export type SessionStage = 'enrol' | 'totp' | 'full';

export interface ConsoleSessionRecord {
  tokenHash: string;
  stage: SessionStage;
  createdAt: Date;
  lastSeenAt: Date;
  user: ConsoleUserRecord;
  /** A merchant user's merchant, as the API forwards it (settings included). */
  merchant: MerchantContext | null;
}

export interface ConsoleSessionStore {
  create(session: {
    tokenHash: string;
    userId: string;
    stage: SessionStage;
    at: Date;
    clientAddress: string | null;
  }): Promise<void>;
  /** The session with its user and merchant, in one read. */
  find(tokenHash: string): Promise<ConsoleSessionRecord | undefined>;
  touch(tokenHash: string, at: Date): Promise<void>;
  end(tokenHash: string): Promise<void>;
  /** Every session of the user (a password change, a removal), but `keep` if given. */
  endAllOf(userId: string, keep?: string): Promise<void>;
  /** Sessions idle since before `idleBefore` (and partial ones created before `partialBefore`). */
  deleteExpired(idleBefore: Date, partialBefore: Date): Promise<number>;
}
