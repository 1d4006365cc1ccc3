import { DEFAULT_TIMEZONE } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import type { CustomerEmailOutbox, CustomerEmailStore } from '../../ports/customer-email-store';
import type { MerchantProfiles } from '../../ports/merchant-profiles';
import { careTokenSigned, hashCareToken } from './care-links';
import { merchantNow } from './merchant-time';

export interface OpenCareLinkDeps {
  outbox: CustomerEmailOutbox;
  emails: Pick<CustomerEmailStore, 'simulatedDay'>;
  merchants: Pick<MerchantProfiles, 'find'>;
  clock: Clock;
  simulatedTime: boolean;
  secret: string;
}

export type CareLinkOutcome =
  | { kind: 'opened'; merchantId: string; customerId: number; subscriptionId: number }
  | { kind: 'invalid' }
  | { kind: 'used' }
  | { kind: 'expired' };

/**
 * `GET /pay/care/{token}`: a token we did not sign (edited, made up) or do not know is invalid; a used one,
 * or one past its 7 days of the merchant's time, is refused; else it is used up, once, whoever clicks twice.
 */
export async function openCareLink(deps: OpenCareLinkDeps, token: string): Promise<CareLinkOutcome> {
  if (!careTokenSigned(deps.secret, token)) return { kind: 'invalid' };
  const hash = hashCareToken(token);
  const link = await deps.outbox.careLink(hash);
  if (!link) return { kind: 'invalid' };
  if (link.usedAt) return { kind: 'used' };
  const timezone = (await deps.merchants.find(link.merchantId))?.timezone ?? DEFAULT_TIMEZONE;
  if ((await merchantNow(deps, link.merchantId, timezone)) >= link.expiresAt) return { kind: 'expired' };
  if (!(await deps.outbox.consumeCareLink(hash, deps.clock.now()))) return { kind: 'used' };
  return {
    kind: 'opened',
    merchantId: link.merchantId,
    customerId: link.customerId,
    subscriptionId: link.subscriptionId,
  };
}
