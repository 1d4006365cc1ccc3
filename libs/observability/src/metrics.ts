/**
 * Prometheus metrics (prom-client), one registry per process. Every series carries a `service` label, so
 * the embedded system (every service in one process) and one process per service give the same names;
 * `/metrics` of each service serves this registry in the Prometheus text format.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();

// Process metrics: CPU, resident memory, heap, GC, and the event-loop lag (nodejs_eventloop_lag_*).
collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 20 });
// Gauges that prom-client names like counters (`_total`): promtool rejects them, and nothing here needs them.
for (const name of [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
])
  metricsRegistry.removeSingleMetric(name);

/** Prometheus text format content type. */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

export const httpRequests = new Counter({
  name: 'payrail_http_requests_total',
  help: 'HTTP requests answered, by service, method, matched route and status code.',
  labelNames: ['service', 'method', 'route', 'status'] as const,
  registers: [metricsRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'payrail_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer, by service, method and matched route.',
  labelNames: ['service', 'method', 'route'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** One message handled by a consumer: `consumed` (handler succeeded), `failed` (will be retried) or `dead-lettered`. */
export type ConsumeOutcome = 'consumed' | 'failed' | 'dead-lettered';

const messagesConsumed = new Counter({
  name: 'payrail_messages_consumed_total',
  help: 'Messages a consumer handled successfully.',
  labelNames: ['consumer'] as const,
  registers: [metricsRegistry],
});
const messagesFailed = new Counter({
  name: 'payrail_messages_failed_total',
  help: 'Handler failures of a consumer that leave the message for a later retry.',
  labelNames: ['consumer'] as const,
  registers: [metricsRegistry],
});
const messagesDeadLettered = new Counter({
  name: 'payrail_messages_dead_lettered_total',
  help: 'Messages a consumer gave up on after its last attempt (moved to its dead-letter queue).',
  labelNames: ['consumer'] as const,
  registers: [metricsRegistry],
});

export function countConsumed(consumer: string, outcome: ConsumeOutcome): void {
  const counter =
    outcome === 'consumed' ? messagesConsumed : outcome === 'failed' ? messagesFailed : messagesDeadLettered;
  counter.inc({ consumer });
}

export interface OutboxState {
  /** Rows not yet published. */
  backlog: number;
  /** Seconds since the oldest unpublished row was written (0 when there is none). */
  oldestAgeSeconds: number;
}

const outboxProbes = new Map<string, () => Promise<OutboxState>>();
/** Filled on scrape, by `collect` below, from every registered probe. */
const outboxBacklog = new Gauge({
  name: 'payrail_outbox_backlog',
  help: 'Outbox rows not yet published to the broker, by service.',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
  async collect() {
    await readOutboxes();
  },
});
const outboxOldestAge = new Gauge({
  name: 'payrail_outbox_oldest_unpublished_age_seconds',
  help: 'Age of the oldest unpublished outbox row, by service (0 when the outbox is drained).',
  labelNames: ['service'] as const,
  registers: [metricsRegistry],
  async collect() {
    await readOutboxes();
  },
});

let outboxRead: Promise<void> | undefined;
/** One read per scrape for both outbox gauges: the registry collects them concurrently. */
function readOutboxes(): Promise<void> {
  outboxRead ??= readAllOutboxes().finally(() => {
    outboxRead = undefined;
  });
  return outboxRead;
}

async function readAllOutboxes(): Promise<void> {
  await Promise.all(
    [...outboxProbes].map(async ([service, probe]) => {
      try {
        const state = await probe();
        outboxBacklog.set({ service }, state.backlog);
        outboxOldestAge.set({ service }, state.oldestAgeSeconds);
      } catch {
        // A database that does not answer leaves the last values; /readyz reports the outage.
      }
    }),
  );
}

/** The outbox relay of `service` registers how to read its backlog; the returned function removes it. */
export function registerOutboxProbe(service: string, probe: () => Promise<OutboxState>): () => void {
  outboxProbes.set(service, probe);
  return () => {
    if (outboxProbes.get(service) !== probe) return;
    outboxProbes.delete(service);
    outboxBacklog.remove({ service });
    outboxOldestAge.remove({ service });
  };
}

export interface ChargeCount {
  processor: string;
  status: string;
  count: number;
}

let chargesProbe: (() => Promise<ChargeCount[]>) | undefined;
/**
 * Charges by processor and outcome (`succeeded`, `failed`, and the unsettled `pending`, `unknown`), read
 * from processor-gateway's own table on scrape: exact across restarts, and nothing counted for a
 * transaction that rolled back. Replicas report the same totals (take `max`, not `sum`).
 */
const charges = new Gauge({
  name: 'payrail_charges',
  help: 'Charges recorded by processor-gateway, by processor and status (outcome).',
  labelNames: ['processor', 'status'] as const,
  registers: [metricsRegistry],
  async collect() {
    if (!chargesProbe) return;
    try {
      const counts = await chargesProbe();
      charges.reset();
      for (const { processor, status, count } of counts) charges.set({ processor, status }, count);
    } catch {
      // Keeps the last values while the database does not answer.
    }
  },
});

/** processor-gateway registers how to count its charges; the returned function removes it. */
export function registerChargesProbe(probe: () => Promise<ChargeCount[]>): () => void {
  chargesProbe = probe;
  return () => {
    if (chargesProbe !== probe) return;
    chargesProbe = undefined;
    charges.reset();
  };
}

/** The registry in the Prometheus text format. */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}
