/**
 * The consumers of a bus: one confirm channel each, prefetch-bounded, re-consuming after a channel
 * loss or a broker-side cancel and resuming on every reconnection.
 *
 * Delivery is at least once: a message is acked only after its handler succeeded or after its retry or
 * dead-letter copy was confirmed by the broker, so a crash or a dropped connection can repeat a message
 * but never lose one. De-duplication is the inbox's job. A bundle (`bundles.ts`) is acked once each of
 * its events is.
 */
import { countConsumed } from '@payrail/observability';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { DeliveredMessage, Subscription } from '../bus';
import {
  type BusLogger,
  countsAsAttempt,
  drainInFlight,
  errorMessage,
  type ResolvedSubscription,
  resolveSubscription,
} from '../bus-common';
import { deliveredMessageFrom, stringProperty } from './amqp-properties';
import { BUNDLE_TYPE, eventsOfBundle, isBundle } from './bundles';
import type { Backoff, RabbitMqConnection, Session } from './connection';
import { type ConsumerQueues, consumerQueues, declareConsumerTopology, parkFailedMessage } from './topology';

interface ConsumerState {
  subscription: ResolvedSubscription;
  queues: ConsumerQueues;
  channel: ConfirmChannel | null;
  /** Set only while the broker is delivering to us; what `isReady()` looks at. */
  tag: string | null;
  /** The one set-up in progress, so a reconnect and a recovery never open two consumers. */
  starting: Promise<void> | null;
  recoveryTimer: NodeJS.Timeout | null;
  failures: number;
  inFlight: Set<Promise<void>>;
  /** Messages in handlers, bundled ones included, bounded by the prefetch. */
  slots: Slots;
}

export interface ConsumerSettings {
  exchange: string;
  queuePrefix: string;
  logger: BusLogger;
  backoff: Backoff;
  /** Bound on waiting for a connection at subscribe() and for the confirm of a retry or dead-letter copy. */
  confirmTimeoutMs: number;
}

export class RabbitMqConsumers {
  private readonly consumers = new Map<string, ConsumerState>();
  private stopped = false;

  constructor(
    private readonly connection: RabbitMqConnection,
    private readonly settings: ConsumerSettings,
  ) {}

  get hasStopped(): boolean {
    return this.stopped;
  }

  /** True when every subscribed consumer is being delivered to. */
  allConsuming(): boolean {
    for (const consumer of this.consumers.values()) if (consumer.tag === null) return false;
    return true;
  }

  async subscribe(input: Subscription): Promise<void> {
    if (this.stopped) throw new Error('The bus has stopped consuming');
    const subscription = resolveSubscription(input);
    const name = subscription.consumer;
    if (this.consumers.has(name)) throw new Error(`Consumer ${name} is already subscribed on this bus`);
    const consumer: ConsumerState = {
      subscription,
      queues: consumerQueues(this.settings.queuePrefix, name),
      channel: null,
      tag: null,
      starting: null,
      recoveryTimer: null,
      failures: 0,
      inFlight: new Set(),
      slots: new Slots(subscription.prefetch),
    };
    // Registered first, so that a reconnection while we set up also resumes this consumer.
    this.consumers.set(name, consumer);
    try {
      const session = await this.connection.liveSession(Date.now() + this.settings.confirmTimeoutMs);
      await this.ensureConsuming(consumer, session);
    } catch (error) {
      this.consumers.delete(name);
      clearRecovery(consumer);
      const channel = consumer.channel;
      consumer.channel = null;
      await channel?.close().catch(() => undefined);
      throw error;
    }
  }

  async stopConsuming(): Promise<void> {
    this.stopped = true;
    await Promise.all(
      [...this.consumers.values()].map(async (consumer) => {
        clearRecovery(consumer);
        // A set-up in progress cancels itself once it sees `stopped`; wait so it cannot outlive us.
        await consumer.starting?.catch(() => undefined);
        const { channel, tag } = consumer;
        consumer.tag = null;
        if (!channel || tag === null) return;
        await channel.cancel(tag).catch((error: unknown) => {
          this.settings.logger.warn(
            { consumer: consumer.subscription.consumer, err: errorMessage(error) },
            'Could not cancel a RabbitMQ consumer',
          );
        });
      }),
    );
    // Every delivery that arrived before the cancel-ok has its handler registered by now.
    await drainInFlight(this.consumers.values());
  }

