/**
 * The one AMQP connection of a bus: opening it, its publish channel, and reconnecting with backoff
 * after it drops. What runs on the connection (consumers) hears about a loss and a reconnection
 * through `ConnectionEvents`.
 */
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { type BusLogger, errorMessage } from '../bus-common';
import { declareExchange } from './topology';

/** TCP + AMQP handshake bound, so a black-holed broker address fails a (re)connect attempt. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface Session {
  model: ChannelModel;
  /** Opened lazily again if the broker closes it (e.g. the exchange was deleted under us). */
  publisher: Promise<ConfirmChannel> | null;
  /** False once the connection closed or we started closing it; a dead session is never reused. */
  alive: boolean;
}

export interface ConnectionEvents {
  /** The live connection dropped: every channel opened on it is gone. */
  lost(): void;
  /** A new connection replaced a lost one. */
  reconnected(session: Session): Promise<void>;
}

export interface ConnectionSettings {
  url: string;
  exchange: string;
  logger: BusLogger;
  backoff: Backoff;
  /** How long `liveSession()` callers are told they waited, for the error message. */
  waitTimeoutMs: number;
}

/** Wait before the next attempt after `failures` failed ones. */
export type Backoff = (failures: number) => number;

export function exponentialBackoff(initialMs: number, maxMs: number): Backoff {
  const cap = Math.max(maxMs, initialMs);
  return (failures) => {
    const base = Math.min(initialMs * 2 ** failures, cap);
    // Jitter, so that every instance of a service does not reconnect in the same millisecond.
    return Math.round(base * (0.8 + Math.random() * 0.4));
  };
}

