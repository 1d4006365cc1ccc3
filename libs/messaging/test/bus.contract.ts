/**
 * The behaviour every MessageBus adapter must have. The in-process bus runs it as a unit test, the
 * RabbitMQ bus as an integration test on a real broker, so a service behaves the same in embedded mode
 * and in production.
 */
import { randomUUID } from 'node:crypto';
import { metricsText } from '@payrail/observability';
import { afterEach, describe, expect, it } from 'vitest';
import { batchingHandler, batchPrefetch } from '../src/batch';
import type { DeadLetter, DeliveredMessage, MessageBus, OutgoingMessage } from '../src/bus';
import { gate, pause, waitFor } from './wait-for';

export interface BusUnderTest {
  /** A bus that has not been started yet. */
  bus: MessageBus;
  /** Closes the bus and removes whatever it declared. */
  cleanup(): Promise<void>;
}

/** Short, so retries do not slow the suite down; long enough to be measured. */
const RETRY_DELAY_MS = 50;
/** How long a "nothing else arrives" check watches; only used where no event could be awaited. */
const QUIET_MS = 200;

function message(type: string, extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  const id = randomUUID();
  return { id, type, body: JSON.stringify({ id, type }), ...extra };
}

/** The consumer's message counters as `/metrics` shows them. */
async function consumerCounts(consumer: string) {
  const text = await metricsText();
  const value = (name: string) => {
    const series = `${name}{consumer="${consumer}"} `;
    const line = text.split('\n').find((candidate) => candidate.startsWith(series));
    return line ? Number(line.slice(series.length)) : 0;
  };
  return {
    consumed: value('payrail_messages_consumed_total'),
    failed: value('payrail_messages_failed_total'),
    deadLettered: value('payrail_messages_dead_lettered_total'),
  };
}

