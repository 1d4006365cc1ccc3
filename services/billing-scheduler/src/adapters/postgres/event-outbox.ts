import type { EventEnvelope } from '@payrail/contracts';
import type { Executor } from '@payrail/db';
import { enqueueEvents, outboxTraceHeaders } from '@payrail/messaging';
import type { EventOutbox } from '../../ports/event-outbox';
import { outbox } from './schema';

/**
 * Outbox rows for events, written in the caller's transaction by one statement that also wakes the relay
 * at commit; each row keeps the trace headers `headersOf` gives its event.
 */
export function writeOutbox(
  tx: Executor,
  events: EventEnvelope[],
  headersOf: (event: EventEnvelope) => string = () => outboxTraceHeaders(),
): Promise<void> {
  return enqueueEvents(
    tx,
    outbox,
    events.map((event) => ({ event, headers: headersOf(event) })),
  );
}

/** The outbox in the caller's transaction; each row keeps the trace of the work that wrote it. */
export function postgresEventOutbox(tx: Executor): EventOutbox {
  return { enqueue: (events) => writeOutbox(tx, events) };
}