  /** The connection dropped: the broker requeues what the channels had unacked. */
  forgetChannels(): void {
    for (const consumer of this.consumers.values()) {
      consumer.channel = null;
      consumer.tag = null;
      clearRecovery(consumer);
    }
  }

  async resumeAll(session: Session): Promise<void> {
    if (this.stopped) return;
    await Promise.all(
      [...this.consumers.values()].map((consumer) =>
        this.ensureConsuming(consumer, session).catch((error: unknown) => {
          this.settings.logger.warn(
            { consumer: consumer.subscription.consumer, err: errorMessage(error) },
            'Could not resume a consumer after reconnecting; retrying',
          );
          this.scheduleRecovery(consumer);
        }),
      ),
    );
  }

  clearRecoveries(): void {
    for (const consumer of this.consumers.values()) clearRecovery(consumer);
  }

  async closeChannels(): Promise<void> {
    for (const consumer of this.consumers.values()) {
      const channel = consumer.channel;
      consumer.channel = null;
      consumer.tag = null;
      await channel?.close().catch(() => undefined);
    }
  }

  private ensureConsuming(consumer: ConsumerState, session: Session): Promise<void> {
    if (!consumer.starting) {
      const attempt = this.startConsumer(consumer, session).finally(() => {
        if (consumer.starting === attempt) consumer.starting = null;
      });
      consumer.starting = attempt;
    }
    return consumer.starting;
  }

  private async startConsumer(consumer: ConsumerState, session: Session): Promise<void> {
    if (consumer.tag !== null) return;
    try {
      // A channel that is still open lost only its consumer (server-side cancel): consume on it
      // again rather than drop it, so handlers in flight can still ack.
      let channel = consumer.channel;
      if (!channel) {
        channel = await this.openConsumerChannel(consumer, session);
      }
      await this.declareAndConsume(consumer, channel);
    } catch (error) {
      const broken = consumer.channel;
      consumer.channel = null;
      consumer.tag = null;
      await broken?.close().catch(() => undefined);
      throw error;
    }
  }

  private async openConsumerChannel(consumer: ConsumerState, session: Session): Promise<ConfirmChannel> {
    const channel = await session.model.createConfirmChannel();
    if (!session.alive) throw new Error('RabbitMQ connection lost while opening a consumer channel');
    consumer.channel = channel;
    const name = consumer.subscription.consumer;
    channel.on('error', (error: unknown) => {
      this.settings.logger.warn(
        { consumer: name, err: errorMessage(error) },
        'RabbitMQ consumer channel error',
      );
    });
    channel.on('close', () => this.onConsumerChannelClosed(consumer, channel));
    await channel.prefetch(consumer.subscription.prefetch);
    return channel;
  }

  private async declareAndConsume(consumer: ConsumerState, channel: ConfirmChannel): Promise<void> {
    await declareConsumerTopology(
      channel,
      this.settings.exchange,
      consumer.queues,
      consumer.subscription.eventTypes,
      consumer.subscription.retiredEventTypes,
    );
    const { consumerTag } = await channel.consume(consumer.queues.queue, (message) =>
      this.onDelivery(consumer, channel, message),
    );
    if (this.stopped || this.connection.isClosed || consumer.channel !== channel) {
      // stopConsuming() or close() ran while we were setting up; do not start taking messages.
      await channel.cancel(consumerTag).catch(() => undefined);
      return;
    }
    consumer.tag = consumerTag;
    consumer.failures = 0;
  }

