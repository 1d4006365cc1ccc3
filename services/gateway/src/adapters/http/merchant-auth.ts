import type { MerchantContext } from '@payrail/contracts';
import { problems, requestHeader } from '@payrail/http';
import type { Logger } from '@payrail/observability';
import type { MiddlewareHandler } from 'hono';
import { LAST_USED_RESOLUTION_MS } from '../../application/access/api-tokens';
import { hashToken, looksLikeToken } from '../../application/api-tokens';
import type { MerchantPrincipal } from '../../domain/access/principal';
import type { MerchantStore } from '../../ports/merchant-store';
import { clientAddressOf } from './forward';
import { inProcessCallerOf } from './in-process-caller';

export interface MerchantAuthVariables {
  merchant: MerchantContext;
  /** Who is calling: the token, or the console user acting through the API. */
  principal: MerchantPrincipal;
  clientAddress: string | null;
}

/**
 * `Api-Token` on every merchant endpoint: missing, malformed, unknown or revoked is 401. A console page's
 * in-process call comes already authenticated as its user (`in-process-caller.ts`). A token's use is
 * recorded at most once a minute per token and replica, after the answer, never holding the request.
 */
export function merchantAuth(
  store: MerchantStore,
  recordUse: (tokenId: string) => Promise<void>,
  logger: Logger,
): MiddlewareHandler<{ Variables: MerchantAuthVariables }> {
  const recorded = new Map<string, number>();
  return async (c, next) => {
    const caller = inProcessCallerOf(c);
    if (caller?.kind === 'merchant') {
      c.set('merchant', caller.merchant);
      c.set('principal', caller.principal);
      c.set('clientAddress', caller.clientAddress);
      return next();
    }
    const token = requestHeader(c, 'api-token');
    if (!looksLikeToken(token)) throw problems.unauthorized();
    const holder = await store.findByTokenHash(hashToken(token));
    if (!holder) throw problems.unauthorized();
    c.set('merchant', holder.merchant);
    c.set('principal', { kind: 'token', ...holder.token });
    c.set('clientAddress', clientAddressOf(c) ?? null);
    const now = Date.now();
    if (now - (recorded.get(holder.token.tokenId) ?? 0) >= LAST_USED_RESOLUTION_MS) {
      if (recorded.size > 10_000) recorded.clear();
      recorded.set(holder.token.tokenId, now);
      recordUse(holder.token.tokenId).catch((error) =>
        logger.warn({ err: error }, "could not record an API token's last use"),
      );
    }
    await next();
  };
}
