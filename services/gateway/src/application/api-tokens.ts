import { createHash, randomUUID } from 'node:crypto';

/**
 * Tokens are UUIDs with 122 random bits; a plain SHA-256 is enough to make a leaked table useless
 * (no dictionary to try), and lets us look a token up by its hash.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token.trim().toLowerCase()).digest('hex');
}

export function newApiToken(): string {
  return randomUUID();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function looksLikeToken(value: string | undefined): value is string {
  return !!value && UUID.test(value.trim());
}
