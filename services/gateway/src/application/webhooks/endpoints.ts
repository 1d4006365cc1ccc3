import { randomUUID } from 'node:crypto';
import {
  type CreateWebhookEndpointRequest,
  DEFAULT_WEBHOOK_EVENTS,
  SECRET_ROTATION_OVERLAP_HOURS,
  type UpdateWebhookEndpointRequest,
  WEBHOOK_TEST_KIND,
} from '@payrail/contracts';
import { InvalidWebhookEndpoint, WebhookEndpointNotFound } from '../../domain/errors';
import {
  emptyEnvelopeBase,
  envelopeData,
  serializeEnvelope,
  type WebhookEnvelope,
} from '../../domain/webhooks/envelope';
import { envelopeId } from './envelope-id';
import { refusedWebhookUrl } from './network';
import { newSigningSecret } from './signature';
import type { WebhookEndpointRecord } from '../../ports/webhook-endpoint-store';
import type { WebhookDeps } from './deps';

function checkUrl(deps: WebhookDeps, url: string): void {
  const refused = refusedWebhookUrl(url, deps.allowPrivateNetworks);
  if (refused) throw new InvalidWebhookEndpoint('url', refused);
}

/** A new endpoint and its signing secret (returned this once). */
export async function createWebhookEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  request: CreateWebhookEndpointRequest,
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  checkUrl(deps, request.url);
  const now = deps.clock.now();
  const endpoint: WebhookEndpointRecord = {
    id: randomUUID(),
    merchantId,
    url: request.url,
    method: request.method,
    auth: request.auth ?? null,
    // Without `events`: the payment events, what receivers in the field are written for.
    events: request.events ?? [...DEFAULT_WEBHOOK_EVENTS],
    description: request.description ?? null,
    secret: newSigningSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: true,
    disabledAt: null,
    disabledReason: null,
    lastSuccessAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.endpoints.insertEndpoint(endpoint);
  return { endpoint, secret: endpoint.secret };
}

export async function getWebhookEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  id: string,
): Promise<WebhookEndpointRecord> {
  const endpoint = await deps.endpoints.findEndpoint(merchantId, id);
  if (!endpoint) throw new WebhookEndpointNotFound(id);
  return endpoint;
}

export function listWebhookEndpoints(
  deps: WebhookDeps,
  merchantId: string,
): Promise<WebhookEndpointRecord[]> {
  return deps.endpoints.listEndpoints(merchantId);
}

export async function updateWebhookEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  id: string,
  request: UpdateWebhookEndpointRequest,
): Promise<WebhookEndpointRecord> {
  if (request.url !== undefined) checkUrl(deps, request.url);
  const now = deps.clock.now();
  const { enabled, ...fields } = request;
  const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  // `events: null` is the default again, as for a new endpoint.
  if (fields.events === null) changes.events = [...DEFAULT_WEBHOOK_EVENTS];
  const updated = await deps.endpoints.updateEndpoint(merchantId, id, {
    ...changes,
    ...(enabled === undefined
      ? {}
      : enabled
        ? { enabled: true, disabledAt: null, disabledReason: null }
        : { enabled: false, disabledAt: now, disabledReason: 'merchant' }),
    updatedAt: now,
  });
  if (!updated) throw new WebhookEndpointNotFound(id);
  if (enabled) deps.deliveriesQueued();
  return updated;
}

export async function deleteWebhookEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  id: string,
): Promise<void> {
  if (!(await deps.endpoints.deleteEndpoint(merchantId, id))) throw new WebhookEndpointNotFound(id);
}

/** A new secret; the previous one keeps signing beside it for 24 hours, so the receiver can switch over. */
export async function rotateWebhookSecret(
  deps: WebhookDeps,
  merchantId: string,
  id: string,
): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
  const endpoint = await getWebhookEndpoint(deps, merchantId, id);
  const now = deps.clock.now();
  const secret = newSigningSecret();
  const previousSecretExpiresAt = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_HOURS * 3_600_000);
  const updated = await deps.endpoints.updateEndpoint(merchantId, id, {
    secret,
    previousSecret: endpoint.secret,
    previousSecretExpiresAt,
    updatedAt: now,
  });
  if (!updated) throw new WebhookEndpointNotFound(id);
  return { secret, previousSecretExpiresAt };
}

/** Queues a `WEBHOOK_TEST` envelope for this endpoint alone. */
export async function sendTestEvent(
  deps: WebhookDeps,
  merchantId: string,
  id: string,
): Promise<{ deliveryId: string; eventId: string }> {
  const endpoint = await getWebhookEndpoint(deps, merchantId, id);
  const now = deps.clock.now();
  const envelope: WebhookEnvelope = {
    id: envelopeId(`test:${randomUUID()}`, 0),
    event: WEBHOOK_TEST_KIND,
    createdAt: now.toISOString(),
    // The base fields as a receiver's table needs them, and nothing that reads as a payment.
    data: envelopeData(WEBHOOK_TEST_KIND, emptyEnvelopeBase(), null, { endpointId: endpoint.id }),
  };
  const event = await deps.eventLog.appendEvent({
    id: envelope.id,
    merchantId,
    kind: WEBHOOK_TEST_KIND,
    orderingKey: `test:${envelope.id}`,
    body: serializeEnvelope(envelope),
    createdAt: now,
  });
  if (!event) throw new Error('a fresh test event id collided');
  const [deliveryId] = await deps.deliveries.insertDeliveries([
    { endpointId: endpoint.id, merchantId, event, origin: 'test', now },
  ]);
  deps.deliveriesQueued();
  return { deliveryId: deliveryId as string, eventId: envelope.id };
}
