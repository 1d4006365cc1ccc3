import { randomUUID } from 'node:crypto';
import { createEvent } from '@payrail/contracts';
import type { DeliveredMessage } from '@payrail/messaging';
import { aMerchant, waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningProcessors,
  registerCard,
  sandbox,
  startProcessorsOnTestInfrastructure,
} from './processor-support';

// Two processor-gateway OS processes on one PostgreSQL database and one RabbitMQ queue, charging the real
// processor-sandbox (its own process): 20 copies of one `charge.requested`, each its own message, must
// reach the processor once. The sandbox's ledger, not our tables, says what was charged.

let running: RunningProcessors;
const seen: DeliveredMessage[] = [];

beforeAll(async () => {
  running = await startProcessorsOnTestInfrastructure(
    'e2e_once',
    {
      // info: each process logs every charge.requested it handles, which shows both took copies.
      LOG_LEVEL: 'info',
      // The janitor stays off: only the consumers may charge here.
      CHARGE_JANITOR_INTERVAL_MS: '0',
    },
    ['observer'],
  );
  await running.bus.subscribe({
    consumer: 'observer',
    eventTypes: ['payment.succeeded', 'payment.failed'],
    handler: async (message) => {
      seen.push(message);
    },
  });
}, 120_000);

afterAll(() => running?.stop(), 60_000);

const eventsOf = (key: string) =>
  seen
    .map((message) => JSON.parse(message.body) as { type: string; data: { idempotencyKey: string } })
    .filter((event) => event.data.idempotencyKey === key);

describe('charge.requested exactly once across two processor-gateway processes', () => {
  it('20 concurrent identical messages: one sandbox ledger entry, one payment.succeeded', async () => {
    const { system, sql, bus } = running;
    const merchant = aMerchant();
    const customerId = 600_000 + Math.floor(Math.random() * 100_000);
    // The slow card (reply after 8 s, charge committed at once): every copy arrives while the first is
    // still at the processor.
    const { saved } = await registerCard(
      system.gateways[0],
      system,
      merchant,
      customerId,
      'PARAGUAY.PROCESSOR_A',
      '4000000000000077',
    );
    const method = saved[0];
    expect(method).toBeDefined();
    const installmentId = 40_000_000 + Math.floor(Math.random() * 1_000_000);
    const request = createEvent(
      'charge.requested',
      {
        idempotencyKey: `installment:${installmentId}:attempt:1`,
        merchantId: merchant.merchantId,
        subscriptionId: 77,
        installmentId,
        attempt: 1,
        paymentMethodId: method?.paymentMethodId as string,
        amount: '150000.00',
        currency: 'PYG',
      },
      new Date(),
    );
    const key = request.data.idempotencyKey;
    // One after the other: published in one turn, the 20 copies would travel as one bundle (one AMQP
    // message, libs/messaging bundles.ts), taken by one process. Apart, the broker hands them to both.
    for (let copy = 0; copy < 20; copy += 1)
      await bus.publish({ id: randomUUID(), type: request.type, body: JSON.stringify(request) });

    const handled = (process: string) =>
      system.logs.filter((line) => line.startsWith(`[${process}] `) && line.includes(key));
    const row = await waitFor(
      async () => {
        const [charge] = await sql`
          select status, reference, processor_calls from processor_gateway.charges where idempotency_key = ${key}`;
        return charge?.status === 'succeeded' ? charge : undefined;
      },
      30_000,
      100,
    );
    await waitFor(() => eventsOf(key).length >= 1, 15_000);
    await waitFor(
      () => handled('processor-gateway').length + handled('processor-gateway-2').length >= 20,
      15_000,
    );
    // Let any late copy (redelivered or slow) finish before counting.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const { entries } = await sandbox<{
      entries: Array<{ kind: string; reference: string; resultCode: string }>;
    }>(system, 'GET', '/ledger');
    expect(entries.filter((entry) => entry.kind === 'charge')).toEqual([
      expect.objectContaining({ kind: 'charge', reference: row.reference, resultCode: '00' }),
    ]);
    expect(row.processor_calls).toBe(1);
    expect(eventsOf(key).map((event) => event.type)).toEqual(['payment.succeeded']);
    const outbox = await sql`
      select type from processor_gateway.outbox where body::jsonb -> 'data' ->> 'idempotencyKey' = ${key}`;
    expect(outbox.map((event) => event.type)).toEqual(['payment.succeeded']);
    // Each copy was handled (20 log lines), by both processes, and charged by one of them.
    const first = handled('processor-gateway');
    const second = handled('processor-gateway-2');
    expect(first.length + second.length).toBe(20);
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    expect([...first, ...second].filter((line) => line.includes('charge made'))).toHaveLength(1);
    const charges = await sql`select id from processor_gateway.charges where idempotency_key = ${key}`;
    expect(charges).toHaveLength(1);
  });
});
