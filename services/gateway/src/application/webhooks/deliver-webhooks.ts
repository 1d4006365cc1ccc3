import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import { nextRetryDelay } from '../../domain/webhooks/retry-schedule';
import { signatureHeader } from './signature';
import type { WebhookSender } from '../../ports/webhook-sender';
import type { ClaimedDelivery, WebhookDeliveryStore } from '../../ports/webhook-delivery-store';
import type { WebhookEndpointRecord } from '../../ports/webhook-endpoint-store';

export interface DeliveryWorkerSettings {
  /** Delays after each failed attempt (the parsed `WEBHOOK_RETRY_SCHEDULE`). */
  retryDelaysMs: number[];
  /** Sends in flight at once, over all endpoints. */
  concurrency: number;
  /** Sends in flight at once to one endpoint: a slow receiver holds at most this many. */
  perEndpointConcurrency: number;
  /** How often the worker looks for due deliveries when nothing woke it. */
  pollIntervalMs: number;
  /** A claim lasts this long (longer than the receiver timeout): a crashed worker's claims come back. */
  leaseMs: number;
  /**
   * Deliveries claimed ahead of a free send slot (default `concurrency`): they wait in the worker, each
   * counted against its endpoint's cap as if in flight, and start as sends end. While some wait, the
   * worker claims again only once half as many sends have ended since its last claim, so that under load
   * a claim takes many deliveries, not the one or two a single ended send makes room for.
   */
  claimAhead?: number;
  /**
   * How long a delivery claimed ahead may wait for a slot (default 5 s): its lease is this much longer
   * than `leaseMs`, and one that waited longer is released instead of sent (claimable again at once).
   */
  queueWaitMs?: number;
}

export interface DeliveryWorkerDeps {
  deliveries: WebhookDeliveryStore;
  send: WebhookSender;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/** The secrets that sign now: the current one, and the previous one during the overlap after a rotation. */
export function signingSecrets(endpoint: WebhookEndpointRecord, now: Date): string[] {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now)
    secrets.push(endpoint.previousSecret);
  return secrets;
}

export function requestHeaders(delivery: ClaimedDelivery, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const { endpoint } = delivery;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'payrail-webhooks/1',
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(
      signingSecrets(endpoint, now),
      delivery.eventId,
      timestamp,
      delivery.eventBody,
    ),
  };
  if (endpoint.auth?.type === 'basic') {
    const credentials = Buffer.from(`${endpoint.auth.username}:${endpoint.auth.password}`).toString('base64');
    headers.authorization = `Basic ${credentials}`;
  } else if (endpoint.auth?.type === 'header') {
    headers[endpoint.auth.name.toLowerCase()] = endpoint.auth.value;
  }
  return headers;
}

/** At most this many delivered attempts in one statement. */
const DELIVERED_AT_ONCE = 200;

type Delivered = Parameters<WebhookDeliveryStore['recordDelivered']>[0][number];

/**
 * The attempts answered 2xx, written together: the first at once, and those that end while a write is
 * running wait for it and go in the next one (a group commit: under load one round trip for many, alone no
 * wait). A write that fails is made again one by one, so one bad row (a delivery deleted meanwhile) does not
 * keep the others' outcomes from being recorded; an attempt left unrecorded is sent again when its lease
 * lapses (the receiver sees the same `webhook-id`).
 */
export function groupCommit(store: WebhookDeliveryStore): (item: Delivered) => Promise<void> {
  const waiting: Array<{ item: Delivered; resolve: () => void; reject: (error: unknown) => void }> = [];
  let writing = false;
  async function drain(): Promise<void> {
    writing = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.splice(0, DELIVERED_AT_ONCE);
        try {
          await store.recordDelivered(batch.map(({ item }) => item));
          for (const { resolve } of batch) resolve();
        } catch {
          await Promise.all(
            batch.map(({ item, resolve, reject }) =>
              store
                .recordAttempt(item.deliveryId, item.attempt, { kind: 'delivered', at: item.at })
                .then(() => resolve(), reject),
            ),
          );
        }
      }
    } finally {
      writing = false;
    }
  }
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}

/** A delivery claimed and not yet sent, with the lease it was claimed until. */
interface Queued {
  delivery: ClaimedDelivery;
  leaseUntil: Date;
}

