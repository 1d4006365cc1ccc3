import { createHash, timingSafeEqual } from 'node:crypto';
import { problems } from '@payrail/http';
import type { MiddlewareHandler } from 'hono';
import type { OperatorPrincipal } from '../../domain/access/principal';
import { clientAddressOf } from './forward';
import { inProcessCallerOf } from './in-process-caller';

const digest = (value: string) => createHash('sha256').update(value).digest();

export interface OperatorAuthVariables {
  operator: OperatorPrincipal;
  clientAddress: string | null;
}

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` on `/admin/*`. Compared through fixed-length digests in
 * constant time, so neither the token's content nor its length leaks through timing. Without an
 * `ADMIN_TOKEN` configured every bearer call is refused. An operator's console account acting through
 * the API comes in process, already signed in (`in-process-caller.ts`).
 */
export function adminAuth(
  adminToken: string | undefined,
): MiddlewareHandler<{ Variables: OperatorAuthVariables }> {
  const expected = adminToken ? digest(adminToken) : undefined;
  return async (c, next) => {
    const caller = inProcessCallerOf(c);
    if (caller?.kind === 'operator') {
      c.set('operator', caller.principal);
      c.set('clientAddress', caller.clientAddress);
      return next();
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const given = match?.[1];
    if (!expected || !given || !timingSafeEqual(digest(given), expected)) {
      throw problems.unauthorized('Authorization: Bearer <admin token> missing or invalid');
    }
    c.set('operator', { kind: 'operator-token' });
    c.set('clientAddress', clientAddressOf(c) ?? null);
    await next();
  };
}
