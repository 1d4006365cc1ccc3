import { adminWebhookApi, webhookApi } from '@payrail/contracts';
import { jsonAnswer, route } from '@payrail/http';
import type { Context, Env, Hono } from 'hono';
import type { z } from 'zod';
import type { WebhookDeps } from '../../application/webhooks/deps';
import {
  listEvents,
  listWebhookDeliveries,
  replayWebhookEvents,
  retryWebhookDelivery,
} from '../../application/webhooks/delivery-log';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhookEndpoint,
} from '../../application/webhooks/endpoints';
import { MerchantNotFound } from '../../domain/errors';
import type { MerchantStore } from '../../ports/merchant-store';
import type { WebhookDeliveryRecord } from '../../ports/webhook-delivery-store';
import type { WebhookEndpointRecord } from '../../ports/webhook-endpoint-store';
import type { LoggedEvent } from '../../ports/webhook-event-log';

/** An endpoint as responses show it: never a secret, a password or a header value. */
export function endpointView(endpoint: WebhookEndpointRecord, now: Date) {
  const overlap = endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return {
    id: endpoint.id,
    url: endpoint.url,
    method: endpoint.method,
    auth:
      endpoint.auth === null
        ? null
        : endpoint.auth.type === 'basic'
          ? { type: 'basic' as const, username: endpoint.auth.username }
          : { type: 'header' as const, name: endpoint.auth.name },
    events: endpoint.events,
    description: endpoint.description,
    status: endpoint.enabled ? ('enabled' as const) : ('disabled' as const),
    disabledAt: endpoint.disabledAt?.toISOString() ?? null,
    disabledReason: endpoint.disabledReason,
    previousSecretExpiresAt: overlap ? (endpoint.previousSecretExpiresAt as Date).toISOString() : null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

function deliveryView(delivery: WebhookDeliveryRecord) {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    event: delivery.kind,
    status: delivery.status,
    origin: delivery.origin,
    attempts: delivery.attempts.map((attempt) => ({
      attemptedAt: attempt.attemptedAt.toISOString(),
      statusCode: attempt.statusCode,
      durationMs: attempt.durationMs,
      response: attempt.response,
      error: attempt.error,
    })),
    nextAttemptAt: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  };
}

/** A page of `GET /api/events` as its schema takes it, and one of its envelopes. */
type EventPage = z.input<(typeof webhookApi.listEvents.responses)[200]['schema']>;
type EnvelopeAnswer = EventPage['events'][number];

/**
 * An envelope of the log as a page of `GET /api/events` answers it: the JSON text it was sent as (written
 * once by `serializeEnvelope`, amounts as numbers with two decimals), kept as it is. Typed as the schema's
 * envelope, which that text is, so that `route()` checks the page around it.
 */
class SentEnvelope {
  constructor(readonly text: string) {}
}

const asSent = (event: LoggedEvent) => new SentEnvelope(event.body) as unknown as EnvelopeAnswer;

/** The page's JSON with each envelope's text in it, byte for byte. */
function writeEventPage(page: EventPage): string {
  const envelopes = page.events.map((envelope) => (envelope as unknown as SentEnvelope).text);
  return `{"events":[${envelopes.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)},"hasMore":${page.hasMore}}`;
}

const merchantIdOf = (c: Context) => (c.get('merchant' as never) as { merchantId: string }).merchantId;

/** The merchant's webhook API, served by the gateway itself (it owns endpoints, deliveries and the log). */
export function merchantWebhookRoutes<E extends Env>(app: Hono<E>, deps: WebhookDeps): void {
  route(app, webhookApi.createWebhookEndpoint, async (c, { body }) => {
    const { endpoint, secret } = await createWebhookEndpoint(deps, merchantIdOf(c), body);
    return c.json({ ...endpointView(endpoint, deps.clock.now()), secret }, 201);
  });
  route(app, webhookApi.listWebhookEndpoints, async (c) => {
    const endpoints = await listWebhookEndpoints(deps, merchantIdOf(c));
    return c.json({ endpoints: endpoints.map((endpoint) => endpointView(endpoint, deps.clock.now())) });
  });
  route(app, webhookApi.getWebhookEndpoint, async (c, { params }) => {
    const endpoint = await getWebhookEndpoint(deps, merchantIdOf(c), params.id.toLowerCase());
    return c.json(endpointView(endpoint, deps.clock.now()));
  });
  route(app, webhookApi.updateWebhookEndpoint, async (c, { params, body }) => {
    const endpoint = await updateWebhookEndpoint(deps, merchantIdOf(c), params.id.toLowerCase(), body);
    return c.json(endpointView(endpoint, deps.clock.now()));
  });
  route(app, webhookApi.rotateWebhookSecret, async (c, { params }) => {
    const rotated = await rotateWebhookSecret(deps, merchantIdOf(c), params.id.toLowerCase());
    return c.json({
      secret: rotated.secret,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString(),
    });
  });
  route(app, webhookApi.testWebhookEndpoint, async (c, { params }) => {
    const queued = await sendTestEvent(deps, merchantIdOf(c), params.id.toLowerCase());
    return c.json({ ...queued, status: 'pending' as const }, 202);
  });
  route(app, webhookApi.listWebhookDeliveries, async (c, { query }) => {
    const page = await listWebhookDeliveries(deps, merchantIdOf(c), {
      ...query,
      endpointId: query.endpointId?.toLowerCase(),
    });
    return c.json({ deliveries: page.deliveries.map(deliveryView), nextCursor: page.nextCursor });
  });
  route(app, webhookApi.retryWebhookDelivery, async (c, { params }) => {
    const queued = await retryWebhookDelivery(deps, merchantIdOf(c), params.id.toLowerCase());
    return c.json({ ...queued, status: 'pending' as const }, 202);
  });
  route(app, webhookApi.replayWebhookEvents, async (c, { params, body }) => {
    const replayed = await replayWebhookEvents(deps, merchantIdOf(c), params.id.toLowerCase(), {
      from: new Date(body.from),
      to: new Date(body.to),
    });
    return c.json({ replayed }, 202);
  });
  route(app, webhookApi.deleteWebhookEndpoint, async (c, { params }) => {
    await deleteWebhookEndpoint(deps, merchantIdOf(c), params.id.toLowerCase());
    return c.body(null, 204);
  });
  route(app, webhookApi.listEvents, async (c, { query }) => {
    const page = await listEvents(deps, merchantIdOf(c), query);
    // The envelopes as they were sent (amounts written as numbers with two decimals), byte for byte.
    const answer = { events: page.events.map(asSent), nextCursor: page.nextCursor, hasMore: page.hasMore };
    return jsonAnswer(c, answer, 200, writeEventPage);
  });
}

/** The same, for the operator, under `/admin/merchants/{id}/webhook-endpoints` (the admin router). */
export function adminWebhookRoutes(admin: Hono, deps: WebhookDeps & { merchants: MerchantStore }): void {
  const mountedAt = { mountedAt: '/admin' };
  const merchantOf = async (id: string): Promise<string> => {
    const merchantId = id.toLowerCase();
    if (!(await deps.merchants.find(merchantId))) throw new MerchantNotFound(merchantId);
    return merchantId;
  };
  route(
    admin,
    adminWebhookApi.adminCreateWebhookEndpoint,
    async (c, { params, body }) => {
      const { endpoint, secret } = await merchantOf(params.id).then((merchantId) =>
        createWebhookEndpoint(deps, merchantId, body),
      );
      return c.json({ ...endpointView(endpoint, deps.clock.now()), secret }, 201);
    },
    mountedAt,
  );
  route(
    admin,
    adminWebhookApi.adminListWebhookEndpoints,
    async (c, { params }) => {
      const endpoints = await merchantOf(params.id).then((merchantId) =>
        listWebhookEndpoints(deps, merchantId),
      );
      return c.json({ endpoints: endpoints.map((endpoint) => endpointView(endpoint, deps.clock.now())) });
    },
    mountedAt,
  );
  route(
    admin,
    adminWebhookApi.adminGetWebhookEndpoint,
    async (c, { params }) => {
      const endpoint = await merchantOf(params.id).then((merchantId) =>
        getWebhookEndpoint(deps, merchantId, params.endpointId.toLowerCase()),
      );
      return c.json(endpointView(endpoint, deps.clock.now()));
    },
    mountedAt,
  );
  route(
    admin,
    adminWebhookApi.adminUpdateWebhookEndpoint,
    async (c, { params, body }) => {
      const endpoint = await merchantOf(params.id).then((merchantId) =>
        updateWebhookEndpoint(deps, merchantId, params.endpointId.toLowerCase(), body),
      );
      return c.json(endpointView(endpoint, deps.clock.now()));
    },
    mountedAt,
  );
  route(
    admin,
    adminWebhookApi.adminRotateWebhookSecret,
    async (c, { params }) => {
      const rotated = await merchantOf(params.id).then((merchantId) =>
        rotateWebhookSecret(deps, merchantId, params.endpointId.toLowerCase()),
      );
      return c.json({
        secret: rotated.secret,
        previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString(),
      });
    },
    mountedAt,
  );
  route(
    admin,
    adminWebhookApi.adminTestWebhookEndpoint,
    async (c, { params }) => {
      const queued = await merchantOf(params.id).then((merchantId) =>
        sendTestEvent(deps, merchantId, params.endpointId.toLowerCase()),
      );
      return c.json({ ...queued, status: 'pending' as const }, 202);
    },
    mountedAt,
  );
  route(
    admin,
    adminWebhookApi.adminDeleteWebhookEndpoint,
    async (c, { params }) => {
      await merchantOf(params.id).then((merchantId) =>
        deleteWebhookEndpoint(deps, merchantId, params.endpointId.toLowerCase()),
      );
      return c.body(null, 204);
    },
    mountedAt,
  );
}
