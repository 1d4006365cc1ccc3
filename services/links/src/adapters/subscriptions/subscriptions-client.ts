import { subscriptionOfLinkPath, subscriptionOfLinkResponse } from '@payrail/contracts';
import { callWithDeadline, signMerchantContext, type Upstream, UpstreamTimeout } from '@payrail/http';
import { currentTraceHeaders } from '@payrail/observability';
import { type Subscriptions, SubscriptionsUnavailable } from '../../ports/subscriptions';

export interface SubscriptionsClientSettings {
  upstream: Upstream;
  internalSecret: string;
  /** A page view waits at most this long for the schedule. */
  timeoutMs: number;
}

/** subscriptions' internal route over HTTP (in memory when embedded), as the merchant of the link. */
export function subscriptionsClient(settings: SubscriptionsClientSettings): Subscriptions {
  return {
    async ofLink(merchant, linkId) {
      const path = subscriptionOfLinkPath(linkId);
      let response: Response;
      try {
        response = await callWithDeadline(
          settings.upstream,
          new Request(`http://subscriptions${path}`, {
            method: 'GET',
            headers: {
              accept: 'application/json',
              ...currentTraceHeaders(),
              ...signMerchantContext(merchant, settings.internalSecret),
            },
          }),
          settings.timeoutMs,
        );
      } catch (error) {
        throw new SubscriptionsUnavailable(
          error instanceof UpstreamTimeout
            ? `subscriptions did not answer GET ${path} in time`
            : `subscriptions unreachable: ${(error as Error).message}`,
        );
      }
      const text = await response.text();
      if (response.status === 404) return undefined;
      if (response.status !== 200) {
        throw new SubscriptionsUnavailable(`subscriptions answered ${response.status} to GET ${path}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new SubscriptionsUnavailable(`subscriptions answered GET ${path} with no JSON`);
      }
      const parsed = subscriptionOfLinkResponse.safeParse(json);
      if (!parsed.success) {
        throw new SubscriptionsUnavailable(`subscriptions answered GET ${path} out of contract`);
      }
      return parsed.data;
    },
  };
}
