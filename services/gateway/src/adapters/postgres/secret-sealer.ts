import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals webhook signing secrets and receiver credentials at rest (AES-256-GCM). The key comes from
 * `WEBHOOK_ENCRYPTION_KEY`, or else is derived from the internal secret (in embedded mode that one is
 * kept in DATA_DIR): a copy of the table alone reveals no secret.
 */
export interface SecretSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function secretSealer(keyMaterial: string): SecretSealer {
  const key = createHash('sha256').update(`gateway:webhook-secrets:v1:${keyMaterial}`).digest();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${sealed.toString('base64url')}`;
    },
    open(stored) {
      const [version, iv, tag, sealed] = stored.split('.');
      if (version !== 'v1' || !iv || !tag || sealed === undefined)
        throw new Error('unreadable sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
