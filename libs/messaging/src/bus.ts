/**
 * The message bus port. Services publish integration events and consume them through this interface;
 * the RabbitMQ adapter and the in-process adapter both implement it and both pass
 * `test/bus.contract.ts`.
 */

/** A message on its way out. `body` is the JSON-serialised event envelope. */
export interface OutgoingMessage {
  /** Unique message id (the event id); consumers de-duplicate on it. */
  id: string;
  /** Event type, also the routing key (`link.created`) unless `routingKey` is given. */
  type: string;
  /**
   * The key on the exchange; default `routingKeyOf(type, body)` of libs/contracts, the type itself or a
   * longer key (`link.created.recurrent`): consumers bound to the type get it as well, consumers bound to
   * the longer key get only such messages.
   */
  routingKey?: string;
  body: string;
  /** Extra headers, e.g. W3C trace context (`traceparent`, `tracestate`). */
  headers?: Record<string, string>;
}

/** A message handed to a handler. */
export interface DeliveredMessage {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
  /** 1 on the first delivery, incremented on each retry after a handler failure. */
  attempt: number;
}

export type MessageHandler = (message: DeliveredMessage) => Promise<void>;

export interface Subscription {
  /** Durable consumer name; one queue per consumer (`subscriptions.on-link-created`). */
  consumer: string;
  /**
   * Event types this consumer receives; each also matches routing keys that extend it by more words
   * (`link.created` takes `link.created.recurrent`). A longer key (`link.created.recurrent`) narrows a
   * type down to the messages published under it.
   */
  eventTypes: string[];
  /**
   * Keys an earlier version of this consumer was bound to and no longer takes (a type narrowed to a longer
   * key, e.g. `installment.paid` to `installment.paid.otherwise`): unbound (`<key>` and `<key>.#`) each time
   * the consumer starts, so that a queue an older version declared stops receiving them. None by default;
   * the in-process bus keeps no bindings between starts.
   */
  retiredEventTypes?: string[];
  handler: MessageHandler;
  /**
   * Total tries before the message goes to the dead-letter queue. Default 5. A try that failed because the
   * database could not be reached or could not serve is not counted (`countsAsAttempt`).
   */
  maxAttempts?: number;
  /** Delay before each retry, in ms. Default 1000. */
  retryDelayMs?: number;
  /** Unacknowledged messages in flight per consumer. Default 10. */
  prefetch?: number;
}

export interface DeadLetter {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
  /** How many tries were made before giving up. */
  attempts: number;
  /** The last handler error's message. */
  error: string;
}

export interface MessageBus {
  /** Connects and declares the event exchange. */
  start(): Promise<void>;
  /** Resolves once the broker has confirmed the message (persistent). Rejects if it could not. */
  publish(message: OutgoingMessage): Promise<void>;
  /** Declares the consumer's queues and starts consuming. Call after `start()`. */
  subscribe(subscription: Subscription): Promise<void>;
  /** Stops taking new deliveries and waits for in-flight handlers to finish (graceful shutdown). */
  stopConsuming(): Promise<void>;
  /** Closes the connection. */
  close(): Promise<void>;
  /** True while connected and every consumer is consuming (used by `/readyz`). */
  isReady(): boolean;
  /** Removes and returns the messages in a consumer's dead-letter queue (operators and tests). */
  drainDeadLetters(consumer: string): Promise<DeadLetter[]>;
}
