import type { EventEnvelope } from '@payrail/contracts';

/** Runs `work` in the trace context of the piece of work an event announces. */
export type InContext = <T>(work: () => T) => T;

/**
 * The events a transaction publishes: written with its changes (transactional outbox), sent by the outbox
 * relay after commit.
 */
export interface EventOutbox {
  publish(events: EventEnvelope[]): Promise<void>;
  /** Several pieces of work's events in one statement, each with its own trace context (`within`). */
  publishEach(events: Array<{ event: EventEnvelope; within: InContext }>): Promise<void>;
}
