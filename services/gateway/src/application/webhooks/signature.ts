import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key bytes. */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a whsec_ secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/**
 * The Standard Webhooks signature: HMAC-SHA256 over `{id}.{timestamp}.{body}`, base64, as `v1,<sig>`; with
 * several secrets (the 24 h after a rotation) one signature per secret, space separated, so a receiver
 * holding either secret verifies.
 */
export function signatureHeader(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', keyOf(secret))
        .update(`${id}.${timestampSeconds}.${body}`)
        .digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
}
