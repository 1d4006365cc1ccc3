import type { MerchantContext } from '@payrail/contracts';
import { problems, requestHeader } from '@payrail/http';
import type { MiddlewareHandler } from 'hono';
import { hashToken, looksLikeToken } from '../../application/api-tokens';
import type { MerchantStore } from '../../ports/merchant-store';

/** `Api-Token` on every merchant endpoint: missing, malformed, unknown or revoked is 401. */
export function merchantAuth(
  store: MerchantStore,
): MiddlewareHandler<{ Variables: { merchant: MerchantContext } }> {
  return async (c, next) => {
    const token = requestHeader(c, 'api-token');
    if (!looksLikeToken(token)) throw problems.unauthorized();
    const merchant = await store.findByTokenHash(hashToken(token));
    if (!merchant) throw problems.unauthorized();
    c.set('merchant', merchant);
    await next();
  };
}
