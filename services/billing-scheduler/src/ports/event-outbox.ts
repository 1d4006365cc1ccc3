import type { EventEnvelope } from '@payrail/contracts';

/** The events a transaction publishes: written with its changes, sent by the outbox relay after commit. */
export interface EventOutbox {
  enqueue(events: EventEnvelope[]): Promise<void>;
}
