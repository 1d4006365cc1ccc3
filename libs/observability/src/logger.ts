import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { safeErrorField } from './safe-error';

export type { Logger };

/** A log line longer than this is shortened (long strings cut, then only the identifying fields kept). */
export const MAX_LOG_LINE_LENGTH = 8_192;
const MAX_STRING_IN_LONG_LINE = 256;
const MAX_ITEMS_IN_LONG_LINE = 10;
const KEPT_WHEN_TOO_LONG = [
  'level',
  'time',
  'name',
  'service',
  'msg',
  'requestId',
  'trace_id',
  'span_id',
  'consumer',
  'messageId',
  'type',
  'attempt',
];

function shrink(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_STRING_IN_LONG_LINE
      ? value
      : `${value.slice(0, MAX_STRING_IN_LONG_LINE)}… (${value.length} characters)`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 4) return '[nested]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS_IN_LONG_LINE).map((item) => shrink(item, depth + 1));
    if (value.length > MAX_ITEMS_IN_LONG_LINE) items.push(`… (${value.length} items)`);
    return items;
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shrink(item, depth + 1)]));
}

/**
 * Keeps every line under `MAX_LOG_LINE_LENGTH`, still one JSON object: a megabyte line floods the log
 * pipeline and is where stray data hides. Only long lines pay for the re-parse.
 */
export function capLogLine(line: string, max = MAX_LOG_LINE_LENGTH): string {
  if (line.length <= max) return line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${JSON.stringify({ msg: 'unparseable log line dropped', length: line.length })}\n`;
  }
  const shrunk = JSON.stringify({ ...(shrink(record, 0) as object), truncatedFrom: line.length });
  if (shrunk.length < max) return `${shrunk}\n`;
  const kept: Record<string, unknown> = { truncatedFrom: line.length };
  for (const key of KEPT_WHEN_TOO_LONG) if (key in record) kept[key] = shrink(record[key], 3);
  return `${JSON.stringify(kept).slice(0, max - 1)}\n`;
}

/**
 * JSON logs on stdout. Every line logged inside a span carries its `trace_id` and `span_id`, so a log
 * line leads to the trace in the tracing UI and back. No personal data: errors go through `safeError`,
 * and no line is longer than `MAX_LOG_LINE_LENGTH`.
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
      paths: [
        'apiToken',
        '*.apiToken',
        'headers["api-token"]',
        'headers.authorization',
        'token',
        '*.token',
        // Webhook signing secrets and receiver credentials.
        'secret',
        '*.secret',
        'password',
        '*.password',
      ],
      censor: '[redacted]',
    },
    // Errors are logged as their type, code and names, never with the values they carry (see safeError).
    serializers: { err: safeErrorField, error: safeErrorField },
    hooks: { streamWrite: (line) => capLogLine(line) },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
