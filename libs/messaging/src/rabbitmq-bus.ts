/**
 * The bus on RabbitMQ.
 *
 * Topology: one durable topic exchange; routing key = event type. Each consumer owns three durable
 * queues: `<prefix><consumer>` (bound to its event types), `<...>.retry` (no consumer: a failed
 * message waits there for its per-message expiration, then RabbitMQ dead-letters it back to the main
 * queue through the default exchange) and `<...>.dlq` (messages that used up their attempts).
 *
 * Delivery is at least once: a message is acked only after its handler succeeded or after its retry or
 * dead-letter copy was confirmed by the broker, so a crash or a dropped connection can repeat a message
 * but never lose one. De-duplication is the inbox's job.
 */
import {
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  connect,
  type GetMessage,
  type Options,
} from 'amqplib';
import type { DeadLetter, DeliveredMessage, MessageBus, OutgoingMessage, Subscription } from './bus';
import {
  applicationHeaders,
  ATTEMPT_HEADER,
  ATTEMPTS_HEADER,
  type BusLogger,
  ERROR_HEADER,
  errorMessage,
  isReservedHeader,
  type ResolvedSubscription,
  resolveSubscription,
  silentLogger,
  drainInFlight,
} from './bus-common';

export interface RabbitMqBusOptions {
  /** `amqp://user:password@host:5672/vhost` */
  url: string;
  /** The durable topic exchange every event is published to. */
  exchange: string;
  /** Prepended to every consumer's queue names; tests use it to keep their queues apart. */
  queuePrefix?: string;
  logger?: BusLogger;
  /** First wait before reconnecting (or re-consuming); doubles on each failure. Default 1000. */
  reconnectDelayMs?: number;
  /** Upper bound of the reconnect backoff. Default 30 000. */
  maxReconnectDelayMs?: number;
  /**
   * How long `publish()` (and `subscribe()`, `drainDeadLetters()`) wait for a connection plus the
   * broker's confirm before rejecting. Default 10 000; the outbox relay retries a rejected publish.
   */
  publishTimeoutMs?: number;
}

/** TCP + AMQP handshake bound, so a black-holed broker address fails a (re)connect attempt. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The error text is only for operators; a long stack would bloat every dead letter's headers. */
const MAX_ERROR_HEADER_LENGTH = 2_000;

interface Session {
  model: ChannelModel;
  /** Opened lazily again if the broker closes it (e.g. the exchange was deleted under us). */
  publisher: Promise<ConfirmChannel> | null;
  /** False once the connection closed or we started closing it; a dead session is never reused. */
  alive: boolean;
}

interface ConsumerState {
  subscription: ResolvedSubscription;
  queue: string;
  retryQueue: string;
  deadLetterQueue: string;
  channel: ConfirmChannel | null;
  /** Set only while the broker is delivering to us; what `isReady()` looks at. */
  tag: string | null;
  /** The one set-up in progress, so a reconnect and a recovery never open two consumers. */
  starting: Promise<void> | null;
  recoveryTimer: NodeJS.Timeout | null;
  failures: number;
  inFlight: Set<Promise<void>>;
}

