import { createEvent } from '@payrail/contracts';
import { batchingHandler, type DeliveredMessage } from '@payrail/messaging';
import { describe, expect, it } from 'vitest';
import { recordWebhookEventsOnEvents } from '../../src/adapters/messaging/record-webhook-events-on-events.consumer';
import type { CreatedLinkRecorder, WebhookStores, WebhookUnitOfWork } from '../../src/ports/unit-of-work';
import type { ProjectedLink } from '../../src/ports/webhook-projection';
import { linkCreatedEvent, linkPaidEvent } from './link-events';

const merchantId = '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f';
const at = new Date('2026-11-22T10:00:00.000Z');

/** The consumer's stores in memory: a projection of links, and the envelopes appended. */
function memoryUnitOfWork() {
  const links = new Map<number, ProjectedLink>();
  const appended: Array<{ id: string; kind: string; body: string }> = [];
  /** Sizes of the batches handed to the consumer's work. */
  const batches: number[] = [];
  const writer = {
    async saveLink(link: ProjectedLink) {
      links.set(link.linkId, link);
    },
    async saveLinks(saved: ProjectedLink[]) {
      for (const link of saved) links.set(link.linkId, link);
    },
    async findLink(linkId: number) {
      return links.get(linkId) ?? null;
    },
    async setLinkStatus(linkId: number, statusId: number) {
      const link = links.get(linkId);
      if (link) links.set(linkId, { ...link, statusId });
    },
    async setLinkStatuses(changes: Array<{ linkId: number; statusId: number }>) {
      for (const { linkId, statusId } of changes) await writer.setLinkStatus(linkId, statusId);
    },
    async findSubscription() {
      return null;
    },
    async appendEvent(event: { id: string; kind: string; body: string }) {
      appended.push(event);
      return { ...event, seq: appended.length };
    },
    // The batch path: the links it names read at once, its envelopes appended together.
    async loadProjection({ linkIds }: { linkIds: number[] }) {
      const known = linkIds.flatMap((linkId) => links.get(linkId) ?? []);
      return { links: known, subscriptions: [], installments: [], paidCounts: [] };
    },
    async findPaidCount() {
      return 0;
    },
    async savePaidCounts() {},
    async putInstallments() {},
    async appendEvents(events: Array<{ id: string; kind: string; body: string }>) {
      appended.push(...events);
      return events.length;
    },
  };
  // One object plays both stores: the projection and the log.
  const stores = { projection: writer, eventLog: writer } as unknown as WebhookStores;
  const handled = new Set<string>();
  const createdLinks: CreatedLinkRecorder = {
    handlerFor: (_consumer, linkOf) => async (message) => {
      if (handled.has(message.id)) return;
      handled.add(message.id);
      await writer.saveLink(linkOf(message));
    },
  };
  const unitOfWork: WebhookUnitOfWork = {
    handlerFor: (_consumer, work) => (message) => work(stores, message),
    // No transaction here: a batch that fails is handled again message by message, as in PostgreSQL.
    batchHandlerFor: (_consumer, { maxBatch, ordered, single }, work) =>
      batchingHandler({
        maxBatch,
        gatherMs: 5,
        ordered,
        handleOne: single ?? ((message) => work(stores, [{ message, run: (task) => task() }])),
        handleBatch: async (messages) => {
          batches.push(messages.length);
          await work(
            stores,
            messages.map((message) => ({ message, run: (task) => task() })),
          );
        },
      }),
  };
  return { unitOfWork, createdLinks, appended, links, batches };
}

const message = (event: ReturnType<typeof createEvent>): DeliveredMessage => ({
  id: event.id,
  type: event.type,
  body: JSON.stringify(event),
  headers: {},
  attempt: 1,
});

const createdEvent = (linkId: number, label: string) => linkCreatedEvent(merchantId, linkId, label, at);
const paidEvent = (linkId: number) => linkPaidEvent(merchantId, linkId, at);

const labelOf = (body: string) => (JSON.parse(body) as { data: { label: string | null } }).data.label;

describe('recording bus events into the webhook log', () => {
  it('wakes the delivery worker only for an event that appended an envelope', async () => {
    const { unitOfWork, createdLinks, appended, links } = memoryUnitOfWork();
    let wakes = 0;
    const subscription = recordWebhookEventsOnEvents(unitOfWork, createdLinks, () => {
      wakes += 1;
    });
    const created = createdEvent(7, 'Gym');
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

  it('records a batch in delivery order: a link created and paid in one batch has its label', async () => {
    const { unitOfWork, createdLinks, appended, batches } = memoryUnitOfWork();
    let wakes = 0;
    const subscription = recordWebhookEventsOnEvents(unitOfWork, createdLinks, () => {
      wakes += 1;
    });
    // Delivered together, as the bus does with a prefetch above one.
    await Promise.all(
      [createdEvent(8, 'Yoga'), paidEvent(8), createdEvent(9, 'Swim'), paidEvent(9)].map((event) =>
        subscription.handler(message(event)),
      ),
    );
    expect(batches).toEqual([4]);
    expect(appended.map(({ kind, body }) => [kind, labelOf(body)])).toEqual([
      ['PAYMENT_SUCCESS', 'Yoga'],
      ['PAYMENT_SUCCESS', 'Swim'],
    ]);
    // Once for the batch's transaction, not once per envelope.
    expect(wakes).toBe(1);
  });

  it("keeps each link's order across batches that follow one another", async () => {
    const { unitOfWork, createdLinks, appended, batches } = memoryUnitOfWork();
    const subscription = recordWebhookEventsOnEvents(unitOfWork, createdLinks, () => {});
    // One lone creation first, so that a link's two events straddle the first batch's end.
    const events = [
      createdEvent(99, 'Lone'),
      ...Array.from({ length: 60 }, (_, index) => [
        createdEvent(100 + index, `Link ${index}`),
        paidEvent(100 + index),
      ]).flat(),
    ];
    await Promise.all(events.map((event) => subscription.handler(message(event))));
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(121);
    expect(appended.map(({ body }) => labelOf(body))).toEqual(
      Array.from({ length: 60 }, (_, index) => `Link ${index}`),
    );
  });
});
