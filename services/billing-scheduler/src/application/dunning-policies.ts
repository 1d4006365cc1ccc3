import { DEFAULT_DUNNING_POLICY } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import type { DunningPolicy } from '../domain/dunning-policy';
import type { DunningPolicyStore } from '../ports/dunning-policy-store';

export interface DunningPolicyView extends DunningPolicy {
  merchantId: string;
  isDefault: boolean;
  updatedAt: Date | null;
}

export async function getDunningPolicy(
  deps: { policies: DunningPolicyStore },
  merchantId: string,
): Promise<DunningPolicyView> {
  return dunningPolicyOf(deps.policies, merchantId.toLowerCase());
}

/** The policy a merchant's declines follow: its own, or `DEFAULT_DUNNING_POLICY` until the operator sets one. */
export async function dunningPolicyOf(
  policies: DunningPolicyStore,
  merchantId: string,
): Promise<DunningPolicyView> {
  const stored = await policies.policy(merchantId);
  if (!stored) return { merchantId, ...DEFAULT_DUNNING_POLICY, isDefault: true, updatedAt: null };
  return { merchantId, ...stored, isDefault: false };
}

/** From the next decline on; retries already scheduled keep their day. */
export async function setDunningPolicy(
  deps: { policies: DunningPolicyStore; clock: Clock },
  merchantId: string,
  policy: DunningPolicy,
): Promise<DunningPolicyView> {
  const id = merchantId.toLowerCase();
  const stored = await deps.policies.savePolicy(id, policy, deps.clock.now());
  return { merchantId: id, ...stored, isDefault: false };
}
