import type { DunningPolicy } from '../domain/dunning-policy';

export interface StoredDunningPolicy extends DunningPolicy {
  updatedAt: Date | null;
}

/** The merchants' own dunning policies (a merchant without one has `DEFAULT_DUNNING_POLICY`). */
export interface DunningPolicyStore {
  policy(merchantId: string): Promise<StoredDunningPolicy | undefined>;
  savePolicy(merchantId: string, policy: DunningPolicy, at: Date): Promise<StoredDunningPolicy>;
}
