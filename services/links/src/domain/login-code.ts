/**
 * A signed-in-user link opens the user's session without a password, so its credential is short-lived:
 * it dies with the link, and after a day at most even when the link lives longer. Past that, the pay
 * page falls back to the service's own login.
 */
export const LOGIN_CODE_MAX_LIFETIME_MS = 24 * 3_600_000;

export function loginCodeExpiry(now: Date, linkExpiresAt: Date | null): Date {
  const cap = new Date(now.getTime() + LOGIN_CODE_MAX_LIFETIME_MS);
  return linkExpiresAt && linkExpiresAt < cap ? linkExpiresAt : cap;
}

/** What a consumed code proves: this user may pay this link without logging in. */
export interface LoginGrant {
  merchantId: string;
  customerId: number;
  linkId: number;
}
