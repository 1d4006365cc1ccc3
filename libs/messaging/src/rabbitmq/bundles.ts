/**
 * Bundles: events published in the same turn of the event loop under the same routing key, one after the
 * other, travel as one AMQP message. The broker's work is per message (routing, persisting, delivering,
 * acknowledging), and an outbox relay publishes up to a hundred events at once, most of them of one key
 * (a billing run's `installment.charge-due`, a batch's `charge.requested`): bundled, they cost the broker
 * and both clients one message instead of fifty.
 *
 * What a handler sees does not change: the consumer takes the bundle apart and hands over each event as
 * its own message (its id, type, headers, attempt 1). A failed event is retried or dead-lettered alone,
 * as a plain message; the bundle is acknowledged once each of its events was handled or parked. Order is
 * kept: only neighbours in publishing order share a bundle, and a consumer starts its events in order.
 */
import { routingKeyOf } from '@payrail/contracts';
import type { ConfirmChannel, Message, Options } from 'amqplib';
import type { DeliveredMessage, OutgoingMessage } from '../bus';
import { applicationHeaders } from '../bus-common';
import { publishConfirmed, withTimeout } from './publishing';

/** The AMQP `type` of a bundle; an event type never has this value (`libs/contracts` types have a dot). */
export const BUNDLE_TYPE = 'payrail.bundle';
const BUNDLE_CONTENT_TYPE = 'application/vnd.payrail.bundle+json';
/** Most bytes of events in one bundle: a bundle stays a small message for the broker. */
const BUNDLE_MAX_BYTES = 256 * 1024;

/** One event inside a bundle. */
interface BundledEvent {
  id: string;
  type: string;
  body: string;
  headers: Record<string, string>;
}

interface Pending {
  message: OutgoingMessage;
  routingKey: string;
  deadline: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Publishes through a confirm channel, gathering the publishes of one turn of the event loop: each run of
 * neighbours with the same routing key (up to `bundleMax` events) goes as one bundle, a lone event as
 * itself. Each publish resolves once the broker confirmed the message that carried it.
 */
export class BundlingPublisher {
  private readonly pending = new Map<ConfirmChannel, Pending[]>();
  private scheduled = false;

  constructor(
    private readonly exchange: string,
    private readonly bundleMax: number,
  ) {}

  publish(channel: ConfirmChannel, message: OutgoingMessage, timeoutMs: number): Promise<void> {
    if (this.bundleMax <= 1) return publishConfirmed(channel, this.exchange, message, timeoutMs);
    return new Promise<void>((resolve, reject) => {
      const routingKey = message.routingKey ?? routingKeyOf(message.type, message.body);
      const list = this.pending.get(channel) ?? [];
      list.push({ message, routingKey, deadline: Date.now() + timeoutMs, resolve, reject });
      this.pending.set(channel, list);
      if (!this.scheduled) {
        this.scheduled = true;
        // After every publish this turn has started (the relay's whole batch), before any I/O.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const pending = [...this.pending];
    this.pending.clear();
    for (const [channel, list] of pending) {
      for (const run of runsOf(list, this.bundleMax)) this.send(channel, run);
    }
  }

  private send(channel: ConfirmChannel, run: Pending[]): void {
    const timeoutMs = Math.min(...run.map((each) => each.deadline)) - Date.now();
    const sent =
      run.length === 1
        ? publishConfirmed(channel, this.exchange, (run[0] as Pending).message, timeoutMs)
        : publishBundle(channel, this.exchange, run, timeoutMs);
    sent.then(
      () => {
        for (const each of run) each.resolve();
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const each of run) each.reject(failure);
      },
    );
  }
}

/** Neighbours with the same routing key, at most `max` events and `BUNDLE_MAX_BYTES` of bodies each. */
function runsOf(list: Pending[], max: number): Pending[][] {
  const runs: Pending[][] = [];
  let run: Pending[] = [];
  let bytes = 0;
  for (const each of list) {
    const size = each.message.body.length;
    const first = run[0];
    if (
      first &&
      (first.routingKey !== each.routingKey || run.length >= max || bytes + size > BUNDLE_MAX_BYTES)
    ) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(each);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function publishBundle(
  channel: ConfirmChannel,
  exchange: string,
  run: Pending[],
  timeoutMs: number,
): Promise<void> {
  const events: BundledEvent[] = run.map(({ message }) => ({
    id: message.id,
    type: message.type,
    body: message.body,
    headers: applicationHeaders(message.headers),
  }));
  const first = events[0] as BundledEvent;
  const properties: Options.Publish = {
    persistent: true,
    messageId: `bundle:${first.id}`,
    type: BUNDLE_TYPE,
    contentType: BUNDLE_CONTENT_TYPE,
    timestamp: Math.floor(Date.now() / 1000),
    headers: { 'x-bundle-size': events.length },
  };
  return withTimeout(
    new Promise<void>((resolve, reject) => {
      channel.publish(
        exchange,
        (run[0] as Pending).routingKey,
        Buffer.from(JSON.stringify(events), 'utf8'),
        properties,
        (error: unknown) => {
          if (error) reject(error instanceof Error ? error : new Error(String(error)));
          else resolve();
        },
      );
    }),
    timeoutMs,
    `confirm from RabbitMQ for a bundle of ${events.length} messages from ${first.id}`,
  );
}

export function isBundle(raw: Message): boolean {
  return raw.properties.type === BUNDLE_TYPE;
}

/** The events of a bundle, each as a first delivery of its own; throws on a malformed bundle. */
export function eventsOfBundle(raw: Message): DeliveredMessage[] {
  const parsed: unknown = JSON.parse(raw.content.toString('utf8'));
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error('A bundle holds a list of events');
  return parsed.map((item: unknown) => {
    const event = item as Partial<BundledEvent> | null;
    if (
      !event ||
      typeof event.id !== 'string' ||
      typeof event.type !== 'string' ||
      typeof event.body !== 'string' ||
      typeof event.headers !== 'object' ||
      event.headers === null
    ) {
      throw new Error('A bundled event needs an id, a type, a body and headers');
    }
    return { id: event.id, type: event.type, body: event.body, headers: { ...event.headers }, attempt: 1 };
  });
}
