import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSpan, startTelemetry, type Telemetry } from '../src/index';

// With OTEL_EXPORTER_OTLP_ENDPOINT set (compose points it at Jaeger), spans leave over OTLP/HTTP.
const received: Array<{ path: string; contentType: string; bytes: number }> = [];
let server: http.Server;
let telemetry: Telemetry;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        contentType: request.headers['content-type'] ?? '',
        bytes: Buffer.concat(chunks).length,
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  telemetry = startTelemetry({ serviceName: 'otlp-test', otlpEndpoint: `http://127.0.0.1:${port}` });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('OTLP export', () => {
  it('sends finished spans to <endpoint>/v1/traces when flushed', async () => {
    await inSpan('otlp-test', 'exported work', {}, async () => {});
    await telemetry.shutdown();
    expect(received.length).toBeGreaterThan(0);
    expect(received[0]?.path).toBe('/v1/traces');
    expect(received[0]?.bytes).toBeGreaterThan(0);
  });
});
