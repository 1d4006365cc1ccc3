import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { contextFromHeaders, currentTraceHeaders, inSpan, startTelemetry } from '../src/index';
import { createLogger } from '../src/logger';
import { lineSink } from './line-sink';

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'test', exporter });
afterAll(() => telemetry.shutdown());

describe('telemetry', () => {
  it('carries a trace across a header hop (as over HTTP or a message)', async () => {
    let headers: Record<string, string> = {};
    await inSpan('a', 'caller', {}, async () => {
      headers = currentTraceHeaders();
    });
    await inSpan('b', 'callee', { parent: contextFromHeaders(headers) }, async () => {});
    const spans = exporter.getFinishedSpans();
    const caller = spans.find((s) => s.name === 'caller');
    const callee = spans.find((s) => s.name === 'callee');
    expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(callee?.spanContext().traceId).toBe(caller?.spanContext().traceId);
    expect(callee?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
  });

  it('writes JSON log lines with trace_id and span_id inside a span, and redacts tokens', async () => {
    const { sink, lines } = lineSink();
    const logger = createLogger('svc', 'info', sink);
    let traceId = '';
    await inSpan('a', 'work', {}, async (span) => {
      traceId = span.spanContext().traceId;
      logger.info({ apiToken: '0b6f1a52-0d1c-4d54-a3a8-5b8c4c9e1f00' }, 'inside');
    });
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, string>;
    expect(line.trace_id).toBe(traceId);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(lines[0]).not.toContain('0b6f1a52-0d1c-4d54-a3a8-5b8c4c9e1f00');
  });
});
