import type { SessionCustomer } from '../domain/customer-session';

export interface CustomerSessionRepository {
  create(session: SessionCustomer & { tokenHash: string; createdAt: Date; expiresAt: Date }): Promise<void>;
  /** The live session of that token hash: not expired at `now`, not ended. */
  findLive(tokenHash: string, now: Date): Promise<SessionCustomer | undefined>;
  end(tokenHash: string, now: Date): Promise<void>;
}
