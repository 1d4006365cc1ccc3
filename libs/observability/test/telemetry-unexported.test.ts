import { afterAll, describe, expect, it } from 'vitest';
import { contextFromHeaders, currentTraceHeaders, inSpan, startTelemetry } from '../src/index';
import { createLogger } from '../src/logger';
import { lineSink } from './line-sink';

// No endpoint and no exporter, as a service runs without OTEL_EXPORTER_OTLP_ENDPOINT.
const telemetry = startTelemetry({ serviceName: 'unexported' });
afterAll(() => telemetry.shutdown());

describe('telemetry with nowhere to send spans', () => {
  it('records nothing, yet every span has its ids and the trace is carried on', async () => {
    let headers: Record<string, string> = {};
    let caller = { traceId: '', spanId: '', recording: true };
    await inSpan('a', 'caller', {}, async (span) => {
      caller = { ...span.spanContext(), recording: span.isRecording() };
      headers = currentTraceHeaders();
    });
    expect(caller.recording).toBe(false);
    expect(caller.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(caller.traceId).not.toMatch(/^0+$/);
    expect(headers.traceparent).toBe(`00-${caller.traceId}-${caller.spanId}-00`);
    let callee = { traceId: '', recording: true };
    await inSpan('b', 'callee', { parent: contextFromHeaders(headers) }, async (span) => {
      callee = { traceId: span.spanContext().traceId, recording: span.isRecording() };
    });
    expect(callee).toEqual({ traceId: caller.traceId, recording: false });
  });

  it('still writes the trace and span ids in the log lines', async () => {
    const { sink, lines } = lineSink();
    const logger = createLogger('svc', 'info', sink);
    let traceId = '';
    await inSpan('a', 'work', {}, async (span) => {
      traceId = span.spanContext().traceId;
      logger.info('inside');
    });
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, string>;
    expect(line.trace_id).toBe(traceId);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
  });
});