export function busContract(name: string, makeBus: () => Promise<BusUnderTest>): void {
  describe(`MessageBus contract: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];

    async function startedBus(): Promise<MessageBus> {
      const made = await makeBus();
      cleanups.push(made.cleanup);
      await made.bus.start();
      return made.bus;
    }

    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('is ready only once started with every consumer consuming, and not after stopConsuming or close', async () => {
      const made = await makeBus();
      cleanups.push(made.cleanup);
      const { bus } = made;
      expect(bus.isReady()).toBe(false);
      await bus.start();
      expect(bus.isReady()).toBe(true);
      await bus.subscribe({ consumer: 'ready', eventTypes: ['link.created'], handler: async () => {} });
      expect(bus.isReady()).toBe(true);
      await bus.stopConsuming();
      expect(bus.isReady()).toBe(false);
      await bus.close();
      expect(bus.isReady()).toBe(false);
    });

    it('narrows a type by a longer routing key: link.created of recurrent links only, while the type takes all', async () => {
      const bus = await startedBus();
      const received: Record<string, string[]> = { everything: [], recurrentOnly: [] };
      const record = (consumer: string) => async (delivered: DeliveredMessage) => {
        received[consumer]?.push(
          delivered.type === 'test.fence' ? 'fence' : JSON.parse(delivered.body).data.slug,
        );
      };
      await bus.subscribe({
        consumer: 'everything',
        eventTypes: ['link.created', 'test.fence'],
        handler: record('everything'),
        prefetch: 1,
      });
      await bus.subscribe({
        consumer: 'recurrent-only',
        eventTypes: ['link.created.recurrent', 'test.fence'],
        handler: record('recurrentOnly'),
        prefetch: 1,
      });
      const linkCreated = (slug: string, recurrence: unknown) =>
        message('link.created', {
          body: JSON.stringify({ type: 'link.created', data: { slug, recurrence } }),
        });
      // The routing key comes from the body (libs/contracts routingKeyOf) unless the publisher gives one.
      await bus.publish(linkCreated('one-off', null));
      await bus.publish(linkCreated('static', { type: 'STATIC' }));
      await bus.publish({ ...linkCreated('explicit', null), routingKey: 'link.created.recurrent' });
      await bus.publish(message('test.fence'));
      await waitFor(
        () => !!received.everything?.includes('fence') && !!received.recurrentOnly?.includes('fence'),
        {
          what: 'the fence on both consumers',
        },
      );
      expect(received.everything).toEqual(['one-off', 'static', 'explicit', 'fence']);
      expect(received.recurrentOnly).toEqual(['static', 'explicit', 'fence']);
    });

    it('routes by type: a consumer gets only its types, and every subscribed consumer gets its own copy', async () => {
      const bus = await startedBus();
      const received: Record<string, string[]> = { billing: [], ledger: [], notifier: [] };
      const record = (consumer: string) => async (delivered: DeliveredMessage) => {
        received[consumer]?.push(delivered.type);
      };
      // Every consumer also takes `test.fence`, published last: once each has it, anything wrongly
      // routed to it would already have arrived (one queue delivers in order).
      await bus.subscribe({
        consumer: 'billing',
        eventTypes: ['link.created', 'link.paid', 'test.fence'],
        handler: record('billing'),
        prefetch: 1,
      });
      await bus.subscribe({
        consumer: 'ledger',
        eventTypes: ['link.paid', 'test.fence'],
        handler: record('ledger'),
        prefetch: 1,
      });
      await bus.subscribe({
        consumer: 'notifier',
        eventTypes: ['subscription.renewed', 'test.fence'],
        handler: record('notifier'),
        prefetch: 1,
      });

      for (const type of [
        'link.created',
        'link.paid',
        'subscription.renewed',
        'link.expired',
        'test.fence',
      ]) {
        await bus.publish(message(type));
      }

      await waitFor(() => Object.values(received).every((types) => types.includes('test.fence')), {
        what: 'the fence at every consumer',
      });
      expect(received).toEqual({
        billing: ['link.created', 'link.paid', 'test.fence'],
        ledger: ['link.paid', 'test.fence'],
        notifier: ['subscription.renewed', 'test.fence'],
      });
    });

    it('gives every consumer and every retry its own copy: a handler changing its message affects no other', async () => {
      const bus = await startedBus();
      const seenByAuditor: DeliveredMessage[] = [];
      const seenByMutator: DeliveredMessage[] = [];
      await bus.subscribe({
        consumer: 'mutator',
        eventTypes: ['link.created'],
        retryDelayMs: RETRY_DELAY_MS,
        handler: async (delivered) => {
          seenByMutator.push({ ...delivered, headers: { ...delivered.headers } });
          delivered.headers.traceparent = 'tampered';
          delivered.body = 'tampered';
          if (delivered.attempt === 1) throw new Error('fail once');
        },
      });
      await bus.subscribe({
        consumer: 'auditor',
        eventTypes: ['link.created'],
        handler: async (delivered) => {
          seenByAuditor.push(delivered);
        },
      });
      const sent = message('link.created', { headers: { traceparent: 'original' } });
      await bus.publish(sent);

      await waitFor(() => seenByMutator.length === 2 && seenByAuditor.length === 1, {
        what: 'all deliveries',
      });
      for (const delivered of [...seenByMutator, ...seenByAuditor]) {
        expect(delivered).toMatchObject({ body: sent.body, headers: { traceparent: 'original' } });
      }
    });

    it('does not deliver messages published before the consumer subscribed', async () => {
      const bus = await startedBus();
      const early = message('link.created');
      await bus.publish(early);
      const received: string[] = [];
      await bus.subscribe({
        consumer: 'late',
        eventTypes: ['link.created'],
        handler: async (delivered) => {
          received.push(delivered.id);
        },
      });
      const later = message('link.created');
      await bus.publish(later);
      await waitFor(() => received.includes(later.id), { what: 'the message published after subscribe' });
      expect(received).toEqual([later.id]);
    });

    it('delivers id, type, body and headers intact, and publish resolves once the message is accepted', async () => {
      const bus = await startedBus();
      const received: DeliveredMessage[] = [];
      await bus.subscribe({
        consumer: 'intact',
        eventTypes: ['link.created'],
        handler: async (delivered) => {
          received.push(delivered);
        },
      });
      const sent = message('link.created', {
        body: JSON.stringify({ amount: { minor: 1999, currency: 'EUR' }, note: 'café ☕ – 10 € ✓' }),
        headers: {
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
          tracestate: 'payrail=1',
        },
      });

      const publishing = bus.publish(sent);
      // Never inside the publisher's call stack (its transaction, its span).
      expect(received).toEqual([]);
      await expect(publishing).resolves.toBeUndefined();

      await waitFor(() => received.length === 1, { what: 'the delivery' });
      expect(received[0]).toEqual({
        id: sent.id,
        type: sent.type,
        body: sent.body,
        headers: sent.headers,
        attempt: 1,
      });
    });

    it('retries a failing handler after retryDelayMs with attempt 1, 2, 3, and does not dead-letter it once it succeeds', async () => {
      const bus = await startedBus();
      const deliveries: Array<DeliveredMessage & { at: number }> = [];
      await bus.subscribe({
        consumer: 'flaky',
        eventTypes: ['link.paid'],
        maxAttempts: 5,
        retryDelayMs: RETRY_DELAY_MS,
        handler: async (delivered) => {
          deliveries.push({ ...delivered, at: Date.now() });
          if (delivered.attempt < 3) throw new Error(`transient failure ${delivered.attempt}`);
        },
      });
      const sent = message('link.paid', {
        headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      });
      await bus.publish(sent);

      await waitFor(() => deliveries.length >= 3, { what: 'three deliveries' });
      expect(deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
      for (const delivered of deliveries) {
        // A retry is the same message: only the attempt number changes.
        expect(delivered).toMatchObject({
          id: sent.id,
          type: sent.type,
          body: sent.body,
          headers: sent.headers,
        });
      }
      const [first, second, third] = deliveries;
      // Timers may fire a millisecond early; the point is that a retry waits, it does not spin.
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 5);
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(RETRY_DELAY_MS - 5);

      await pause(RETRY_DELAY_MS * 2);
      expect(deliveries).toHaveLength(3);
      expect(await bus.drainDeadLetters('flaky')).toEqual([]);
    });

    it('never dead-letters a message for a database that cannot be reached: retried, not counted, until it is back', async () => {
      const bus = await startedBus();
      const attempts: number[] = [];
      const unavailable = [
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' }),
        // drizzle's wrapping of the driver's error, and the server refusing while it shuts down or starts.
        new Error('Failed query: update …', {
          cause: Object.assign(new Error('the database system is shutting down'), { code: '57P01' }),
        }),
        Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      ];
      await bus.subscribe({
        consumer: 'patient',
        eventTypes: ['link.paid'],
        maxAttempts: 2,
        retryDelayMs: RETRY_DELAY_MS,
        handler: async (delivered) => {
          attempts.push(delivered.attempt);
          const failure = unavailable[attempts.length - 1];
          if (failure) throw failure;
        },
      });
      await bus.publish(message('link.paid'));
      await waitFor(() => attempts.length === 5, { what: 'four failures and the success' });
      // Twice maxAttempts failures, none counted: the success is still attempt 1.
      expect(attempts).toEqual([1, 1, 1, 1, 1]);
      await pause(RETRY_DELAY_MS * 2);
      expect(attempts).toHaveLength(5);
      expect(await bus.drainDeadLetters('patient')).toEqual([]);
    });

    it('dead-letters a message after exactly maxAttempts tries, with its attempts and last error, while others keep flowing', async () => {
      const bus = await startedBus();
      const countsBefore = await consumerCounts('strict');
      const poison = message('link.created', {
        headers: { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
      });
      const attempts: number[] = [];
      const handled: string[] = [];
      await bus.subscribe({
        consumer: 'strict',
        eventTypes: ['link.created'],
        maxAttempts: 3,
        retryDelayMs: RETRY_DELAY_MS,
        handler: async (delivered) => {
          if (delivered.id === poison.id) {
            attempts.push(delivered.attempt);
            throw new Error(`cannot handle this, attempt ${delivered.attempt}`);
          }
          handled.push(delivered.id);
        },
      });
      await bus.publish(poison);
      const healthy = message('link.created');
      await bus.publish(healthy);

      const letters: DeadLetter[] = [];
      await waitFor(
        async () => {
          letters.push(...(await bus.drainDeadLetters('strict')));
          return letters.length > 0;
        },
        { intervalMs: 25, what: 'the dead letter' },
      );
      expect(handled).toEqual([healthy.id]);
      expect(attempts).toEqual([1, 2, 3]);
      expect(letters).toEqual([
        {
          id: poison.id,
          type: poison.type,
          body: poison.body,
          headers: poison.headers,
          attempts: 3,
          error: 'cannot handle this, attempt 3',
        },
      ]);

      // Dead-lettered means done: no further try, and draining removed it.
      await pause(RETRY_DELAY_MS * 3);
      expect(attempts).toEqual([1, 2, 3]);
      // /metrics counts per consumer: the healthy one consumed, two failed tries, one dead letter.
      const countsAfter = await consumerCounts('strict');
      expect({
        consumed: countsAfter.consumed - countsBefore.consumed,
        failed: countsAfter.failed - countsBefore.failed,
        deadLettered: countsAfter.deadLettered - countsBefore.deadLettered,
      }).toEqual({ consumed: 1, failed: 2, deadLettered: 1 });
      expect(await bus.drainDeadLetters('strict')).toEqual([]);
    });

    it('returns no dead letters for a consumer that never subscribed', async () => {
      const bus = await startedBus();
      expect(await bus.drainDeadLetters('nobody')).toEqual([]);
    });

    it('runs at most `prefetch` handlers of a consumer at once', async () => {
      const bus = await startedBus();
      const release = gate();
      let running = 0;
      let mostRunning = 0;
      const done: string[] = [];
      await bus.subscribe({
        consumer: 'bounded',
        eventTypes: ['link.created'],
        prefetch: 2,
        handler: async (delivered) => {
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          await release.promise;
          running -= 1;
          done.push(delivered.id);
        },
      });
      const sent = Array.from({ length: 6 }, () => message('link.created'));
      for (const m of sent) await bus.publish(m);

      await waitFor(() => running === 2, { what: 'two handlers in flight' });
      await pause(QUIET_MS);
      expect(running).toBe(2);

      release.open();
      await waitFor(() => done.length === sent.length, { what: 'all messages handled' });
      expect(mostRunning).toBe(2);
      expect(done.sort()).toEqual(sent.map((m) => m.id).sort());
    });

    it('stopConsuming waits for the handler in flight, then takes no new deliveries', async () => {
      const bus = await startedBus();
      const release = gate();
      const events: string[] = [];
      await bus.subscribe({
        consumer: 'graceful',
        eventTypes: ['link.created'],
        handler: async (delivered) => {
          events.push(`start ${delivered.id}`);
          await release.promise;
          events.push(`end ${delivered.id}`);
        },
      });
      const first = message('link.created');
      await bus.publish(first);
      await waitFor(() => events.length === 1, { what: 'the handler to start' });

      const stopping = bus.stopConsuming().then(() => events.push('stopped'));
      await pause(QUIET_MS);
      expect(events).toEqual([`start ${first.id}`]);

      release.open();
      await stopping;
      expect(events).toEqual([`start ${first.id}`, `end ${first.id}`, 'stopped']);

      const second = message('link.created');
      await bus.publish(second);
      await pause(QUIET_MS);
      expect(events).toHaveLength(3);
      expect(await bus.drainDeadLetters('graceful')).toEqual([]);
    });

    it('batch path: a batching handler gets several deliveries at once, each settled once after its batch', async () => {
      const bus = await startedBus();
      const release = gate();
      const batches: string[][] = [];
      const alone: string[] = [];
      const attempts: number[] = [];
      await bus.subscribe({
        consumer: 'batched',
        eventTypes: ['link.created'],
        prefetch: batchPrefetch(4),
        retryDelayMs: RETRY_DELAY_MS,
        handler: batchingHandler({
          maxBatch: 4,
          gatherMs: 100,
          handleBatch: async (messages) => {
            batches.push(messages.map((m) => m.id));
            attempts.push(...messages.map((m) => m.attempt));
            await release.promise;
          },
          handleOne: async (delivered) => {
            alone.push(delivered.id);
            attempts.push(delivered.attempt);
          },
        }),
      });
      const sent = Array.from({ length: 8 }, () => message('link.created'));
      for (const m of sent) await bus.publish(m);

      // Two full batches: the second gathered while the first was held, within the prefetch.
      await waitFor(() => batches.length === 2, { what: 'two batches in flight' });
      expect(batches.map((batch) => batch.length)).toEqual([4, 4]);
      release.open();
      await pause(QUIET_MS);
      // Acked after the batch: no redelivery, no retry, nothing dead-lettered.
      expect([...batches.flat(), ...alone].sort()).toEqual(sent.map((m) => m.id).sort());
      expect(attempts.every((attempt) => attempt === 1)).toBe(true);
      expect(await bus.drainDeadLetters('batched')).toEqual([]);
    });

    it('batch path: a lone delivery is handled alone once the gathering time is up', async () => {
      const bus = await startedBus();
      const alone: string[] = [];
      await bus.subscribe({
        consumer: 'batched-lone',
        eventTypes: ['link.created'],
        prefetch: batchPrefetch(10),
        handler: batchingHandler({
          maxBatch: 10,
          gatherMs: 20,
          handleBatch: async () => {
            throw new Error('not a batch');
          },
          handleOne: async (delivered) => {
            alone.push(delivered.id);
          },
        }),
      });
      const single = message('link.created');
      await bus.publish(single);
      await waitFor(() => alone.length === 1, { what: 'the message handled' });
      expect(alone).toEqual([single.id]);
    });

    it('batch path: a poison message fails its batch, then alone: retried and dead-lettered after maxAttempts while the rest of its batch is handled once', async () => {
      const bus = await startedBus();
      const countsBefore = await consumerCounts('batched-strict');
      const poison = message('link.created');
      const healthy = Array.from({ length: 4 }, () => message('link.created'));
      const handled: string[] = [];
      const poisonAttempts: number[] = [];
      let failedBatches = 0;
      await bus.subscribe({
        consumer: 'batched-strict',
        eventTypes: ['link.created'],
        maxAttempts: 3,
        retryDelayMs: RETRY_DELAY_MS,
        prefetch: batchPrefetch(5),
        handler: batchingHandler({
          maxBatch: 5,
          gatherMs: 200,
          handleBatch: async (messages) => {
            if (messages.some((m) => m.id === poison.id)) {
              failedBatches += 1;
              throw new Error('the batch holds a poison message');
            }
            handled.push(...messages.map((m) => m.id));
          },
          handleOne: async (delivered) => {
            if (delivered.id === poison.id) {
              poisonAttempts.push(delivered.attempt);
              throw new Error(`cannot handle this, attempt ${delivered.attempt}`);
            }
            handled.push(delivered.id);
          },
        }),
      });
      await bus.publish(poison);
      for (const m of healthy) await bus.publish(m);

      const letters: DeadLetter[] = [];
      await waitFor(
        async () => {
          letters.push(...(await bus.drainDeadLetters('batched-strict')));
          return letters.length > 0;
        },
        { intervalMs: 25, what: 'the dead letter' },
      );
      expect(failedBatches).toBeGreaterThanOrEqual(1);
      expect(handled.sort()).toEqual(healthy.map((m) => m.id).sort());
      expect(poisonAttempts).toEqual([1, 2, 3]);
      expect(letters).toEqual([
        {
          id: poison.id,
          type: poison.type,
          body: poison.body,
          headers: {},
          attempts: 3,
          error: 'cannot handle this, attempt 3',
        },
      ]);
      await pause(RETRY_DELAY_MS * 3);
      expect(poisonAttempts).toEqual([1, 2, 3]);
      const countsAfter = await consumerCounts('batched-strict');
      expect({
        consumed: countsAfter.consumed - countsBefore.consumed,
        failed: countsAfter.failed - countsBefore.failed,
        deadLettered: countsAfter.deadLettered - countsBefore.deadLettered,
      }).toEqual({ consumed: 4, failed: 2, deadLettered: 1 });
    });

    it('batch path: stopConsuming waits for a batch still gathering and for the batch in flight', async () => {
      const bus = await startedBus();
      const release = gate();
      const events: string[] = [];
      await bus.subscribe({
        consumer: 'batched-graceful',
        eventTypes: ['link.created'],
        prefetch: batchPrefetch(2),
        handler: batchingHandler({
          maxBatch: 2,
          gatherMs: 50,
          handleBatch: async (messages) => {
            events.push(`start ${messages.length}`);
            await release.promise;
            events.push(`end ${messages.length}`);
          },
          handleOne: async () => {
            events.push('alone');
          },
        }),
      });
      for (let i = 0; i < 3; i += 1) await bus.publish(message('link.created'));
      await waitFor(() => events.length === 1, { what: 'the first batch to start' });
      const stopping = bus.stopConsuming().then(() => events.push('stopped'));
      release.open();
      await stopping;
      expect(events).toEqual(['start 2', 'end 2', 'alone', 'stopped']);
    });

    it('rejects a second subscription with the same consumer name on one bus', async () => {
      const bus = await startedBus();
      const subscription = { consumer: 'twice', eventTypes: ['link.created'], handler: async () => {} };
      await bus.subscribe(subscription);
      await expect(bus.subscribe(subscription)).rejects.toThrow(/already subscribed/);
      expect(bus.isReady()).toBe(true);
    });

    it('rejects a subscription that both takes and retires a type', async () => {
      const bus = await startedBus();
      await expect(
        bus.subscribe({
          consumer: 'undecided',
          eventTypes: ['link.created', 'link.paid'],
          retiredEventTypes: ['link.paid'],
          handler: async () => {},
        }),
      ).rejects.toThrow(/both takes and retires link.paid/);
    });

    it('rejects publish after close', async () => {
      const bus = await startedBus();
      await bus.close();
      await expect(bus.publish(message('link.created'))).rejects.toThrow(/closed/);
    });
  });
}
