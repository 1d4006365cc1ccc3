import {
  context,
  propagation,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { safeError, safeErrorText } from './safe-error';

export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP endpoint (`http://jaeger:4318`); no exporter when absent. */
  otlpEndpoint?: string;
  /** Tests pass an in-memory exporter; spans are then exported synchronously. */
  exporter?: SpanExporter;
}

export interface Telemetry {
  shutdown(): Promise<void>;
}

let started: Telemetry | undefined;

/**
 * Batches spans to an OTLP/HTTP endpoint. The exporter is loaded only when an endpoint is set: with its
 * encoders it costs a process about 10 MB and 0.2 s at start. Spans ended while it loads wait for it.
 */
class OtlpSpanProcessor implements SpanProcessor {
  private readonly batch: Promise<BatchSpanProcessor>;

  constructor(url: string) {
    this.batch = import('@opentelemetry/exporter-trace-otlp-http').then(
      ({ OTLPTraceExporter }) => new BatchSpanProcessor(new OTLPTraceExporter({ url })),
    );
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    void this.batch.then((batch) => batch.onEnd(span));
  }

  async forceFlush(): Promise<void> {
    await (await this.batch).forceFlush();
  }

  async shutdown(): Promise<void> {
    await (await this.batch).shutdown();
  }
}

/**
 * Starts tracing once per process: the tracer provider, the context manager (AsyncLocalStorage) and the
 * W3C trace-context propagator, no automatic instrumentation (spans are made where the code says so).
 * It must run before the service's other modules are loaded (each `main.ts` imports
 * `@payrail/observability/register` first), so that they are in place when the first request or message
 * arrives.
 *
 * With nowhere to send spans (no endpoint, no exporter) nothing is recorded: every span is a
 * non-recording one that still carries its trace and span ids (the logs' `traceId`, the `traceparent`
 * sent on), marked not sampled: a service that has an endpoint records nothing of what reaches it through
 * one that has none, so every service of a deployment gets the same endpoint. A recorded span (its
 * attributes, clock readings and end) was about 3 % of a forwarded request's CPU in the gateway and in
 * processor-gateway, kept for no one.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (started) return started;
  const spanProcessors: SpanProcessor[] = [];
  if (options.exporter) spanProcessors.push(new SimpleSpanProcessor(options.exporter));
  if (options.otlpEndpoint)
    spanProcessors.push(new OtlpSpanProcessor(`${options.otlpEndpoint.replace(/\/$/, '')}/v1/traces`));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors,
    ...(spanProcessors.length === 0 ? { sampler: new AlwaysOffSampler() } : {}),
  });
  provider.register();
  started = {
    async shutdown() {
      started = undefined;
      await provider.shutdown();
    },
  };
  return started;
}

export function tracer(name: string) {
  return trace.getTracer(name);
}

/** W3C trace context of the active span, as headers for an HTTP call or a message. */
export function currentTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** The context a caller sent in `traceparent`/`tracestate` headers. */
export function contextFromHeaders(headers: Record<string, string | undefined>): Context {
  return propagation.extract(context.active(), headers);
}

/**
 * Runs `work` inside a new active span, records an exception and error status when it throws,
 * and ends the span either way.
 */
export async function inSpan<T>(
  tracerName: string,
  spanName: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | boolean>; parent?: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  return tracer(tracerName).startActiveSpan(
    spanName,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        // Traces leave the process like logs do: the same safe description, never the query's values.
        const described = safeError(error);
        span.recordException({ name: described.type, message: safeErrorText(error), stack: described.stack });
        span.setStatus({ code: SpanStatusCode.ERROR, message: safeErrorText(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

export { SpanKind, SpanStatusCode, context, trace };
