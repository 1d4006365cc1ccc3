import {
  customerSubscriptionCancelPath,
  customerSubscriptionCardPath,
  customerSubscriptionCardResponse,
  customerSubscriptionsPath,
  customerSubscriptionsResponse,
  type MerchantContext,
  subscriptionOfLinkPath,
  subscriptionOfLinkResponse,
} from '@payrail/contracts';
import type { z } from 'zod';
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
  /** One call; 404 and 409 (not theirs, not active) answer undefined. */
  async function call<T>(
    merchant: MerchantContext,
    method: 'GET' | 'POST',
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
  ): Promise<T | undefined> {
    let response: Response;
    try {
      response = await callWithDeadline(
        settings.upstream,
        new Request(`http://subscriptions${path}`, {
          method,
          headers: {
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...currentTraceHeaders(),
            ...signMerchantContext(merchant, settings.internalSecret),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        settings.timeoutMs,
      );
    } catch (error) {
      throw new SubscriptionsUnavailable(
        error instanceof UpstreamTimeout
          ? `subscriptions did not answer ${method} ${path} in time`
          : `subscriptions unreachable: ${(error as Error).message}`,
      );
    }
    const text = await response.text();
    if (response.status === 404 || response.status === 409) return undefined;
    if (response.status !== 200) {
      throw new SubscriptionsUnavailable(`subscriptions answered ${response.status} to ${method} ${path}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SubscriptionsUnavailable(`subscriptions answered ${method} ${path} with no JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new SubscriptionsUnavailable(`subscriptions answered ${method} ${path} out of contract`);
    }
    return parsed.data;
  }

  return {
    async ofCustomer(merchant, customerId) {
      const found = await call(
        merchant,
        'GET',
        customerSubscriptionsPath(customerId),
        customerSubscriptionsResponse,
      );
      return found?.subscriptions ?? [];
    },

    async changeCard(merchant, customerId, subscriptionId, card) {
      return call(
        merchant,
        'POST',
        customerSubscriptionCardPath(customerId, subscriptionId),
        customerSubscriptionCardResponse,
        card,
      );
    },

    async cancel(merchant, customerId, subscriptionId) {
      const answer = await call(
        merchant,
        'POST',
        customerSubscriptionCancelPath(customerId, subscriptionId),
        customerSubscriptionCardResponse.pick({ subscription: true }),
        {},
      );
      return answer?.subscription;
    },

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
