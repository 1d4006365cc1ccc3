import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout. Every line logged inside a span carries its `trace_id` and `span_id`, so a log
 * line leads to the trace in the tracing UI and back.
 */
export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Card data never reaches our services; tokens and secrets must never reach the logs either.
    redact: {
      paths: ['apiToken', '*.apiToken', 'headers["api-token"]', 'headers.authorization', 'token', '*.token'],
      censor: '[redacted]',
    },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
