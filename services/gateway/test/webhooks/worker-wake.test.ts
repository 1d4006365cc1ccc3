import { createLogger } from '@payrail/observability';
import { describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/application/webhooks/deliver-webhooks';
import type { ClaimedDelivery, WebhookDeliveryStore } from '../../src/ports/webhook-delivery-store';
import { endpointNamed } from './worker-endpoints';

// The worker looks for due deliveries when a send ends (wake), not only every poll interval. A wake that
// comes while a look is ending (after its last check for more, before it lets go) must not be lost: the
// look it asked for would otherwise wait for the next interval. Here the interval is an hour and each
// endpoint takes one send at a time. Endpoint A has one delivery, B two: B's second is claimed only because
// the end of B's first woke the worker, and that wake comes while the look woken by the end of A's send
// (which finds nothing: A has no more, B is busy) is ending, for some of the counts of microtask turns the
// sends and the claim take. Every combination of small counts is tried.

async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await Promise.resolve();
}

/** Due deliveries per endpoint, claimed oldest first, at most `perEndpoint - busy` of one endpoint. */
function storeOf(queues: Record<string, number>, claimTurns: number) {
  const due = Object.entries(queues).flatMap(([name, count]) =>
    Array.from(
      { length: count },
      (_, index): ClaimedDelivery => ({
        id: `${name}-${index}`,
        eventId: `evt_${name}_${index}`,
        eventBody: '{}',
        attemptCount: 0,
        createdAt: new Date('2026-11-24T10:00:00Z'),
        endpoint: endpointNamed(name),
      }),
    ),
  );
  const delivered: string[] = [];
  const store: WebhookDeliveryStore = {
    insertDeliveries: async () => [],
    findDelivery: async () => null,
    listDeliveries: async () => [],
    async claimDue({ limit, perEndpoint, busy }) {
      await turns(claimTurns);
      const taken = new Map(busy);
      const claimed: ClaimedDelivery[] = [];
      for (const delivery of [...due]) {
        const inFlight = taken.get(delivery.endpoint.id) ?? 0;
        if (claimed.length >= limit || inFlight >= perEndpoint) continue;
        taken.set(delivery.endpoint.id, inFlight + 1);
        claimed.push(delivery);
        due.splice(due.indexOf(delivery), 1);
      }
      return claimed;
    },
    releaseClaims: async () => {},
    async recordAttempt(deliveryId) {
      delivered.push(deliveryId);
      return { endpointDisabled: false };
    },
    async recordDelivered(items) {
      for (const { deliveryId } of items) delivered.push(deliveryId);
    },
  };
  return { store, delivered };
}

async function deliverAll(sendTurns: Record<string, number>, claimTurns: number): Promise<string[]> {
  const { store, delivered } = storeOf({ a: 1, b: 2 }, claimTurns);
  const worker = createDeliveryWorker(
    {
      deliveries: store,
      send: async (request) => {
        await turns(sendTurns[request.url.split('/').at(-1) as string] ?? 0);
        return { statusCode: 200, durationMs: 1, responseExcerpt: 'ok', error: null };
      },
      clock: { now: () => new Date('2026-11-24T10:00:00Z') },
      logger: createLogger('gateway', 'silent'),
    },
    {
      retryDelaysMs: [5_000],
      concurrency: 8,
      perEndpointConcurrency: 1,
      pollIntervalMs: 3_600_000,
      leaseMs: 60_000,
    },
  );
  worker.start();
  // Every turn of the microtask queue runs before the next macrotask: by then the worker is done or stuck.
  await new Promise((resolve) => setImmediate(resolve));
  await worker.stop();
  return delivered;
}

describe('the delivery worker woken by the end of a send', () => {
  it('never loses a wake that comes while a look for due deliveries is ending', async () => {
    const stalled: string[] = [];
    for (let claimTurns = 0; claimTurns <= 3; claimTurns += 1)
      for (let a = 0; a <= 3; a += 1)
        for (let b = 0; b <= 24; b += 1) {
          const delivered = await deliverAll({ a, b }, claimTurns);
          if (delivered.length !== 3)
            stalled.push(`claim ${claimTurns}, a ${a}, b ${b}: ${delivered.join(' ')}`);
        }
    expect(stalled).toEqual([]);
  });
});