/**
 * The delivery worker: its own loop beside the API and the event consumer, so a slow or dead receiver
 * never holds up a payment or the consumer. It claims due deliveries (respecting the order of each
 * subscription or link and a per-endpoint concurrency cap, so one merchant's dead receiver takes at most
 * `perEndpointConcurrency` of the `concurrency` slots), sends them, and records each attempt.
 *
 * Claims are taken ahead: up to `claimAhead` claimed deliveries wait in the worker (oldest first) for a
 * send slot, and an endpoint's cap counts them with its sends in flight, so an endpoint never has more
 * than its cap claimed by the worker. With nothing waiting, a wake claims at once (a lone event is sent
 * without delay); with some waiting, the worker claims again once half of `claimAhead` sends have ended
 * since its last claim, and that claim takes what has been freed.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps, settings: DeliveryWorkerSettings) {
  const random = deps.random ?? Math.random;
  const claimAhead = Math.max(0, settings.claimAhead ?? settings.concurrency);
  const claimBatch = Math.max(1, Math.floor(claimAhead / 2));
  const queueWaitMs = settings.queueWaitMs ?? 5_000;
  /** Per endpoint: its sends in flight and its deliveries waiting in `queue`. */
  const busy = new Map<string, number>();
  const queue: Queued[] = [];
  let inFlight = 0;
  /** Sends started and not yet recorded (in flight, or answered and waiting for their record). */
  let recording = 0;
  /** Sends ended (and waiting deliveries dropped) since the last claim began. */
  let endedSinceClaim = 0;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let again = false;
  const sends = new Set<Promise<void>>();
  const recordDelivered = groupCommit(deps.deliveries);

  /** Sends `delivery`, calls `answered` once the receiver answered (or not), then records the attempt. */
  async function attempt(delivery: ClaimedDelivery, answered: () => void): Promise<void> {
    const startedAt = deps.clock.now();
    const response = await deps.send({
      url: delivery.endpoint.url,
      method: delivery.endpoint.method,
      headers: requestHeaders(delivery, startedAt),
      body: delivery.eventBody,
    });
    answered();
    const now = deps.clock.now();
    const delivered = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
    const failedAttempts = delivery.attemptCount + 1;
    const delay = delivered ? null : nextRetryDelay(settings.retryDelaysMs, failedAttempts, random);
    const outcome = delivered
      ? ({ kind: 'delivered', at: now } as const)
      : delay !== null
        ? ({ kind: 'retry', at: new Date(now.getTime() + delay) } as const)
        : ({ kind: 'failed', at: now, disableEndpointIfFailingSince: delivery.createdAt } as const);
    const record = {
      attemptedAt: startedAt,
      statusCode: response.statusCode,
      durationMs: response.durationMs,
      response: response.responseExcerpt,
      error: response.error,
    };
    if (outcome.kind === 'delivered') {
      await recordDelivered({ deliveryId: delivery.id, attempt: record, at: outcome.at });
      return;
    }
    const { endpointDisabled } = await deps.deliveries.recordAttempt(delivery.id, record, outcome);
    if (outcome.kind === 'failed') {
      deps.logger.warn(
        { deliveryId: delivery.id, endpointId: delivery.endpoint.id, attempts: failedAttempts },
        'webhook delivery failed for the whole retry window',
      );
    }
    if (endpointDisabled) {
      deps.logger.warn(
        { endpointId: delivery.endpoint.id, merchantId: delivery.endpoint.merchantId },
        'webhook endpoint disabled: failing for the whole retry window',
      );
    }
  }

  function release(endpointId: string): void {
    const left = (busy.get(endpointId) ?? 1) - 1;
    if (left > 0) busy.set(endpointId, left);
    else busy.delete(endpointId);
    endedSinceClaim += 1;
  }

  /** Lets go of claims that will not be sent by this worker (their leases cleared, best effort). */
  function releaseClaims(released: Queued[]): void {
    if (released.length === 0) return;
    const done = deps.deliveries
      .releaseClaims(released.map(({ delivery, leaseUntil }) => ({ id: delivery.id, leaseUntil })))
      .catch((error) =>
        deps.logger.warn(
          { err: error },
          'webhook claims not released; they come back when their lease lapses',
        ),
      )
      .finally(() => sends.delete(done));
    sends.add(done);
  }

  /**
   * Starts waiting deliveries while send slots are free, oldest first. One that waited so long that its
   * lease no longer covers a whole send (`leaseMs`) is released instead: it is claimed again in its turn.
   */
  function startQueued(): void {
    if (!running) return;
    const expired: Queued[] = [];
    while (inFlight < settings.concurrency && queue.length > 0) {
      const queued = queue.shift() as Queued;
      if (queued.leaseUntil.getTime() - deps.clock.now().getTime() < settings.leaseMs) {
        release(queued.delivery.endpoint.id);
        expired.push(queued);
        continue;
      }
      launch(queued.delivery);
    }
    releaseClaims(expired);
  }

  /**
   * Sends a claimed delivery. Its slot (and its place in its endpoint's cap) is free once the receiver has
   * answered: the attempt's record, written with others (`groupCommit`), does not hold a send slot. The
   * delivery stays leased and pending until it is recorded, so it is not claimed again, nor a later one
   * of its ordering key. Deliveries answered and not yet recorded beyond `concurrency` take room from
   * the next claims, so the worker does not run ahead of PostgreSQL.
   */
  function launch(delivery: ClaimedDelivery): void {
    const endpointId = delivery.endpoint.id;
    inFlight += 1;
    recording += 1;
    let answered = false;
    const free = () => {
      if (answered) return;
      answered = true;
      inFlight -= 1;
      release(endpointId);
      startQueued();
      wake();
    };
    const send = attempt(delivery, free)
      .catch((error) =>
        deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt not recorded'),
      )
      .finally(() => {
        // Claims were held back while too many answered deliveries waited for their record.
        const heldBack = recording - inFlight > settings.concurrency;
        recording -= 1;
        sends.delete(send);
        free();
        if (heldBack) wake();
      });
    sends.add(send);
  }

  async function poll(): Promise<void> {
    do {
      again = false;
      if (!running) return;
      const unrecorded = recording - inFlight;
      const room =
        settings.concurrency +
        claimAhead -
        inFlight -
        queue.length -
        Math.max(0, unrecorded - settings.concurrency);
      // With deliveries waiting, wait for enough room that the claim takes many.
      if (room <= 0 || (queue.length > 0 && endedSinceClaim < claimBatch)) return;
      const now = deps.clock.now();
      const leaseUntil = new Date(now.getTime() + settings.leaseMs + queueWaitMs);
      endedSinceClaim = 0;
      const claimed = await deps.deliveries.claimDue({
        now,
        limit: room,
        perEndpoint: settings.perEndpointConcurrency,
        busy,
        leaseUntil,
      });
      for (const delivery of claimed) {
        busy.set(delivery.endpoint.id, (busy.get(delivery.endpoint.id) ?? 0) + 1);
        queue.push({ delivery, leaseUntil });
      }
      startQueued();
      if (claimed.length === room) again = true;
    } while (again && running);
  }

  /** Look for due deliveries now (coalesced: one look at a time, and one more if asked meanwhile). */
  function wake(): void {
    if (!running) return;
    if (polling) {
      again = true;
      return;
    }
    polling = poll()
      .catch((error) => deps.logger.warn({ err: error }, 'webhook delivery poll failed; will retry'))
      .finally(() => {
        polling = undefined;
        // A wake that came after the look's last check (a send ending meanwhile) is answered now, not
        // at the next poll interval.
        if (again) wake();
      });
  }

  return {
    wake,
    start(): void {
      if (running) return;
      running = true;
      timer = setInterval(wake, settings.pollIntervalMs);
      timer.unref();
      wake();
    },
    /**
     * Stops claiming, releases the claims waiting for a slot (claimable again at once, by another
     * replica or the next start) and waits for the sends in flight to be recorded.
     */
    async stop(): Promise<void> {
      running = false;
      if (timer) clearInterval(timer);
      await polling;
      const waiting = queue.splice(0);
      for (const { delivery } of waiting) release(delivery.endpoint.id);
      releaseClaims(waiting);
      while (sends.size > 0) await Promise.allSettled([...sends]);
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
