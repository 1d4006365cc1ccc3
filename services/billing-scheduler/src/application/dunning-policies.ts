import type { Clock } from '@payrail/time';
import { DEFAULT_DUNNING_POLICY, type DunningPolicy } from '../domain/dunning-policy';
import type { RunStore } from '../ports/billing-store';

export interface DunningPolicyView extends DunningPolicy {
  merchantId: string;
  isDefault: boolean;
  updatedAt: Date | null;
}

export async function getDunningPolicy(
  deps: { runs: RunStore },
  merchantId: string,
): Promise<DunningPolicyView> {
  const id = merchantId.toLowerCase();
  const stored = await deps.runs.policy(id);
  if (!stored) return { merchantId: id, ...DEFAULT_DUNNING_POLICY, isDefault: true, updatedAt: null };
  return { merchantId: id, ...stored, isDefault: false };
}

/** From the next decline on; retries already scheduled keep their day. */
export async function setDunningPolicy(
  deps: { runs: RunStore; clock: Clock },
  merchantId: string,
  policy: DunningPolicy,
): Promise<DunningPolicyView> {
  const id = merchantId.toLowerCase();
  const stored = await deps.runs.savePolicy(id, policy, deps.clock.now());
  return { merchantId: id, ...stored, isDefault: false };
}
