import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { billingSchedulerService } from '@payrail/billing-scheduler';
import { createEvent } from '@payrail/contracts';
import type { DatabaseHandle } from '@payrail/db';
import { listen, type RunningServer, signOperatorContext } from '@payrail/http';
import { createInProcessBus, createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { createLogger, startTelemetry } from '@payrail/observability';
import { processorGatewayService } from '@payrail/processor-gateway';
import { processorSandboxService } from '@payrail/processor-sandbox';
import type { ServiceInstance } from '@payrail/runtime';
import { subscriptionsService } from '@payrail/subscriptions';
import {
  aMerchant,
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  TEST_INTERNAL_SECRET,
  testAmqpUrl,
  uniqueName,
  waitFor,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMERS } from './support';

// One trace per installment charge: billing-scheduler claims it (the root), the outbox relay publishes
// installment.charge-due, subscriptions requests the charge, processor-gateway charges the stored card at
// the processor (the sandbox, over HTTP), payment.succeeded comes back to subscriptions and to
// billing-scheduler. The four services run in this process (the spans are read from memory), each with its
// own database and broker connection, on real PostgreSQL and RabbitMQ; the sandbox listens on a real port.

const exporter = new InMemorySpanExporter();
const telemetry = startTelemetry({ serviceName: 'debit-trace-test', exporter });
const exchange = uniqueName('debit_trace_events');
const queuePrefix = `${uniqueName('debit_trace')}.`;
const buses: MessageBus[] = [];
const merchant = aMerchant();
let sandbox: ServiceInstance;
let sandboxServer: RunningServer;
let processorGateway: ServiceUnderTest;
let subscriptions: ServiceUnderTest;
let billing: ServiceUnderTest;

function rabbitBus(): MessageBus {
  const bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  buses.push(bus);
  return bus;
}

beforeAll(async () => {
  sandbox = await processorSandboxService.create({
    database: undefined as unknown as DatabaseHandle,
    bus: createInProcessBus(),
    logger: createLogger('processor-sandbox', 'silent'),
    clock: { now: () => new Date() },
    internalSecret: TEST_INTERNAL_SECRET,
    env: { PUBLIC_BASE_URL: 'http://pay.test' },
    // Stored-card charges of PROCESSOR_A answer synchronously: no webhook is needed here.
    upstream: () => async () => new Response(null, { status: 503 }),
  });
  await sandbox.start();
  sandboxServer = await listen(sandbox.app, 0, '127.0.0.1');
  processorGateway = await startService(processorGatewayService, {
    bus: rabbitBus(),
    env: { PROCESSOR_SANDBOX_URL: `http://127.0.0.1:${sandboxServer.port}`, CHARGE_JANITOR_INTERVAL_MS: '0' },
  });
  subscriptions = await startService(subscriptionsService, { bus: rabbitBus() });
  billing = await startService(billingSchedulerService, {
    bus: rabbitBus(),
    env: { BILLING_RUN_INTERVAL_MS: '0', SIMULATED_TIME: 'true' },
  });
});

afterAll(async () => {
  for (const service of [billing, subscriptions, processorGateway]) await service?.stop();
  await sandboxServer?.close();
  await sandbox?.stop();
  for (const bus of buses) await bus.close();
  await deleteBrokerTopology(
    testAmqpUrl(),
    exchange,
    CONSUMERS.map((consumer) => `${queuePrefix}${consumer}`),
  ).catch(() => {});
  await telemetry.shutdown();
});

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A card saved through processor-gateway's registration and the sandbox's own form. */
async function savedCard(customerId: number): Promise<string> {
  const opened = await json<{ registrationId: string; form: { processId: string } }>(
    await processorGateway.request('POST', '/internal/card-registrations', {
      merchant,
      body: { customerId, processor: 'PARAGUAY.PROCESSOR_A', returnUrl: 'https://pay.test/cards/return' },
    }),
  );
  await json(
    await fetch(`http://127.0.0.1:${sandboxServer.port}/__sandbox/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        processId: opened.form.processId,
        cardNumber: '4242424242424242',
        expiry: '12/30',
        cvv: '123',
      }),
    }),
  );
  const done = await json<{ saved: Array<{ paymentMethodId: string }> }>(
    await processorGateway.request('POST', `/internal/card-registrations/${opened.registrationId}/complete`, {
      merchant,
    }),
  );
  return done.saved[0]?.paymentMethodId as string;
}

const inTrace = (traceId: string) =>
  exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('tracing automatic debit', () => {
  it('one paid installment is one trace across billing-scheduler, subscriptions, processor-gateway and the processor', async () => {
    const bus = buses[0] as MessageBus;
    const linkId = 880_000 + Math.floor(Math.random() * 10_000);
    const created = createEvent(
      'link.created',
      {
        linkId,
        merchantId: merchant.merchantId,
        slug: `trace-${linkId}`,
        label: 'Gym membership',
        amount: '120000.00',
        currency: 'PYG',
        customIdentifier: 'traced-debit',
        customIdentifier2: null,
        paymentMethods: ['PARAGUAY.PROCESSOR_A'],
        timezone: merchant.timezone,
        createdAt: new Date().toISOString(),
        createdOn: new Date().toISOString().slice(0, 10),
        recurrence: {
          type: 'STATIC',
          installmentAmount: '120000.00',
          totalPeriods: 2,
          dayOfMonth: 10,
          monthForSecondInstallment: 1,
        },
      },
      new Date(),
    );
    await bus.publish({ id: created.id, type: created.type, body: JSON.stringify(created) });
    const customerId = 990_000 + Math.floor(Math.random() * 9_000);
    const paymentMethodId = await savedCard(customerId);
    const paid = createEvent(
      'link.paid',
      {
        linkId,
        merchantId: merchant.merchantId,
        amount: '120000.00',
        currency: 'PYG',
        paidAt: new Date().toISOString(),
        txId: 'tx-1',
        recurrent: true,
        method: 'CARD',
        processor: 'PARAGUAY.PROCESSOR_A',
        paymentMethodId,
        chargeId: null,
        customerId,
      },
      new Date(),
    );
    await bus.publish({ id: paid.id, type: paid.type, body: JSON.stringify(paid) });

    // The projection has installment 2 of an active subscription: run as of its day.
    const due = await waitFor(async () => {
      const rows = (await billing.database.db.execute(
        `select i.installment_id, i.due_on::text as due_on from billing_scheduler.installments i
           join billing_scheduler.subscriptions s using (subscription_id)
          where s.status = 'active' and i.number = 2 and i.merchant_id = '${merchant.merchantId}'` as never,
      )) as unknown as Array<{ installment_id: string; due_on: string }>;
      return rows[0];
    }, 20_000);
    const path = '/admin/billing/runs';
    const started = await billing.request('POST', path, {
      body: { asOf: due.due_on, merchantId: merchant.merchantId },
      headers: signOperatorContext('POST', path, TEST_INTERNAL_SECRET),
    });
    expect(started.status).toBe(202);

    const billingSaw = await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .find(
            (span) =>
              span.name === 'payment.succeeded process' &&
              span.attributes['messaging.consumer.group.name'] === 'billing-scheduler.record-charge-outcomes',
          ),
      30_000,
    );
    const traceId = billingSaw.spanContext().traceId;
    await waitFor(() =>
      inTrace(traceId).some(
        (span) =>
          span.name === 'payment.succeeded process' &&
          span.attributes['messaging.consumer.group.name'] ===
            'subscriptions.pay-installment-on-payment-succeeded',
      ),
    );
    const spans = inTrace(traceId);
    const byName = (name: string, group?: string) =>
      spans.find(
        (span) =>
          span.name === name &&
          (group === undefined || span.attributes['messaging.consumer.group.name'] === group),
      );

    // The root: billing-scheduler's claim of this installment, not the run with thousands in it.
    const root = byName('installment.charge-due claim');
    expect(root).toBeDefined();
    expect(parentOf(root as ReadableSpan)).toBeUndefined();
    expect(root?.attributes['payrail.installment.id']).toBe(Number(due.installment_id));

    // Each hop is the child of the one before it.
    const chain: Array<[string, string | undefined]> = [
      ['installment.charge-due publish', undefined],
      ['installment.charge-due process', 'subscriptions.request-charge-on-charge-due'],
      ['charge.requested publish', undefined],
      ['charge.requested process', 'processor-gateway.charge-on-charge-requested'],
    ];
    let parent = root as ReadableSpan;
    for (const [name, group] of chain) {
      const span = byName(name, group);
      expect(span, name).toBeDefined();
      // A span of the chain descends from the one before it (directly, or through the spans in between).
      expect(descendsFrom(span as ReadableSpan, parent, spans), `${name} under ${parent.name}`).toBe(true);
      parent = span as ReadableSpan;
    }
    // processor-gateway's call to the processor, and the processor's own server span under it.
    const call = spans.find(
      (span) => span.name === 'POST processor' && span.instrumentationScope.name === 'processor-gateway',
    );
    expect(call, 'the call to the processor').toBeDefined();
    expect(descendsFrom(call as ReadableSpan, parent, spans)).toBe(true);
    const served = spans.find((span) => span.instrumentationScope.name === 'processor-sandbox');
    expect(served, "the processor's server span").toBeDefined();
    expect(descendsFrom(served as ReadableSpan, call as ReadableSpan, spans)).toBe(true);
    const back = byName('payment.succeeded publish');
    expect(back).toBeDefined();
    expect(descendsFrom(back as ReadableSpan, parent, spans)).toBe(true);
    expect(descendsFrom(billingSaw, back as ReadableSpan, spans)).toBe(true);
    const services = new Set(spans.map((span) => span.instrumentationScope.name));
    expect([...services]).toEqual(
      expect.arrayContaining([
        'billing-scheduler',
        'outbox-relay',
        'subscriptions.request-charge-on-charge-due',
        'processor-gateway.charge-on-charge-requested',
        'processor-gateway',
        'processor-sandbox',
        'subscriptions.pay-installment-on-payment-succeeded',
        'billing-scheduler.record-charge-outcomes',
      ]),
    );
  });
});

/** Whether `span` is `ancestor` or lies below it in the trace. */
function descendsFrom(span: ReadableSpan, ancestor: ReadableSpan, spans: ReadableSpan[]): boolean {
  const byId = new Map(spans.map((one) => [one.spanContext().spanId, one]));
  let current: ReadableSpan | undefined = span;
  for (let depth = 0; current && depth < 50; depth += 1) {
    if (current.spanContext().spanId === ancestor.spanContext().spanId) return true;
    const parentId = parentOf(current);
    current = parentId ? byId.get(parentId) : undefined;
  }
  return false;
}
