import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '@payrail/observability';
import type { FaultBook } from './faults';
import type { ProcessorId } from './processors';
import type { SimulatedClock } from './simulated-clock';

/** PROCESSOR_B retries an unanswered notification every 10 minutes (Pagopar's documented policy). */
export const NOTIFICATION_RETRY_MS = 10 * 60_000;
export const MAX_NOTIFICATION_ATTEMPTS = 144;
const SEND_TIMEOUT_MS = 30_000;

export interface WebhookReply {
  status: number;
  text: string;
}

/** Where a processor's webhooks go: a configured URL, or processor-gateway through the runtime. */
export type WebhookTransport = (
  processor: ProcessorId,
  body: unknown,
) => Promise<WebhookReply & { url: string }>;

export interface DeliveryLogEntry {
  processor: ProcessorId;
  deliveryId: number;
  url: string | null;
  attempt: number;
  /** HTTP status of the receiver's answer; null when not sent or no answer. */
  status: number | null;
  /** PROCESSOR_B: whether the answer echoed `resultado`. */
  echoed?: boolean;
  note?: 'dropped' | 'held' | 'duplicate' | 'delayed';
  error?: string;
  body: unknown;
  at: string;
}

interface Delivery {
  id: number;
  processor: ProcessorId;
  body: unknown;
  /** For notifications that must be echoed: what the answer must contain. */
  echo?: unknown;
  attempts: number;
  dropNextAttempt: boolean;
  nextAttemptAt?: Date;
  done: boolean;
  inFlight: boolean;
}

/**
 * Sends the processors' webhooks with the faults armed by the test API (drop, duplicate, delay,
 * reorder) and, for notifications that must be echoed, the retry schedule on the simulated clock.
 */
export class WebhookDispatcher {
  private deliveries: Delivery[] = [];
  private held = new Map<ProcessorId, Delivery[]>();
  private log: DeliveryLogEntry[] = [];
  private timers = new Set<NodeJS.Timeout>();
  private background = new Set<Promise<void>>();
  private nextId = 1;

  constructor(
    private readonly transport: WebhookTransport,
    private readonly faults: FaultBook,
    private readonly clock: SimulatedClock,
    private readonly logger: Logger,
  ) {}

  /** Sends once, never retried (PROCESSOR_A's confirmation). */
  sendOnce(processor: ProcessorId, body: unknown, options: { dropFirstAttempt?: boolean } = {}) {
    return this.start(processor, body, undefined, options.dropFirstAttempt ?? false);
  }

  /** Sends and retries every 10 simulated minutes until the answer echoes `echo` (PROCESSOR_B). */
  sendUntilEchoed(
    processor: ProcessorId,
    body: unknown,
    echo: unknown,
    options: { dropFirstAttempt?: boolean } = {},
  ) {
    return this.start(processor, body, echo, options.dropFirstAttempt ?? false);
  }

  private async start(processor: ProcessorId, body: unknown, echo: unknown, dropFirst: boolean) {
    const delivery: Delivery = {
      id: this.nextId++,
      processor,
      body,
      echo,
      attempts: 0,
      dropNextAttempt: dropFirst,
      done: false,
      inFlight: false,
    };
    this.deliveries.push(delivery);
    await this.attempt(delivery);
  }

  /** Runs the retries that are due on the simulated clock; awaited by the clock control. */
  async runDue(): Promise<void> {
    const now = this.clock.now().getTime();
    const due = this.deliveries.filter(
      (d) => !d.done && !d.inFlight && d.nextAttemptAt && d.nextAttemptAt.getTime() <= now,
    );
    for (const delivery of due) await this.attempt(delivery);
  }

  /** Sends held (reordered) webhooks now, last queued first. */
  async flushHeld(): Promise<void> {
    for (const [processor, held] of this.held) {
      this.held.set(processor, []);
      for (const delivery of held.reverse()) await this.send(delivery);
    }
  }

  /** Waits for delayed sends started in the background. */
  async settle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  entries(): DeliveryLogEntry[] {
    return [...this.log];
  }

