export { createLogger, type Logger } from './logger';
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
