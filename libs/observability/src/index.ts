export { capLogLine, createLogger, type Logger, MAX_LOG_LINE_LENGTH } from './logger';
export { type SafeError, safeError, safeErrorText } from './safe-error';
export {
  context,
  contextFromHeaders,
  currentTraceHeaders,
  inSpan,
  SpanKind,
  SpanStatusCode,
  startTelemetry,
  type Telemetry,
  type TelemetryOptions,
  trace,
  tracer,
} from './telemetry';
export {
  type ConsumeOutcome,
  type ChargeCount,
  countConsumed,
  httpRequestDuration,
  httpRequests,
  METRICS_CONTENT_TYPE,
  metricsRegistry,
  metricsText,
  type OutboxState,
  registerChargesProbe,
  registerOutboxProbe,
} from './metrics';