  private onConsumerChannelClosed(consumer: ConsumerState, channel: ConfirmChannel): void {
    if (consumer.channel !== channel) return;
    consumer.channel = null;
    consumer.tag = null;
    // Deferred: when the whole connection drops, its channels close just before it does, and then
    // the reconnect resumes every consumer; only a channel lost on a live connection is ours to reopen.
    setImmediate(() => {
      if (this.isRetired(consumer)) return;
      if (!this.connection.liveNow() || consumer.channel !== null) return;
      this.settings.logger.warn(
        { consumer: consumer.subscription.consumer },
        'RabbitMQ consumer channel closed; reopening',
      );
      this.scheduleRecovery(consumer);
    });
  }

  /** Closed, stopped, or replaced: nothing should be reopened for it. */
  private isRetired(consumer: ConsumerState): boolean {
    return (
      this.connection.isClosed ||
      this.stopped ||
      this.consumers.get(consumer.subscription.consumer) !== consumer
    );
  }

  private scheduleRecovery(consumer: ConsumerState): void {
    if (this.connection.isClosed || this.stopped || consumer.recoveryTimer) return;
    consumer.recoveryTimer = setTimeout(() => {
      consumer.recoveryTimer = null;
      void this.recover(consumer);
    }, this.settings.backoff(consumer.failures));
  }

  private async recover(consumer: ConsumerState): Promise<void> {
    if (this.isRetired(consumer)) return;
    // With the connection down, the reconnect resumes every consumer; nothing to do here.
    const session = this.connection.liveNow();
    if (!session) return;
    try {
      await this.ensureConsuming(consumer, session);
      this.settings.logger.info({ consumer: consumer.subscription.consumer }, 'RabbitMQ consumer resumed');
    } catch (error) {
      consumer.failures += 1;
      this.settings.logger.warn(
        { consumer: consumer.subscription.consumer, err: errorMessage(error), failures: consumer.failures },
        'Could not resume a RabbitMQ consumer; retrying',
      );
      this.scheduleRecovery(consumer);
    }
  }

