import type { SubscriptionStatus } from '../domain/subscription-status';

export interface ProjectedSubscription {
  subscriptionId: number;
  merchantId: string;
  status: SubscriptionStatus;
  timezone: string;
}

/** The projection of subscriptions' status and time zone, bound to one transaction (a consumer's). */
export interface SubscriptionProjection {
  subscription(subscriptionId: number): Promise<ProjectedSubscription | undefined>;
  /**
   * The subscription's row, locked until the transaction ends; when there is none yet, `reported` is written
   * first (so that a transaction projecting another event of it waits for this one, and reads after it).
   */
  lockSubscription(reported: ProjectedSubscription): Promise<ProjectedSubscription>;
  saveSubscription(subscription: ProjectedSubscription): Promise<void>;
}
