import { SUBSCRIPTION_STATES_PATH, subscriptionStateCounts } from '@payrail/contracts';
import { callWithDeadline, DEFAULT_UPSTREAM_TIMEOUT_MS, signMerchantContext } from '@payrail/http';
import { currentTraceHeaders } from '@payrail/observability';
import type { Upstream } from '@payrail/runtime';
import type { SubscriptionStates } from '../../ports/subscription-states';

/** `GET /internal/reports/subscription-states?at=` of subscriptions, with the merchant context signed. */
export function httpSubscriptionStates(options: {
  subscriptions: Upstream;
  internalSecret: string;
  timeoutMs?: number;
}): SubscriptionStates {
  return {
    async at(merchant, instant) {
      const headers = new Headers(currentTraceHeaders());
      for (const [name, value] of Object.entries(signMerchantContext(merchant, options.internalSecret))) {
        headers.set(name, value);
      }
      const url = `http://internal${SUBSCRIPTION_STATES_PATH}?at=${encodeURIComponent(instant.toISOString())}`;
      try {
        const response = await callWithDeadline(
          options.subscriptions,
          new Request(url, { headers }),
          options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        );
        if (response.status !== 200) return undefined;
        const parsed = subscriptionStateCounts.safeParse(await response.json());
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
