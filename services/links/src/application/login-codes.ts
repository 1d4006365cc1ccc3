import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Only the hash of a login code is stored: a leaked table opens no session. */
export function hashLoginCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/**
 * A 6-digit e-mail code has only a million values: a plain hash would be reversed by trying them all.
 * Keyed with the service's secret and bound to the merchant and e-mail, a leaked row reveals nothing.
 */
export function hashEmailCode(secret: string, merchantId: string, emailKey: string, code: string): string {
  return createHmac('sha256', secret).update(`email-code\n${merchantId}\n${emailKey}\n${code}`).digest('hex');
}

/** The requester's IP address is counted for the rate limit but not kept in clear. */
export function hashRequester(secret: string, address: string): string {
  return createHmac('sha256', secret).update(`requester\n${address}`).digest('hex');
}

/** Session tokens carry 256 random bits: a plain SHA-256 is enough to make a leaked row useless. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(`session\n${token}`).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
