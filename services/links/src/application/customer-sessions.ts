import { randomBytes } from 'node:crypto';
import type { Clock } from '@payrail/time';
import { CUSTOMER_SESSION_LIFETIME_MS, type SessionCustomer } from '../domain/customer-session';
import type { CustomerSessionRepository } from '../ports/customer-session-repository';
import { hashSessionToken } from './login-codes';

export interface CustomerSessionDeps {
  sessions: CustomerSessionRepository;
  clock: Clock;
}

/** Starts a session for the customer at the merchant; the token goes in the cookie, its hash in the table. */
export async function startCustomerSession(
  deps: CustomerSessionDeps,
  customer: SessionCustomer,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CUSTOMER_SESSION_LIFETIME_MS);
  await deps.sessions.create({ ...customer, tokenHash: hashSessionToken(token), createdAt: now, expiresAt });
  return { token, expiresAt };
}

/** Who the token's live session belongs to; undefined for an unknown, expired or ended session. */
export async function customerOfSession(
  deps: CustomerSessionDeps,
  token: string | undefined,
): Promise<SessionCustomer | undefined> {
  if (!token || token.length > 100) return undefined;
  return deps.sessions.findLive(hashSessionToken(token), deps.clock.now());
}

export async function endCustomerSession(
  deps: CustomerSessionDeps,
  token: string | undefined,
): Promise<void> {
  if (!token || token.length > 100) return;
  await deps.sessions.end(hashSessionToken(token), deps.clock.now());
}
