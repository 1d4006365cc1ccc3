import type { Clock } from '@payrail/time';
import { DEFAULT_DUNNING_POLICY, type DunningPolicy } from '../domain/dunning-policy';
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
  const id = merchantId.toLowerCase();
  const stored = await deps.policies.policy(id);
  if (!stored) return { merchantId: id, ...DEFAULT_DUNNING_POLICY, isDefault: true, updatedAt: null };
  return { merchantId: id, ...stored, isDefault: false };
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
