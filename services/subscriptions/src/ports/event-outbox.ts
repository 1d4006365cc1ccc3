import type { EventEnvelope } from '@payrail/contracts';

/** Runs `work` in the context (trace span) of one message of a batch. */
export type InMessageContext = <T>(work: () => T) => T;

/**
 * The events a transaction publishes: written with its changes (one multi-row insert), sent by the outbox
 * relay after commit.
 */
export interface EventOutbox {
  /** Every event in the active context (its trace). */
  enqueue(events: EventEnvelope[]): Promise<void>;
  /**
   * For a batch of messages: each event with the trace context of the message it answers (`within` runs in
   * that message's context), so each keeps its own trace.
   */
  enqueueEach(events: Array<{ event: EventEnvelope; within: InMessageContext }>): Promise<void>;
}
