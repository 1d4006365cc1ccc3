import { EVENT_RETENTION_DAYS } from '@payrail/contracts';
import { WebhookDeliveryNotFound } from '../../domain/errors';
import type { DeliveryStatus, WebhookDeliveryRecord } from '../../ports/webhook-delivery-store';
import type { LoggedEvent } from '../../ports/webhook-event-log';
import type { WebhookDeps } from './deps';
import { getWebhookEndpoint } from './endpoints';

export async function listWebhookDeliveries(
  deps: WebhookDeps,
  merchantId: string,
  query: { endpointId?: string; status?: DeliveryStatus; event?: string; cursor?: string; limit: number },
): Promise<{ deliveries: WebhookDeliveryRecord[]; nextCursor: string | null }> {
  const deliveries = await deps.deliveries.listDeliveries(merchantId, {
    endpointId: query.endpointId,
    status: query.status,
    kind: query.event,
    before: query.cursor === undefined ? undefined : Number(query.cursor),
    limit: query.limit + 1,
  });
  const page = deliveries.slice(0, query.limit);
  const more = deliveries.length > query.limit;
  return { deliveries: page, nextCursor: more ? String(page.at(-1)?.position) : null };
}

/** One more delivery of the same event to the same endpoint, now (its own, so it waits for nothing). */
export async function retryWebhookDelivery(
  deps: WebhookDeps,
  merchantId: string,
  deliveryId: string,
): Promise<{ deliveryId: string; eventId: string }> {
  const delivery = await deps.deliveries.findDelivery(merchantId, deliveryId);
  if (!delivery) throw new WebhookDeliveryNotFound(deliveryId);
  const [id] = await deps.deliveries.insertDeliveries([
    {
      endpointId: delivery.endpointId,
      merchantId,
      event: {
        seq: delivery.eventSeq,
        id: delivery.eventId,
        kind: delivery.kind,
        orderingKey: delivery.orderingKey,
      },
      origin: 'retry',
      orderingKey: `retry:${delivery.id}:${deps.clock.now().getTime()}`,
      now: deps.clock.now(),
    },
  ]);
  deps.deliveriesQueued();
  return { deliveryId: id as string, eventId: delivery.eventId };
}

/** Every event of [from, to) the endpoint takes, queued again in log order, each with its own id. */
export async function replayWebhookEvents(
  deps: WebhookDeps,
  merchantId: string,
  endpointId: string,
  range: { from: Date; to: Date },
): Promise<number> {
  const endpoint = await getWebhookEndpoint(deps, merchantId, endpointId);
  const events = await deps.eventLog.eventsBetween(merchantId, range.from, range.to, endpoint.events);
  const now = deps.clock.now();
  await deps.deliveries.insertDeliveries(
    events.map((event) => ({ endpointId, merchantId, event, origin: 'replay' as const, now })),
  );
  if (events.length > 0) deps.deliveriesQueued();
  return events.length;
}

/** A page of the merchant's event log after `after` (exclusive), oldest first. */
export async function listEvents(
  deps: WebhookDeps,
  merchantId: string,
  query: { after?: string; limit: number; type?: string },
): Promise<{ events: LoggedEvent[]; nextCursor: string | null; hasMore: boolean }> {
  const after = query.after === undefined ? 0 : Number(query.after);
  const rows = await deps.eventLog.listEvents(merchantId, {
    after,
    limit: query.limit + 1,
    kind: query.type,
  });
  const events = rows.slice(0, query.limit);
  const last = events.at(-1);
  return {
    events,
    nextCursor: last ? String(last.seq) : (query.after ?? null),
    hasMore: rows.length > query.limit,
  };
}

/** The log keeps 30 days; deliveries go with their events. */
export function purgeExpiredEvents(deps: Pick<WebhookDeps, 'eventLog' | 'clock'>): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  return deps.eventLog.purgeEventsBefore(cutoff);
}
