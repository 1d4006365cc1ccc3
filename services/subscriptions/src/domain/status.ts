import type { INSTALLMENT_STATUSES, SUBSCRIPTION_STATUSES } from '@payrail/contracts';

export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export type InstallmentStatus = (typeof INSTALLMENT_STATUSES)[number];
export type SubscriptionType = 'STATIC' | 'DYNAMIC';
