import type { EventEnvelope } from '@payrail/contracts';
import type { Executor } from '@payrail/db';
import { enqueueEvents, outboxTraceHeaders } from '@payrail/messaging';
import type { EventOutbox } from '../../ports/event-outbox';
import { outbox } from './schema';

/**
 * The outbox in the caller's transaction: the rows of a whole operation in one statement, each with the trace
 * of the message it answers.
 */
export function postgresEventOutbox(executor: Executor): EventOutbox {
  const store: EventOutbox = {
    async enqueue(events: EventEnvelope[]) {
      // Every event in the active context.
      await store.enqueueEach(events.map((event) => ({ event, within: (work) => work() })));
    },

    async enqueueEach(events) {
      // The outbox rows of a whole operation in one statement, however many subscriptions it touched, each
      // with its own message's trace, and the NOTIFY that wakes the relay (delivered on commit).
      await enqueueEvents(
        executor,
        outbox,
        events.map(({ event, within }) => ({ event, headers: within(outboxTraceHeaders) })),
      );
    },
  };
  return store;
}