export class RabbitMqConnection {
  private current: Session | null = null;
  private starting: Promise<void> | null = null;
  private started = false;
  private closedFlag = false;
  private readonly sessionWaiters = new Set<() => void>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** True while a reconnect attempt is opening its connection; a second attempt would leak one. */
  private connecting = false;
  /** The reconnect in progress, for close() to wait on so no connection outlives the bus. */
  private reconnecting: Promise<void> | null = null;
  private reconnectFailures = 0;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly events: ConnectionEvents,
  ) {}

  get isStarted(): boolean {
    return this.started;
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  /** The session if the connection is up right now. */
  liveNow(): Session | null {
    return this.current?.alive ? this.current : null;
  }

  async start(): Promise<void> {
    if (this.closedFlag) throw new Error('The bus is closed');
    if (this.started) return;
    this.starting ??= (async () => {
      const session = await this.openSession();
      if (this.closedFlag) {
        await closeSessionQuietly(session);
        throw new Error('The bus was closed while starting');
      }
      // Its loss would have gone unnoticed (no reconnect before a successful start); fail instead.
      if (!session.alive) throw new Error('The RabbitMQ connection dropped while starting');
      this.current = session;
      this.started = true;
      this.wakeSessionWaiters();
      this.settings.logger.info({ exchange: this.settings.exchange }, 'Connected to RabbitMQ');
    })().finally(() => {
      this.starting = null;
    });
    await this.starting;
  }

  /** The live session, waiting for a reconnection until `deadline` if the connection is down. */
  async liveSession(deadline: number): Promise<Session> {
    for (;;) {
      if (this.closedFlag) throw new Error('The bus is closed');
      if (this.current?.alive) return this.current;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(
          `Not connected to RabbitMQ (waited ${this.settings.waitTimeoutMs} ms for a reconnection)`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.sessionWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        this.sessionWaiters.add(wake);
      });
    }
  }

  publisherFor(session: Session): Promise<ConfirmChannel> {
    if (!session.publisher) {
      const opening = this.openPublisher(session);
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
                this.settings.logger.warn(
                  {},
                  'RabbitMQ publish channel closed; the next publish opens a new one',
                );
            });
          }),
        () => {
          if (session.publisher === opening) session.publisher = null;
        },
      );
    }
    return session.publisher;
  }

  /**
   * Stops reconnecting, waits for a start or reconnect in progress, then closes the connection;
   * `beforeClosing` runs first on the live session (to close what runs on it).
   */
  async close(beforeClosing: (session: Session) => Promise<void>): Promise<void> {
    if (this.closedFlag) return;
    this.closedFlag = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.wakeSessionWaiters();
    await this.starting?.catch(() => undefined);
    await this.reconnecting;
    const session = this.current;
    this.current = null;
    if (!session) return;
    session.alive = false;
    await beforeClosing(session);
    const publisher = await session.publisher?.catch(() => null);
    await publisher?.close().catch(() => undefined);
    await closeSessionQuietly(session);
    this.settings.logger.info({ exchange: this.settings.exchange }, 'RabbitMQ connection closed');
  }

  private async openSession(): Promise<Session> {
    const { logger } = this.settings;
    // Loaded with the first connection: the embedded system (in-process bus) never needs the client.
    const { connect } = await import('amqplib');
    const model = await connect(this.settings.url, { timeout: CONNECT_TIMEOUT_MS });
    const session: Session = { model, publisher: null, alive: true };
    // Without an 'error' listener an EventEmitter error would crash the process.
    model.on('error', (error: unknown) => {
      logger.warn({ err: errorMessage(error) }, 'RabbitMQ connection error');
    });
    model.on('close', (error: unknown) => this.onSessionLost(session, error));
    model.on('blocked', (reason: unknown) => {
      logger.warn({ reason }, 'RabbitMQ blocked the connection (resource alarm); publishes are waiting');
    });
    model.on('unblocked', () => logger.info({}, 'RabbitMQ unblocked the connection'));
    try {
      await this.publisherFor(session);
    } catch (error) {
      await closeSessionQuietly(session);
      throw error;
    }
    return session;
  }

  private async openPublisher(session: Session): Promise<ConfirmChannel> {
    const channel = await session.model.createConfirmChannel();
    channel.on('error', (error: unknown) => {
      this.settings.logger.warn({ err: errorMessage(error) }, 'RabbitMQ publish channel error');
    });
    await declareExchange(channel, this.settings.exchange);
    return channel;
  }

  private onSessionLost(session: Session, error: unknown): void {
    if (!session.alive) return;
    session.alive = false;
    if (this.current === session) this.current = null;
    // The broker requeues whatever the lost channels had unacked; the new session consumes it again.
    this.events.lost();
    // Before a successful start() there is nothing to resume; start() reports the failure instead.
    if (this.closedFlag || !this.started) return;
    this.settings.logger.warn(
      { err: error ? errorMessage(error) : undefined },
      'RabbitMQ connection lost; reconnecting',
    );
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closedFlag || this.reconnectTimer || this.connecting) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      const run = this.reconnect();
      this.reconnecting = run;
      void run.finally(() => {
        if (this.reconnecting === run) this.reconnecting = null;
      });
    }, this.settings.backoff(this.reconnectFailures));
  }

  private async reconnect(): Promise<void> {
    if (this.closedFlag || this.current?.alive) return;
    let session: Session;
    this.connecting = true;
    try {
      session = await this.openSession();
    } catch (error) {
      this.connecting = false;
      this.reconnectFailures += 1;
      this.settings.logger.warn(
        { err: errorMessage(error), failures: this.reconnectFailures },
        'Could not reconnect to RabbitMQ; retrying',
      );
      this.scheduleReconnect();
      return;
    }
    this.connecting = false;
    if (this.closedFlag) {
      await closeSessionQuietly(session);
      return;
    }
    if (!session.alive) {
      // Dropped again before we could use it; its loss was ignored while we were connecting.
      this.reconnectFailures += 1;
      this.scheduleReconnect();
      return;
    }
    this.current = session;
    this.reconnectFailures = 0;
    this.wakeSessionWaiters();
    this.settings.logger.info({ exchange: this.settings.exchange }, 'Reconnected to RabbitMQ');
    await this.events.reconnected(session);
  }

  private wakeSessionWaiters(): void {
    for (const wake of [...this.sessionWaiters]) wake();
  }
}

async function closeSessionQuietly(session: Session): Promise<void> {
  // Marked dead first, so the 'close' event we cause is not taken for a dropped connection.
  session.alive = false;
  await session.model.close().catch(() => undefined);
}
