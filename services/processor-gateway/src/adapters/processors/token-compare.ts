import { timingSafeEqual } from 'node:crypto';

/** Constant-time comparison of two hex tokens, so a forged token cannot be found byte by byte. */
export function sameToken(expected: string, received: unknown): boolean {
  if (typeof received !== 'string') return false;
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(received.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