  private onDelivery(consumer: ConsumerState, channel: ConfirmChannel, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled us (queue deleted, node failover). Not consuming any more: say so in
      // isReady() and consume again rather than sit there as a silent zombie.
      if (consumer.channel === channel && consumer.tag !== null) {
        consumer.tag = null;
        this.settings.logger.warn(
          { consumer: consumer.subscription.consumer },
          'RabbitMQ cancelled the consumer; re-consuming',
        );
        this.scheduleRecovery(consumer);
      }
      return;
    }
    const task = this.handleDelivery(consumer, channel, message).finally(() =>
      consumer.inFlight.delete(task),
    );
    consumer.inFlight.add(task);
  }

  private async handleDelivery(
    consumer: ConsumerState,
    channel: ConfirmChannel,
    raw: ConsumeMessage,
  ): Promise<void> {
    if (isBundle(raw)) {
      await this.handleBundle(consumer, channel, raw);
      return;
    }
    const delivered = deliveredMessageFrom(raw, raw.fields.routingKey);
    const done = await consumer.slots.run(() =>
      this.handleMessage(consumer, channel, delivered, raw.content, consumer.subscription.handler),
    );
    await this.settleDelivery(consumer, channel, raw, done, contextOf(consumer, delivered));
  }

  /**
   * A bundle's events, each as its own message (`bundles.ts`), started in order; acked once every one was
   * handled or parked for retry, given back whole when one could not be parked (the inbox makes the
   * events handled already no-ops on the next delivery). A bundle that cannot be taken apart fails as one
   * message, retried and dead-lettered as it is.
   */
  private async handleBundle(consumer: ConsumerState, channel: ConfirmChannel, raw: ConsumeMessage) {
    let events: DeliveredMessage[];
    try {
      events = eventsOfBundle(raw);
    } catch (error) {
      const delivered = deliveredMessageFrom(raw, raw.fields.routingKey);
      const done = await this.handleMessage(consumer, channel, delivered, raw.content, async () => {
        throw error;
      });
      await this.settleDelivery(consumer, channel, raw, done, contextOf(consumer, delivered));
      return;
    }
    const handled = await Promise.all(
      events.map((event) =>
        consumer.slots.run(() =>
          this.handleMessage(
            consumer,
            channel,
            event,
            Buffer.from(event.body, 'utf8'),
            consumer.subscription.handler,
          ),
        ),
      ),
    );
    const bundle = {
      consumer: consumer.subscription.consumer,
      messageId: stringProperty(raw.properties.messageId),
      type: BUNDLE_TYPE,
      events: events.length,
    };
    await this.settleDelivery(consumer, channel, raw, handled.every(Boolean), bundle);
  }

  /** Acks a delivery whose messages are all handled or parked; else gives it back, after a pause. */
  private async settleDelivery(
    consumer: ConsumerState,
    channel: ConfirmChannel,
    raw: ConsumeMessage,
    done: boolean,
    context: Record<string, unknown>,
  ): Promise<void> {
    if (done) {
      this.settle(() => channel.ack(raw), context);
      return;
    }
    // Not acked: give it back once, after a pause so a broker refusing our copies is not hammered.
    // On a closed channel the broker has already requeued it and the nack is moot.
    await sleep(consumer.subscription.retryDelayMs);
    this.settle(() => channel.nack(raw, false, true), context);
  }

  /**
   * Runs the handler on one message; a failure parks a copy of it (`content`) in the retry queue, or the
   * dead-letter queue on its last attempt. False when that copy could not be parked.
   */
  private async handleMessage(
    consumer: ConsumerState,
    channel: ConfirmChannel,
    delivered: DeliveredMessage,
    content: Buffer,
    handler: (message: DeliveredMessage) => Promise<void>,
  ): Promise<boolean> {
    const { subscription } = consumer;
    const context = contextOf(consumer, delivered);
    try {
      // A copy: the retry or dead-letter copy below must carry what arrived, whatever the handler did.
      await handler({ ...delivered, headers: { ...delivered.headers } });
      countConsumed(subscription.consumer, 'consumed');
      return true;
    } catch (error) {
      const reason = errorMessage(error);
      const counted = countsAsAttempt(error);
      try {
        const parked = await parkFailedMessage(
          channel,
          consumer.queues,
          { delivered, content, reason },
          {
            maxAttempts: subscription.maxAttempts,
            retryDelayMs: subscription.retryDelayMs,
            confirmTimeoutMs: this.settings.confirmTimeoutMs,
            countAttempt: counted,
          },
        );
        countConsumed(subscription.consumer, parked === 'retry' ? 'failed' : 'dead-lettered');
        if (parked === 'retry') {
          this.settings.logger.warn(
            { ...context, error: reason },
            counted
              ? 'Message handler failed; retrying later'
              : 'Message handler could not reach the database; retrying later, not counted as an attempt',
          );
        } else {
          this.settings.logger.error(
            { ...context, error: reason },
            'Message handler failed on its last attempt; message dead-lettered',
          );
        }
        return true;
      } catch (forwardError) {
        this.settings.logger.error(
          { ...context, error: reason, err: errorMessage(forwardError) },
          'Could not park a failed message for retry; returning it to the queue',
        );
        return false;
      }
    }
  }

  private settle(action: () => void, context: Record<string, unknown>): void {
    try {
      action();
    } catch (error) {
      // The channel closed under the handler: the broker redelivers the message on the next channel.
      this.settings.logger.warn(
        { ...context, err: errorMessage(error) },
        'Could not settle a message; it will be redelivered',
      );
    }
  }
}

function contextOf(consumer: ConsumerState, delivered: DeliveredMessage): Record<string, unknown> {
  return {
    consumer: consumer.subscription.consumer,
    messageId: delivered.id,
    type: delivered.type,
    attempt: delivered.attempt,
  };
}

/**
 * At most `size` messages in handlers at once, started in the order they asked: the prefetch bounds the
 * deliveries a consumer holds, this the events of its bundles as well.
 */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}

function clearRecovery(consumer: ConsumerState): void {
  if (consumer.recoveryTimer) clearTimeout(consumer.recoveryTimer);
  consumer.recoveryTimer = null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