export function createRabbitMqBus(options: RabbitMqBusOptions): MessageBus {
  const logger = options.logger ?? silentLogger;
  const queuePrefix = options.queuePrefix ?? '';
  const reconnectDelayMs = options.reconnectDelayMs ?? 1_000;
  const maxReconnectDelayMs = Math.max(options.maxReconnectDelayMs ?? 30_000, reconnectDelayMs);
  const publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
  const { exchange } = options;

  const consumers = new Map<string, ConsumerState>();
  const sessionWaiters = new Set<() => void>();
  let current: Session | null = null;
  let starting: Promise<void> | null = null;
  let started = false;
  let stopped = false;
  let closed = false;
  let reconnectTimer: NodeJS.Timeout | null = null;
  /** True while a reconnect attempt is opening its connection; a second attempt would leak one. */
  let connecting = false;
  /** The reconnect in progress, for close() to wait on so no connection outlives the bus. */
  let reconnecting: Promise<void> | null = null;
  let reconnectFailures = 0;

  const queueName = (consumer: string): string => `${queuePrefix}${consumer}`;

  function backoff(failures: number): number {
    const base = Math.min(reconnectDelayMs * 2 ** failures, maxReconnectDelayMs);
    // Jitter, so that every instance of a service does not reconnect in the same millisecond.
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  // --- connection -------------------------------------------------------------------------------

  async function openSession(): Promise<Session> {
    const model = await connect(options.url, { timeout: CONNECT_TIMEOUT_MS });
    const session: Session = { model, publisher: null, alive: true };
    // Without an 'error' listener an EventEmitter error would crash the process.
    model.on('error', (error: unknown) => {
      logger.warn({ err: errorMessage(error) }, 'RabbitMQ connection error');
    });
    model.on('close', (error: unknown) => onSessionLost(session, error));
    model.on('blocked', (reason: unknown) => {
      logger.warn({ reason }, 'RabbitMQ blocked the connection (resource alarm); publishes are waiting');
    });
    model.on('unblocked', () => logger.info({}, 'RabbitMQ unblocked the connection'));
    try {
      await publisherFor(session);
    } catch (error) {
      await closeSessionQuietly(session);
      throw error;
    }
    return session;
  }

  function publisherFor(session: Session): Promise<ConfirmChannel> {
    if (!session.publisher) {
      const opening = openPublisher(session);
      session.publisher = opening;
      opening.then(
        (channel) =>
          channel.on('close', () => {
            if (session.publisher !== opening) return;
            session.publisher = null;
            // Deferred: when the whole connection drops, its channels close just before it does,
            // and only the connection's loss is worth a line.
            setImmediate(() => {
              if (session.alive)
                logger.warn({}, 'RabbitMQ publish channel closed; the next publish opens a new one');
            });
          }),
        () => {
          if (session.publisher === opening) session.publisher = null;
        },
      );
    }
    return session.publisher;
  }

  async function openPublisher(session: Session): Promise<ConfirmChannel> {
    const channel = await session.model.createConfirmChannel();
    channel.on('error', (error: unknown) => {
      logger.warn({ err: errorMessage(error) }, 'RabbitMQ publish channel error');
    });
    await channel.assertExchange(exchange, 'topic', { durable: true });
    return channel;
  }

  async function closeSessionQuietly(session: Session): Promise<void> {
    // Marked dead first, so the 'close' event we cause is not taken for a dropped connection.
    session.alive = false;
    await session.model.close().catch(() => undefined);
  }

  function onSessionLost(session: Session, error: unknown): void {
    if (!session.alive) return;
    session.alive = false;
    if (current === session) current = null;
    for (const consumer of consumers.values()) {
      // The broker requeues whatever these channels had unacked; the new session consumes it again.
      consumer.channel = null;
      consumer.tag = null;
      clearRecovery(consumer);
    }
    // Before a successful start() there is nothing to resume; start() reports the failure instead.
    if (closed || !started) return;
    logger.warn({ err: error ? errorMessage(error) : undefined }, 'RabbitMQ connection lost; reconnecting');
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer || connecting) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      const run = reconnect();
      reconnecting = run;
      void run.finally(() => {
        if (reconnecting === run) reconnecting = null;
      });
    }, backoff(reconnectFailures));
  }

  async function reconnect(): Promise<void> {
    if (closed || current?.alive) return;
    let session: Session;
    connecting = true;
    try {
      session = await openSession();
    } catch (error) {
      connecting = false;
      reconnectFailures += 1;
      logger.warn(
        { err: errorMessage(error), failures: reconnectFailures },
        'Could not reconnect to RabbitMQ; retrying',
      );
      scheduleReconnect();
      return;
    }
    connecting = false;
    if (closed) {
      await closeSessionQuietly(session);
      return;
    }
    if (!session.alive) {
      // Dropped again before we could use it; its loss was ignored while we were connecting.
      reconnectFailures += 1;
      scheduleReconnect();
      return;
    }
    current = session;
    reconnectFailures = 0;
    wakeSessionWaiters();
    logger.info({ exchange }, 'Reconnected to RabbitMQ');
    if (stopped) return;
    await Promise.all(
      [...consumers.values()].map((consumer) =>
        ensureConsuming(consumer, session).catch((error: unknown) => {
          logger.warn(
            { consumer: consumer.subscription.consumer, err: errorMessage(error) },
            'Could not resume a consumer after reconnecting; retrying',
          );
          scheduleRecovery(consumer);
        }),
      ),
    );
  }

  function wakeSessionWaiters(): void {
    for (const wake of [...sessionWaiters]) wake();
  }

  /** The live session, waiting for a reconnection until `deadline` if the connection is down. */
  async function liveSession(deadline: number): Promise<Session> {
    for (;;) {
      if (closed) throw new Error('The bus is closed');
      if (current?.alive) return current;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(`Not connected to RabbitMQ (waited ${publishTimeoutMs} ms for a reconnection)`);
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          sessionWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        sessionWaiters.add(wake);
      });
    }
  }

  // --- consumers --------------------------------------------------------------------------------

  function ensureConsuming(consumer: ConsumerState, session: Session): Promise<void> {
    if (!consumer.starting) {
      const attempt = startConsumer(consumer, session).finally(() => {
        if (consumer.starting === attempt) consumer.starting = null;
      });
      consumer.starting = attempt;
    }
    return consumer.starting;
  }

  async function startConsumer(consumer: ConsumerState, session: Session): Promise<void> {
    if (consumer.tag !== null) return;
    try {
      // A channel that is still open lost only its consumer (server-side cancel): consume on it
      // again rather than drop it, so handlers in flight can still ack.
      let channel = consumer.channel;
      if (!channel) {
        channel = await openConsumerChannel(consumer, session);
      }
      await declareAndConsume(consumer, channel);
    } catch (error) {
      const broken = consumer.channel;
      consumer.channel = null;
      consumer.tag = null;
      await broken?.close().catch(() => undefined);
      throw error;
    }
  }

  async function openConsumerChannel(consumer: ConsumerState, session: Session): Promise<ConfirmChannel> {
    const channel = await session.model.createConfirmChannel();
    if (!session.alive) throw new Error('RabbitMQ connection lost while opening a consumer channel');
    consumer.channel = channel;
    const name = consumer.subscription.consumer;
    channel.on('error', (error: unknown) => {
      logger.warn({ consumer: name, err: errorMessage(error) }, 'RabbitMQ consumer channel error');
    });
    channel.on('close', () => onConsumerChannelClosed(consumer, channel));
    await channel.prefetch(consumer.subscription.prefetch);
    return channel;
  }

  async function declareAndConsume(consumer: ConsumerState, channel: ConfirmChannel): Promise<void> {
    const { queue, retryQueue, deadLetterQueue, subscription } = consumer;
    // Declared on every (re)start: idempotent, and it repairs an exchange or queue deleted under us.
    await channel.assertExchange(exchange, 'topic', { durable: true });
    await channel.assertQueue(queue, { durable: true });
    await channel.assertQueue(retryQueue, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queue },
    });
    await channel.assertQueue(deadLetterQueue, { durable: true });
    for (const type of subscription.eventTypes) await channel.bindQueue(queue, exchange, type);
    const { consumerTag } = await channel.consume(queue, (message) => onDelivery(consumer, channel, message));
    if (stopped || closed || consumer.channel !== channel) {
      // stopConsuming() or close() ran while we were setting up; do not start taking messages.
      await channel.cancel(consumerTag).catch(() => undefined);
      return;
    }
    consumer.tag = consumerTag;
    consumer.failures = 0;
  }

  function onConsumerChannelClosed(consumer: ConsumerState, channel: ConfirmChannel): void {
    if (consumer.channel !== channel) return;
    consumer.channel = null;
    consumer.tag = null;
    // Deferred: when the whole connection drops, its channels close just before it does, and then
    // the reconnect resumes every consumer; only a channel lost on a live connection is ours to reopen.
    setImmediate(() => {
      if (closed || stopped || consumers.get(consumer.subscription.consumer) !== consumer) return;
      if (!current?.alive || consumer.channel !== null) return;
      logger.warn(
        { consumer: consumer.subscription.consumer },
        'RabbitMQ consumer channel closed; reopening',
      );
      scheduleRecovery(consumer);
    });
  }

  function scheduleRecovery(consumer: ConsumerState): void {
    if (closed || stopped || consumer.recoveryTimer) return;
    consumer.recoveryTimer = setTimeout(() => {
      consumer.recoveryTimer = null;
      void recover(consumer);
    }, backoff(consumer.failures));
  }

  function clearRecovery(consumer: ConsumerState): void {
    if (consumer.recoveryTimer) clearTimeout(consumer.recoveryTimer);
    consumer.recoveryTimer = null;
  }

  async function recover(consumer: ConsumerState): Promise<void> {
    if (closed || stopped || consumers.get(consumer.subscription.consumer) !== consumer) return;
    // With the connection down, the reconnect resumes every consumer; nothing to do here.
    const session = current;
    if (!session?.alive) return;
    try {
      await ensureConsuming(consumer, session);
      logger.info({ consumer: consumer.subscription.consumer }, 'RabbitMQ consumer resumed');
    } catch (error) {
      consumer.failures += 1;
      logger.warn(
        { consumer: consumer.subscription.consumer, err: errorMessage(error), failures: consumer.failures },
        'Could not resume a RabbitMQ consumer; retrying',
      );
      scheduleRecovery(consumer);
    }
  }

  function onDelivery(
    consumer: ConsumerState,
    channel: ConfirmChannel,
    message: ConsumeMessage | null,
  ): void {
    if (message === null) {
      // The broker cancelled us (queue deleted, node failover). Not consuming any more: say so in
      // isReady() and consume again rather than sit there as a silent zombie.
      if (consumer.channel === channel && consumer.tag !== null) {
        consumer.tag = null;
        logger.warn(
          { consumer: consumer.subscription.consumer },
          'RabbitMQ cancelled the consumer; re-consuming',
        );
        scheduleRecovery(consumer);
      }
      return;
    }
    const task = handleDelivery(consumer, channel, message).finally(() => consumer.inFlight.delete(task));
    consumer.inFlight.add(task);
  }

  async function handleDelivery(
    consumer: ConsumerState,
    channel: ConfirmChannel,
    raw: ConsumeMessage,
  ): Promise<void> {
    const { subscription } = consumer;
    const rawHeaders: Record<string, unknown> = raw.properties.headers ?? {};
    const delivered: DeliveredMessage = {
      id: stringProperty(raw.properties.messageId),
      type: stringProperty(raw.properties.type) || raw.fields.routingKey,
      body: raw.content.toString('utf8'),
      headers: headersFromAmqp(rawHeaders),
      attempt: attemptNumber(rawHeaders[ATTEMPT_HEADER]),
    };
    const context = {
      consumer: subscription.consumer,
      messageId: delivered.id,
      type: delivered.type,
      attempt: delivered.attempt,
    };
    try {
      // A copy: the retry or dead-letter copy below must carry what arrived, whatever the handler did.
      await subscription.handler({ ...delivered, headers: { ...delivered.headers } });
    } catch (error) {
      const reason = errorMessage(error);
      try {
        if (delivered.attempt < subscription.maxAttempts) {
          await sendConfirmed(channel, consumer.retryQueue, raw.content, {
            ...copyProperties(delivered),
            headers: { ...delivered.headers, [ATTEMPT_HEADER]: delivered.attempt + 1 },
            expiration: String(subscription.retryDelayMs),
          });
          logger.warn({ ...context, error: reason }, 'Message handler failed; retrying later');
        } else {
          await sendConfirmed(channel, consumer.deadLetterQueue, raw.content, {
            ...copyProperties(delivered),
            headers: {
              ...delivered.headers,
              [ATTEMPTS_HEADER]: delivered.attempt,
              [ERROR_HEADER]: reason.slice(0, MAX_ERROR_HEADER_LENGTH),
            },
          });
          logger.error(
            { ...context, error: reason },
            'Message handler failed on its last attempt; message dead-lettered',
          );
        }
      } catch (forwardError) {
        logger.error(
          { ...context, error: reason, err: errorMessage(forwardError) },
          'Could not park a failed message for retry; returning it to the queue',
        );
        // Not acked: give it back once, after a pause so a broker refusing our copies is not hammered.
        // On a closed channel the broker has already requeued it and the nack is moot.
        await sleep(subscription.retryDelayMs);
        settle(() => channel.nack(raw, false, true), context);
        return;
      }
    }
    settle(() => channel.ack(raw), context);
  }

  function settle(action: () => void, context: Record<string, unknown>): void {
    try {
      action();
    } catch (error) {
      // The channel closed under the handler: the broker redelivers the message on the next channel.
      logger.warn(
        { ...context, err: errorMessage(error) },
        'Could not settle a message; it will be redelivered',
      );
    }
  }

  function sendConfirmed(
    channel: ConfirmChannel,
    queue: string,
    content: Buffer,
    properties: Options.Publish,
  ): Promise<void> {
    return withTimeout(
      new Promise<void>((resolve, reject) => {
        channel.sendToQueue(queue, content, properties, (error: unknown) => {
          if (error) reject(error instanceof Error ? error : new Error(String(error)));
          else resolve();
        });
      }),
      publishTimeoutMs,
      `confirm from RabbitMQ for a message sent to ${queue}`,
    );
  }

  // --- shutdown ---------------------------------------------------------------------------------

  // --- the port ---------------------------------------------------------------------------------

  return {
    async start() {
      if (closed) throw new Error('The bus is closed');
      if (started) return;
      starting ??= (async () => {
        const session = await openSession();
        if (closed) {
          await closeSessionQuietly(session);
          throw new Error('The bus was closed while starting');
        }
        // Its loss would have gone unnoticed (no reconnect before a successful start); fail instead.
        if (!session.alive) throw new Error('The RabbitMQ connection dropped while starting');
        current = session;
        started = true;
        wakeSessionWaiters();
        logger.info({ exchange }, 'Connected to RabbitMQ');
      })().finally(() => {
        starting = null;
      });
      await starting;
    },

    async publish(message: OutgoingMessage) {
      if (!started) throw new Error('Call start() before publish()');
      const deadline = Date.now() + publishTimeoutMs;
      const session = await liveSession(deadline);
      const channel = await withTimeout(publisherFor(session), deadline - Date.now(), 'a publish channel');
      const options: Options.Publish = {
        persistent: true,
        messageId: message.id,
        type: message.type,
        contentType: 'application/json',
        timestamp: Math.floor(Date.now() / 1000),
        headers: applicationHeaders(message.headers),
      };
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          channel.publish(
            exchange,
            message.type,
            Buffer.from(message.body, 'utf8'),
            options,
            (error: unknown) => {
              if (error) reject(error instanceof Error ? error : new Error(String(error)));
              else resolve();
            },
          );
        }),
        deadline - Date.now(),
        `confirm from RabbitMQ for message ${message.id}`,
      );
    },

    async subscribe(input: Subscription) {
      if (closed) throw new Error('The bus is closed');
      if (!started) throw new Error('Call start() before subscribe()');
      if (stopped) throw new Error('The bus has stopped consuming');
      const subscription = resolveSubscription(input);
      const name = subscription.consumer;
      if (consumers.has(name)) throw new Error(`Consumer ${name} is already subscribed on this bus`);
      const consumer: ConsumerState = {
        subscription,
        queue: queueName(name),
        retryQueue: `${queueName(name)}.retry`,
        deadLetterQueue: `${queueName(name)}.dlq`,
        channel: null,
        tag: null,
        starting: null,
        recoveryTimer: null,
        failures: 0,
        inFlight: new Set(),
      };
      // Registered first, so that a reconnection while we set up also resumes this consumer.
      consumers.set(name, consumer);
      try {
        const session = await liveSession(Date.now() + publishTimeoutMs);
        await ensureConsuming(consumer, session);
      } catch (error) {
        consumers.delete(name);
        clearRecovery(consumer);
        const channel = consumer.channel;
        consumer.channel = null;
        await channel?.close().catch(() => undefined);
        throw error;
      }
    },

    async stopConsuming() {
      stopped = true;
      await Promise.all(
        [...consumers.values()].map(async (consumer) => {
          clearRecovery(consumer);
          // A set-up in progress cancels itself once it sees `stopped`; wait so it cannot outlive us.
          await consumer.starting?.catch(() => undefined);
          const { channel, tag } = consumer;
          consumer.tag = null;
          if (!channel || tag === null) return;
          await channel.cancel(tag).catch((error: unknown) => {
            logger.warn(
              { consumer: consumer.subscription.consumer, err: errorMessage(error) },
              'Could not cancel a RabbitMQ consumer',
            );
          });
        }),
      );
      // Every delivery that arrived before the cancel-ok has its handler registered by now.
      await drainInFlight(consumers.values());
    },

    async close() {
      if (closed) return;
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      wakeSessionWaiters();
      for (const consumer of consumers.values()) clearRecovery(consumer);
      await starting?.catch(() => undefined);
      await reconnecting;
      const session = current;
      current = null;
      if (!session) return;
      session.alive = false;
      for (const consumer of consumers.values()) {
        const channel = consumer.channel;
        consumer.channel = null;
        consumer.tag = null;
        await channel?.close().catch(() => undefined);
      }
      const publisher = await session.publisher?.catch(() => null);
      await publisher?.close().catch(() => undefined);
      await closeSessionQuietly(session);
      logger.info({ exchange }, 'RabbitMQ connection closed');
    },

    isReady() {
      if (!started || stopped || closed || !current?.alive) return false;
      for (const consumer of consumers.values()) if (consumer.tag === null) return false;
      return true;
    },

    async drainDeadLetters(consumer: string) {
      const session = await liveSession(Date.now() + publishTimeoutMs);
      const channel = await session.model.createChannel();
      // A missing queue closes the channel with an error event; the failed get() reports it.
      channel.on('error', () => undefined);
      const letters: DeadLetter[] = [];
      try {
        for (;;) {
          const message = await channel.get(`${queueName(consumer)}.dlq`, { noAck: false });
          if (message === false) return letters;
          letters.push(deadLetterFrom(message));
          channel.ack(message);
        }
      } catch (error) {
        // No dead-letter queue means this consumer never subscribed: nothing was dead-lettered.
        if (isNotFound(error)) return letters;
        throw error;
      } finally {
        await channel.close().catch(() => undefined);
      }
    },
  };
}

