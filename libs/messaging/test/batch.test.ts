import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { batchingHandler, gatherCalls } from '../src/batch';
import type { DeliveredMessage } from '../src/bus';

const message = (index: number): DeliveredMessage => ({
  id: `m-${index}`,
  type: 'test.event',
  body: String(index),
  headers: {},
  attempt: 1,
});

/** Counts how many calls run at once, and the order in which messages were handled. */
function tracker() {
  let running = 0;
  const state = { most: 0, handled: [] as string[] };
  return {
    state,
    async during(ids: string[], work: () => Promise<void>) {
      running += 1;
      state.most = Math.max(state.most, running);
      try {
        await sleep(2);
        await work();
        state.handled.push(...ids);
      } finally {
        running -= 1;
      }
    },
  };
}

describe('batchingHandler, ordered', () => {
  it('runs one batch at a time, in delivery order', async () => {
    const { state, during } = tracker();
    const sizes: number[] = [];
    const handler = batchingHandler({
      maxBatch: 10,
      gatherMs: 1,
      ordered: true,
      handleBatch: (messages) => {
        sizes.push(messages.length);
        return during(
          messages.map((each) => each.id),
          async () => {},
        );
      },
      handleOne: (one) => during([one.id], async () => {}),
    });
    const messages = Array.from({ length: 45 }, (_, index) => message(index));
    await Promise.all(messages.map((each) => handler(each)));
    expect(sizes).toEqual([10, 10, 10, 10, 5]);
    expect(state.most).toBe(1);
    expect(state.handled).toEqual(messages.map((each) => each.id));
  });

  it('handles a failed batch again one message after the other; only the poison one fails', async () => {
    const { state, during } = tracker();
    const handler = batchingHandler({
      maxBatch: 5,
      gatherMs: 1,
      ordered: true,
      handleBatch: async (messages) => {
        if (messages.some((each) => each.body === 'poison')) throw new Error('batch failed');
        await during(
          messages.map((each) => each.id),
          async () => {},
        );
      },
      handleOne: (one) =>
        during([one.id], async () => {
          if (one.body === 'poison') throw new Error('poison');
        }),
    });
    const messages = Array.from({ length: 10 }, (_, index) =>
      index === 2 ? { ...message(index), body: 'poison' } : message(index),
    );
    const outcomes = await Promise.allSettled(messages.map((each) => handler(each)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(
      messages.map((each) => (each.body === 'poison' ? 'rejected' : 'fulfilled')),
    );
    expect(state.most).toBe(1);
    expect(state.handled).toEqual(messages.filter((each) => each.body !== 'poison').map((each) => each.id));
  });

  it('without `ordered`, lets the next batch start while one is being handled', async () => {
    const { state, during } = tracker();
    const handler = batchingHandler({
      maxBatch: 5,
      gatherMs: 1,
      handleBatch: (messages) =>
        during(
          messages.map((each) => each.id),
          async () => {},
        ),
      handleOne: (one) => during([one.id], async () => {}),
    });
    await Promise.all(Array.from({ length: 20 }, (_, index) => handler(message(index))));
    expect(state.most).toBeGreaterThan(1);
  });
});

describe('gatherCalls', () => {
  it('answers the calls of one gathering with one run, each with its own result, and starts again after', async () => {
    const runs: number[][] = [];
    const double = gatherCalls<number, number>({
      maxBatch: 3,
      gatherMs: 20,
      run: async (items) => {
        runs.push(items);
        return items.map((item) => item * 2);
      },
    });
    // Three reach maxBatch at once; the other two wait for the timer.
    const results = await Promise.all([1, 2, 3, 4, 5].map((item) => double(item)));
    expect(results).toEqual([2, 4, 6, 8, 10]);
    expect(runs).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(await double(7)).toBe(14);
    expect(runs).toHaveLength(3);
  });

  it('rejects every call of a failed run, whether it threw or returned the wrong number of results', async () => {
    let mode: 'throw' | 'reject' | 'short' = 'throw';
    const call = gatherCalls<number, number>({
      maxBatch: 10,
      gatherMs: 5,
      run: (items) => {
        if (mode === 'throw') throw new Error('thrown');
        if (mode === 'reject') return Promise.reject(new Error('rejected'));
        return Promise.resolve(items.slice(1));
      },
    });
    for (const [next, message] of [
      ['throw', 'thrown'],
      ['reject', 'rejected'],
      ['short', 'a batch of 2 calls got 1 results'],
    ] as const) {
      mode = next;
      const outcomes = await Promise.allSettled([call(1), call(2)]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect((outcomes[0] as PromiseRejectedResult).reason.message).toBe(message);
    }
  });
});
