import { createHash, timingSafeEqual } from 'node:crypto';
import { problems } from '@payrail/http';
import type { MiddlewareHandler } from 'hono';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` on `/admin/*`. Compared through fixed-length digests in
 * constant time, so neither the token's content nor its length leaks through timing. Without an
 * `ADMIN_TOKEN` configured every operator call is refused.
 */
export function adminAuth(adminToken: string | undefined): MiddlewareHandler {
  const expected = adminToken ? digest(adminToken) : undefined;
  return async (c, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const given = match?.[1];
    if (!expected || !given || !timingSafeEqual(digest(given), expected)) {
      throw problems.unauthorized('Authorization: Bearer <admin token> missing or invalid');
    }
    await next();
  };
}
