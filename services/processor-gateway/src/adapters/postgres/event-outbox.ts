import type { Executor } from '@payrail/db';
import { enqueueEvent, enqueueEvents, outboxTraceHeaders } from '@payrail/messaging';
import type { EventOutbox } from '../../ports/event-outbox';
import { outbox } from './schema';

/** The service's outbox table, written in the caller's transaction. */
export function postgresEventOutbox(db: Executor): EventOutbox {
  return {
    async publish(events) {
      for (const event of events) await enqueueEvent(db, outbox, event);
    },
    async publishEach(events) {
      await enqueueEvents(
        db,
        outbox,
        events.map(({ event, within }) => ({ event, headers: within(outboxTraceHeaders) })),
      );
    },
  };
}
