// Imported first by every service's main.ts so the SDK is started before anything else loads.
import { startTelemetry } from './telemetry';

startTelemetry({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'payrail',
  otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
});
