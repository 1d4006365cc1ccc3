import { describe, expect, it } from 'vitest';
import { groupCommit } from '../../src/application/webhooks/deliver-webhooks';
import type { WebhookDeliveryStore } from '../../src/ports/webhook-delivery-store';

// Delivered attempts are written together: the first at once, the ones that end while a write runs in the
// next write; a failed write is made again one by one so one bad row keeps no other outcome unrecorded.

const attempt = { attemptedAt: new Date(0), statusCode: 200, durationMs: 1, response: null, error: null };
const item = (deliveryId: string) => ({ deliveryId, attempt, at: new Date(0) });

function storeOf(options: { failBatchesWith?: string; failAlone?: string } = {}) {
  const batches: string[][] = [];
  const alone: string[] = [];
  const releases: Array<() => void> = [];
  const store = {
    async recordDelivered(items) {
      batches.push(items.map(({ deliveryId }) => deliveryId));
      await new Promise<void>((resolve) => releases.push(resolve));
      if (options.failBatchesWith && items.some(({ deliveryId }) => deliveryId === options.failBatchesWith))
        throw new Error('violates a foreign key');
    },
    async recordAttempt(deliveryId) {
      if (deliveryId === options.failAlone) throw new Error('violates a foreign key');
      alone.push(deliveryId);
      return { endpointDisabled: false };
    },
  } as Pick<WebhookDeliveryStore, 'recordDelivered' | 'recordAttempt'> as WebhookDeliveryStore;
  const releaseNext = async () => {
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
    (releases.shift() as () => void)();
  };
  return { store, batches, alone, releaseNext };
}

describe('delivered attempts written together', () => {
  it('the first alone and at once, those ending meanwhile together in the next write', async () => {
    const { store, batches, releaseNext } = storeOf();
    const record = groupCommit(store);
    const a = record(item('a'));
    expect(batches).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((id) => record(item(id)));
    expect(batches).toEqual([['a']]);
    await releaseNext();
    await a;
    await releaseNext();
    await Promise.all(rest);
    expect(batches).toEqual([['a'], ['b', 'c', 'd']]);
    // Idle again: the next one goes at once.
    const e = record(item('e'));
    expect(batches.at(-1)).toEqual(['e']);
    await releaseNext();
    await e;
  });

  it('a failed write is made again one by one: the bad row fails alone, the others are recorded', async () => {
    const { store, batches, alone, releaseNext } = storeOf({ failBatchesWith: 'bad', failAlone: 'bad' });
    const record = groupCommit(store);
    const first = record(item('a'));
    const results = ['b', 'bad', 'c'].map((id) =>
      record(item(id)).then(
        () => 'recorded',
        () => 'failed',
      ),
    );
    await releaseNext();
    await first;
    await releaseNext();
    expect(await Promise.all(results)).toEqual(['recorded', 'failed', 'recorded']);
    expect(batches).toEqual([['a'], ['b', 'bad', 'c']]);
    expect(alone.sort()).toEqual(['b', 'c']);
  });
});
