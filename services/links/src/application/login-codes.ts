import { createHash } from 'node:crypto';

/** Only the hash of a login code is stored: a leaked table opens no session. */
export function hashLoginCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
