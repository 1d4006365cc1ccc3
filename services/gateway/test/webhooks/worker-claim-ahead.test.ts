import { createLogger } from '@payrail/observability';
import { describe, expect, it } from 'vitest';
import {
  createDeliveryWorker,
  type DeliveryWorkerSettings,
} from '../../src/application/webhooks/deliver-webhooks';
import type { ClaimedDelivery, WebhookDeliveryStore } from '../../src/ports/webhook-delivery-store';
import type { WebhookResponse } from '../../src/ports/webhook-sender';
import { endpointNamed } from './worker-endpoints';

// The worker claims ahead of its free send slots: under load each claim takes many deliveries (a claim
// is three statements, and one taking the one or two deliveries a single ended send made room for cost
// more than the deliveries' own records), while an endpoint's cap counts what waits in the worker with
// what is in flight (a hanging receiver still holds at most its cap), and what waits is let go of when
// the worker stops or when it waited too long for its lease to cover a send.

const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Due deliveries of endpoints named by letter (`queues`: how many each), claimed oldest first (round
 * robin over the endpoints) and at most `perEndpoint - busy` of one endpoint, as the real claim;
 * sends answered only when the test says so. It keeps what each endpoint holds: claimed and neither
 * answered nor released.
 */
function harness(options: {
  queues: Record<string, number>;
  settings?: Partial<DeliveryWorkerSettings>;
  now?: () => Date;
  /** Records wait until `openRecords()` (PostgreSQL slow to commit). */
  holdRecords?: boolean;
}) {
  let openRecords: () => void = () => {};
  const recordsOpen = options.holdRecords
    ? new Promise<void>((resolve) => {
        openRecords = resolve;
      })
    : Promise.resolve();
  const due: ClaimedDelivery[] = [];
  const longest = Math.max(...Object.values(options.queues));
  for (let index = 0; index < longest; index += 1)
    for (const [name, count] of Object.entries(options.queues))
      if (index < count)
        due.push({
          id: `${name}-${index}`,
          eventId: `evt_${name}_${index}`,
          eventBody: '{}',
          attemptCount: 0,
          createdAt: new Date('2026-11-24T10:00:00Z'),
          endpoint: endpointNamed(name),
        });
  const claims: Array<{ limit: number; taken: number; busy: Map<string, number> }> = [];
  const held = new Map<string, Set<string>>();
  let mostHeld = 0;
  const recorded: string[] = [];
  const released: Array<{ id: string; leaseUntil: Date }> = [];
  const leases = new Map<string, Date>();
  const answers = new Map<string, (response: WebhookResponse) => void>();
  const letGo = (id: string) => {
    for (const ids of held.values()) ids.delete(id);
  };
  const store: WebhookDeliveryStore = {
    insertDeliveries: async () => [],
    findDelivery: async () => null,
    listDeliveries: async () => [],
    async claimDue({ limit, perEndpoint, busy, leaseUntil }) {
      const taken = new Map(busy);
      const claimed: ClaimedDelivery[] = [];
      for (const delivery of [...due]) {
        const count = taken.get(delivery.endpoint.id) ?? 0;
        if (claimed.length >= limit || count >= perEndpoint) continue;
        taken.set(delivery.endpoint.id, count + 1);
        claimed.push(delivery);
        due.splice(due.indexOf(delivery), 1);
        const ids = held.get(delivery.endpoint.id) ?? new Set<string>();
        ids.add(delivery.id);
        held.set(delivery.endpoint.id, ids);
        mostHeld = Math.max(mostHeld, ids.size);
        leases.set(delivery.id, leaseUntil);
      }
      claims.push({ limit, taken: claimed.length, busy: new Map(busy) });
      return claimed;
    },
    async releaseClaims(items) {
      for (const item of items) {
        released.push(item);
        letGo(item.id);
        const delivery = item.id;
        // Claimable again, first in line.
        const name = delivery.split('-')[0] as string;
        due.unshift({
          id: delivery,
          eventId: `evt_${delivery}`,
          eventBody: '{}',
          attemptCount: 0,
          createdAt: new Date('2026-11-24T10:00:00Z'),
          endpoint: endpointNamed(name),
        });
      }
    },
    async recordAttempt(deliveryId) {
      recorded.push(deliveryId);
      return { endpointDisabled: false };
    },
    async recordDelivered(items) {
      await recordsOpen;
      for (const { deliveryId } of items) recorded.push(deliveryId);
    },
  };
  const sent: string[] = [];
  /** What each send's claim had left of its lease when the send started. */
  const leaseLeftAtSend: number[] = [];
  const clockNow = options.now ?? (() => new Date('2026-11-24T10:00:00Z'));
  const worker = createDeliveryWorker(
    {
      deliveries: store,
      send: (request) =>
        new Promise<WebhookResponse>((resolve) => {
          const id = request.headers['webhook-id']?.replace(/^evt_/, '').replace('_', '-') as string;
          sent.push(id);
          leaseLeftAtSend.push((leases.get(id)?.getTime() ?? 0) - clockNow().getTime());
          answers.set(id, resolve);
        }),
      clock: { now: clockNow },
      logger: createLogger('gateway', 'silent'),
    },
    {
      retryDelaysMs: [5_000],
      concurrency: 8,
      perEndpointConcurrency: 4,
      pollIntervalMs: 3_600_000,
      leaseMs: 40_000,
      ...options.settings,
    },
  );
  /** Answers 200 to the `count` oldest sends waiting for an answer. */
  const answer = async (count: number) => {
    for (const [id, resolve] of [...answers].slice(0, count)) {
      answers.delete(id);
      letGo(id);
      resolve({ statusCode: 200, durationMs: 2, responseExcerpt: 'ok', error: null });
    }
    await settle();
  };
  /** Stops the worker, answering whatever it still sends. */
  const finish = async () => {
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    while (!stopped) await answer(100);
    await stopping;
  };
  return {
    worker,
    finish,
    openRecords: async () => {
      openRecords();
      await settle();
    },
    claims,
    sent,
    leaseLeftAtSend,
    recorded,
    released,
    leases,
    answer,
    open: () => answers.size,
    mostHeld: () => mostHeld,
    due: () => due.length,
  };
}

