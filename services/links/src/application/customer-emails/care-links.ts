import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The signed link of a customer e-mail (`/pay/care/{token}`): 144 random bits and their HMAC under the
 * service's secret. The HMAC lets an edited or made-up token be refused without a database read; only the
 * token's SHA-256 is stored, so the table alone opens nothing.
 */
export function newCareToken(secret: string): string {
  const nonce = randomBytes(18).toString('base64url');
  return `${nonce}.${signature(secret, nonce)}`;
}

function signature(secret: string, nonce: string): string {
  return createHmac('sha256', secret).update(`care-link:${nonce}`).digest('base64url');
}

/** Whether the token is one we signed (constant time). */
export function careTokenSigned(secret: string, token: string): boolean {
  const [nonce, given, extra] = token.split('.');
  if (!nonce || !given || extra !== undefined || token.length > 200) return false;
  const expected = Buffer.from(signature(secret, nonce));
  const received = Buffer.from(given);
  return expected.length === received.length && timingSafeEqual(expected, received);
}

export function hashCareToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
