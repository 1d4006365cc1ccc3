import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { gatewayService } from '@payrail/gateway';
import { linksService } from '@payrail/links';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { startTelemetry } from '@payrail/observability';
import { subscriptionsService } from '@payrail/subscriptions';
import {
  aStaticLink,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS, DEMO_TOKEN } from './support';

// One trace from the merchant's request to the consumer: gateway → links (internal HTTP) → outbox relay →
// RabbitMQ → subscriptions. The services run in this process (so the spans can be read from memory),
// each with its own database and its own broker connection.
const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'trace-test', exporter });

const exchange = uniqueName('trace_events');
const queuePrefix = `${uniqueName('trace')}.`;
const buses: MessageBus[] = [];
let gateway: ServiceUnderTest;
let links: ServiceUnderTest;
let subscriptions: ServiceUnderTest;

function rabbitBus(): MessageBus {
  const bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  buses.push(bus);
  return bus;
}

beforeAll(async () => {
  subscriptions = await startService(subscriptionsService, { bus: rabbitBus() });
  links = await startService(linksService, { bus: rabbitBus() });
  gateway = await startService(gatewayService, {
    bus: rabbitBus(),
    env: { DEMO_API_TOKEN: DEMO_TOKEN },
    upstreams: { links: (request) => Promise.resolve(links.instance.app.fetch(request)) },
  });
});

afterAll(async () => {
  for (const service of [gateway, links, subscriptions]) await service?.stop();
  for (const bus of buses) await bus.close();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  );
  await telemetry.shutdown();
});

describe('tracing', () => {
  it('puts gateway, links, the broker hop and subscriptions in one trace', async () => {
    const response = await gateway.request('POST', '/api/saleitems/add', {
      headers: { 'api-token': DEMO_TOKEN },
      body: aStaticLink({ customIdentifier: 'traced-1', totalPeriods: 3 }),
    });
    expect(response.status).toBe(200);
    const consumed = await waitFor(() =>
      exporter.getFinishedSpans().find((span) => span.name === 'link.created process'),
    );
    const spans = exporter.getFinishedSpans();
    const gatewaySpan = spans.find(
      (s) => s.name === 'POST /api/saleitems/add' && s.instrumentationScope.name === 'gateway',
    );
    const linksSpan = spans.find(
      (s) => s.name === 'POST /api/saleitems/add' && s.instrumentationScope.name === 'links',
    );
    const publishSpan = spans.find((s) => s.name === 'link.created publish');
    expect(gatewaySpan).toBeDefined();
    const traceId = gatewaySpan?.spanContext().traceId;
    expect(linksSpan?.spanContext().traceId).toBe(traceId);
    expect(publishSpan?.spanContext().traceId).toBe(traceId);
    expect(consumed.spanContext().traceId).toBe(traceId);
    // The chain of parents: links' server span under the gateway's, the consumer under the publish.
    expect(linksSpan?.parentSpanContext?.spanId).toBe(gatewaySpan?.spanContext().spanId);
    expect(consumed.parentSpanContext?.spanId).toBe(publishSpan?.spanContext().spanId);
  });
});
