import { createEvent } from '@payrail/contracts';
import type { DeliveredMessage } from '@payrail/messaging';
import { describe, expect, it } from 'vitest';
import { recordWebhookEventsOnEvents } from '../../src/adapters/messaging/record-webhook-events-on-events.consumer';
import type {
  ProjectedLink,
  WebhookConsumerUnitOfWork,
  WebhookEventWriter,
} from '../../src/ports/webhook-store';

const merchantId = '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f';
const at = new Date('2026-11-22T10:00:00.000Z');

/** The consumer's writer in memory: a projection of links, and the envelopes appended. */
function memoryUnitOfWork() {
  const links = new Map<number, ProjectedLink>();
  const appended: string[] = [];
  const writer = {
    async saveLink(link: ProjectedLink) {
      links.set(link.linkId, link);
    },
    async findLink(linkId: number) {
      return links.get(linkId) ?? null;
    },
    async setLinkStatus(linkId: number, statusId: number) {
      const link = links.get(linkId);
      if (link) links.set(linkId, { ...link, statusId });
    },
    async findSubscription() {
      return null;
    },
    async appendEvent(event: { id: string }) {
      appended.push(event.id);
      return { ...event, seq: appended.length };
    },
  } as unknown as WebhookEventWriter;
  const handled = new Set<string>();
  const unitOfWork: WebhookConsumerUnitOfWork = {
    handlerFor: (_consumer, work) => (message) => work(writer, message),
    linkSaverFor: (_consumer, linkOf) => async (message) => {
      if (handled.has(message.id)) return;
      handled.add(message.id);
      await writer.saveLink(linkOf(message));
    },
  };
  return { unitOfWork, appended, links };
}

const message = (event: ReturnType<typeof createEvent>): DeliveredMessage => ({
  id: event.id,
  type: event.type,
  body: JSON.stringify(event),
  headers: {},
  attempt: 1,
});

describe('recording bus events into the webhook log', () => {
  it('wakes the delivery worker only for an event that appended an envelope', async () => {
    const { unitOfWork, appended, links } = memoryUnitOfWork();
    let wakes = 0;
    const subscription = recordWebhookEventsOnEvents(unitOfWork, () => {
      wakes += 1;
    });
    const created = createEvent(
      'link.created',
      {
        linkId: 7,
        merchantId,
        slug: 'abc',
        label: 'Gym',
        amount: '150000.00',
        currency: 'PYG',
        customIdentifier: null,
        customIdentifier2: null,
        paymentMethods: [],
        timezone: 'America/Asuncion',
        createdAt: at.toISOString(),
        createdOn: '2026-11-22',
        recurrence: null,
      },
      at,
    );
    await subscription.handler(message(created));
    expect(appended).toEqual([]);
    expect(wakes).toBe(0);
    // The creation is in the projection (what the cancellation's envelope is filled from).
    expect(links.get(7)).toMatchObject({ merchantId, label: 'Gym', amount: '150000.00', statusId: 1 });

    const cancelled = createEvent(
      'link.cancelled',
      {
        linkId: 7,
        merchantId,
        amount: '150000.00',
        currency: 'PYG',
        cancelledAt: at.toISOString(),
        reason: 'merchant',
      },
      at,
    );
    await subscription.handler(message(cancelled));
    expect(appended).toHaveLength(1);
    expect(wakes).toBe(1);
  });
});