function copyProperties(message: DeliveredMessage): Options.Publish {
  return {
    persistent: true,
    messageId: message.id,
    type: message.type,
    contentType: 'application/json',
    timestamp: Math.floor(Date.now() / 1000),
  };
}

function deadLetterFrom(message: GetMessage): DeadLetter {
  const rawHeaders: Record<string, unknown> = message.properties.headers ?? {};
  return {
    id: stringProperty(message.properties.messageId),
    type: stringProperty(message.properties.type),
    body: message.content.toString('utf8'),
    headers: headersFromAmqp(rawHeaders),
    attempts: Number(rawHeaders[ATTEMPTS_HEADER] ?? 0),
    error: stringProperty(rawHeaders[ERROR_HEADER]),
  };
}

/** The application's headers as strings; bus and broker bookkeeping (x-attempt, x-death...) left out. */
function headersFromAmqp(raw: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (isReservedHeader(name)) continue;
    if (typeof value === 'string') headers[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      headers[name] = String(value);
    } else if (Buffer.isBuffer(value)) headers[name] = value.toString('utf8');
    // Tables and arrays have no faithful string form; only publishers outside the bus send them.
  }
  return headers;
}

function attemptNumber(value: unknown): number {
  const attempt = Number(value);
  return Number.isInteger(attempt) && attempt >= 1 ? attempt : 1;
}

function stringProperty(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}

/** amqplib reports a channel closed by the broker either as an Error with `code` or as the raw close frame. */
function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if ('code' in error && error.code === 404) return true;
  return (
    'fields' in error &&
    typeof error.fields === 'object' &&
    error.fields !== null &&
    'replyCode' in error.fields &&
    error.fields.replyCode === 404
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), Math.max(timeoutMs, 0));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