  reset(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.deliveries = [];
    this.held.clear();
    this.log = [];
  }

  private async attempt(delivery: Delivery): Promise<void> {
    delivery.attempts += 1;
    delivery.nextAttemptAt = undefined;
    const dropped = delivery.dropNextAttempt || this.faults.take(delivery.processor, 'drop-webhook');
    delivery.dropNextAttempt = false;
    if (dropped) {
      this.note(delivery, 'dropped');
      this.scheduleRetry(delivery);
      return;
    }
    const reorder = this.faults.take(delivery.processor, 'reorder-webhooks');
    if (reorder) {
      const held = this.held.get(delivery.processor) ?? [];
      held.push(delivery);
      this.held.set(delivery.processor, held);
      this.note(delivery, 'held');
      if (reorder.remaining <= 0) {
        this.held.set(delivery.processor, []);
        for (const later of held.reverse()) await this.send(later);
      }
      return;
    }
    const delay = this.faults.take(delivery.processor, 'delay-webhook');
    if (delay) {
      this.note(delivery, 'delayed');
      delivery.inFlight = true;
      const sent = new Promise<void>((resolve) => {
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            this.send(delivery).finally(resolve);
          },
          (delay.seconds ?? 1) * 1000,
        );
        timer.unref?.();
        this.timers.add(timer);
      });
      this.background.add(sent);
      void sent.finally(() => this.background.delete(sent));
      return;
    }
    const duplicate = this.faults.take(delivery.processor, 'duplicate-webhook');
    await this.send(delivery);
    if (duplicate) await this.send(delivery, 'duplicate');
  }

  private async send(delivery: Delivery, note?: 'duplicate'): Promise<void> {
    delivery.inFlight = true;
    const at = this.clock.now().toISOString();
    try {
      const reply = await withTimeout(this.transport(delivery.processor, delivery.body), SEND_TIMEOUT_MS);
      const echoed =
        delivery.echo === undefined ? undefined : reply.status === 200 && echoes(reply.text, delivery.echo);
      this.log.push({
        processor: delivery.processor,
        deliveryId: delivery.id,
        url: reply.url,
        attempt: delivery.attempts,
        status: reply.status,
        ...(echoed === undefined ? {} : { echoed }),
        ...(note ? { note } : {}),
        body: delivery.body,
        at,
      });
      if (echoed === undefined || echoed) delivery.done = true;
    } catch (error) {
      this.logger.warn({ err: error, processor: delivery.processor }, 'sandbox webhook not delivered');
      this.log.push({
        processor: delivery.processor,
        deliveryId: delivery.id,
        url: null,
        attempt: delivery.attempts,
        status: null,
        ...(delivery.echo === undefined ? {} : { echoed: false }),
        error: (error as Error).message,
        body: delivery.body,
        at,
      });
      if (delivery.echo === undefined) delivery.done = true;
    } finally {
      delivery.inFlight = false;
    }
    if (!delivery.done) this.scheduleRetry(delivery);
  }

  private scheduleRetry(delivery: Delivery): void {
    if (delivery.echo === undefined) {
      delivery.done = true;
      return;
    }
    if (delivery.done || delivery.attempts >= MAX_NOTIFICATION_ATTEMPTS) return;
    delivery.nextAttemptAt = new Date(this.clock.now().getTime() + NOTIFICATION_RETRY_MS);
  }

  private note(delivery: Delivery, note: DeliveryLogEntry['note']): void {
    this.log.push({
      processor: delivery.processor,
      deliveryId: delivery.id,
      url: null,
      attempt: delivery.attempts,
      status: null,
      note,
      body: delivery.body,
      at: this.clock.now().toISOString(),
    });
  }
}

/** The receiver echoes either the `resultado` array itself or an object carrying it. */
function echoes(text: string, expected: unknown): boolean {
  try {
    const answer = JSON.parse(text) as unknown;
    if (isDeepStrictEqual(answer, expected)) return true;
    return (
      typeof answer === 'object' &&
      answer !== null &&
      isDeepStrictEqual((answer as { resultado?: unknown }).resultado, expected)
    );
  } catch {
    return false;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
