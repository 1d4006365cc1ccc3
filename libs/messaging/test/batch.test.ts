import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { batchingHandler } from '../src/batch';
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
