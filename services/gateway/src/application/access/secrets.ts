import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL-safe: a session, an invitation or a reset link. Only its hash is stored. */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A recovery code as people copy it: 10 letters and digits in two groups (`k7pq2-x9m4d`), about 50 bits. */
export function newRecoveryCode(): string {
  // 32 symbols, none of them easily mistaken for another (no i, l, o, 1): 5 random bits each.
  const alphabet = 'abcdefghjkmnpqrstuvwxyz023456789';
  const chars = [...randomBytes(10)].map((byte) => alphabet[byte & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A recovery code's hash, whatever the case and spacing it is typed in. */
export function hashRecoveryCode(code: string): string {
  return hashSecret(`recovery:${code.toLowerCase().replace(/[^a-z0-9]/g, '')}`);
}