describe('the delivery worker claiming ahead', () => {
  it('takes many deliveries a claim when many sends end, not one claim a send', async () => {
    // 5 endpoints of 4: room for 8 in flight and 8 waiting.
    const run = harness({ queues: { a: 40, b: 40, c: 40, d: 40, e: 40 } });
    run.worker.start();
    await settle();
    expect(run.claims).toHaveLength(1);
    expect(run.claims[0]?.taken).toBe(16);
    expect(run.open()).toBe(8);

    // 64 sends end one at a time: each starts a waiting delivery, and a claim comes every 4 ends.
    for (let ended = 0; ended < 64; ended += 1) await run.answer(1);
    expect(run.recorded).toHaveLength(64);
    expect(run.open()).toBe(8);
    const later = run.claims.slice(1);
    expect(later.length).toBeLessThanOrEqual(64 / 4);
    expect(later.every((claim) => claim.limit >= 4 && claim.taken >= 4)).toBe(true);
    await run.finish();
  });

  it('never lets an endpoint hold more than its cap, counting what waits in the worker', async () => {
    // One send at a time, one per endpoint, two ahead. A has one delivery, B and C ten each: once A's
    // ends and B's starts, C's first still waits, and the claim that follows must see C at its cap.
    const run = harness({
      queues: { a: 1, b: 10, c: 10 },
      settings: { concurrency: 1, perEndpointConcurrency: 1, claimAhead: 2 },
    });
    run.worker.start();
    await settle();
    expect(run.claims[0]?.taken).toBe(3);
    for (let ended = 0; ended < 21; ended += 1) await run.answer(1);
    expect(run.recorded).toHaveLength(21);
    expect(run.mostHeld()).toBe(1);
    await run.finish();
  });

  it('releases the claims still waiting when it stops, and waits for the sends in flight', async () => {
    const run = harness({ queues: { a: 4, b: 4, c: 4, d: 4, e: 4 } });
    run.worker.start();
    await settle();
    expect(run.open()).toBe(8);
    const waiting = run.claims[0]?.taken === 16 ? 8 : 0;
    expect(waiting).toBe(8);
    const stopped = run.worker.stop();
    await settle();
    expect(run.released).toHaveLength(8);
    // Released with the lease they were claimed with (a lapsed one taken by another worker is not).
    for (const { id, leaseUntil } of run.released) expect(leaseUntil).toEqual(run.leases.get(id));
    // None of them sent; the 8 in flight end and are recorded before stop returns.
    expect(run.sent.filter((id) => run.released.some((claim) => claim.id === id))).toEqual([]);
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    await settle();
    expect(done).toBe(false);
    await run.answer(8);
    await stopped;
    expect(run.recorded).toHaveLength(8);
  });

  it('releases instead of sending a claim that waited until its lease no longer covers a send', async () => {
    let now = new Date('2026-11-24T10:00:00Z');
    const run = harness({
      queues: { a: 4, b: 4, c: 4, d: 4, e: 4 },
      now: () => now,
      settings: { leaseMs: 40_000, queueWaitMs: 5_000 },
    });
    run.worker.start();
    await settle();
    expect(run.open()).toBe(8);
    // The 8 waiting were leased until now + 45 s; 6 s later they have 39 s left, less than a send's 40.
    now = new Date(now.getTime() + 6_000);
    await run.answer(1);
    expect(run.released).toHaveLength(8);
    // Claimed again at once with a lease of their own, and every send began with a whole lease ahead.
    for (let round = 0; round < 5; round += 1) await run.answer(100);
    expect(run.recorded.sort()).toEqual(run.sent.sort());
    expect(run.recorded).toHaveLength(20);
    expect(Math.min(...run.leaseLeftAtSend)).toBeGreaterThanOrEqual(40_000);
    await run.finish();
  });

  it("frees a send's slot once the receiver answered, not once the attempt is recorded", async () => {
    // One send at a time; PostgreSQL slow to commit the first record.
    const run = harness({
      queues: { a: 1, b: 1, c: 1 },
      settings: { concurrency: 1, claimAhead: 2 },
      holdRecords: true,
    });
    run.worker.start();
    await settle();
    expect(run.sent).toEqual(['a-0']);
    await run.answer(1);
    // A's record is still being written: B's send has begun all the same.
    expect(run.recorded).toEqual([]);
    expect(run.sent).toEqual(['a-0', 'b-0']);
    await run.answer(1);
    expect(run.sent).toEqual(['a-0', 'b-0', 'c-0']);
    await run.answer(1);
    await run.openRecords();
    expect(run.recorded.sort()).toEqual(['a-0', 'b-0', 'c-0']);
    await run.finish();
  });

  it('claims no more while the answered deliveries waiting for their record exceed its concurrency', async () => {
    const run = harness({
      queues: { a: 20, b: 20, c: 20, d: 20 },
      settings: { concurrency: 2, claimAhead: 0 },
      holdRecords: true,
    });
    run.worker.start();
    for (let round = 0; round < 20; round += 1) await run.answer(100);
    // 2 in flight at most, and at most 2 more answered beyond the 2 the concurrency allows unrecorded.
    expect(run.sent.length).toBeLessThanOrEqual(4);
    expect(run.open()).toBe(0);
    await run.openRecords();
    for (let round = 0; round < 60 && run.recorded.length < 80; round += 1) {
      await run.answer(100);
      await run.openRecords();
    }
    expect(run.recorded).toHaveLength(80);
    await run.finish();
  });

  it('looks again when a send is answered, not once more when its record is written', async () => {
    // A lone event: its claim, and the look the answer makes (nothing more is due); the record that
    // follows frees no room, so it makes no third look.
    const run = harness({ queues: { a: 1 } });
    run.worker.start();
    await settle();
    await run.answer(1);
    await settle();
    expect(run.recorded).toEqual(['a-0']);
    expect(run.claims.map((claim) => claim.taken)).toEqual([1, 0]);
    await run.finish();
  });
});
