import { randomUUID } from 'node:crypto';
import { createEvent } from '@payrail/contracts';
import type { MessageBus } from '@payrail/messaging';
import { aMerchant, waitFor } from '@payrail/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INTERNAL_SECRET,
  registerCard,
  type SystemOnTestInfrastructure,
  sandbox,
  startOnTestInfrastructure,
} from './processor-support';
import { type E2eSystem, startSystem } from './support';

// processor-gateway dies (SIGKILL) after the processor has charged and before our row records it: the
// row is left `pending`, the message unacked. After a restart the redelivered command must not charge
// again, and the janitor must find the charge at the processor: one ledger entry, one payment.succeeded.

let running: SystemOnTestInfrastructure<E2eSystem>;
let sql: postgres.Sql;
let system: E2eSystem;
let bus: MessageBus;

beforeAll(async () => {
  running = await startOnTestInfrastructure('e2e_crash', (infrastructure) =>
    startSystem({
      ...infrastructure,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: 'https://pay.example.test',
      // The slow card answers after 8 s; the call's deadline stays above it, and the janitor is off until
      // the restart, so only the crash leaves the row unsettled.
      PROCESSOR_TIMEOUT_MS: '10000',
      CHARGE_STALE_AFTER_MS: '1000',
      CHARGE_JANITOR_INTERVAL_MS: '0',
    }),
  );
  ({ sql, system, bus } = running);
}, 120_000);

afterAll(() => running?.stop(), 60_000);

describe('processor-gateway killed while the processor is charging', () => {
  it('after a restart: no second charge, the janitor settles the pending row as succeeded', async () => {
    const merchant = aMerchant();
    const customerId = 700_000 + Math.floor(Math.random() * 100_000);
    const { saved } = await registerCard(
      system.urls['processor-gateway'],
      system,
      merchant,
      customerId,
      'PARAGUAY.PROCESSOR_A',
      '4000000000000077',
    );
    const method = saved[0];
    expect(method).toBeDefined();
    const installmentId = 50_000_000 + Math.floor(Math.random() * 1_000_000);
    const request = createEvent(
      'charge.requested',
      {
        idempotencyKey: `installment:${installmentId}:attempt:1`,
        merchantId: merchant.merchantId,
        subscriptionId: 78,
        installmentId,
        attempt: 1,
        paymentMethodId: method?.paymentMethodId as string,
        amount: '150000.00',
        currency: 'PYG',
      },
      new Date(),
    );
    const key = request.data.idempotencyKey;
    await bus.publish({ id: randomUUID(), type: request.type, body: JSON.stringify(request) });

    const charges = async () =>
      (
        await sandbox<{ entries: Array<{ kind: string; reference: string; resultCode: string }> }>(
          system,
          'GET',
          '/ledger',
        )
      ).entries.filter((entry) => entry.kind === 'charge');
    // The sandbox commits the slow card's charge at once and answers 8 s later: kill us in between.
    await waitFor(async () => (await charges()).length === 1 || undefined, 8_000, 100);
    await system.kill('processor-gateway');
    const [left] = await sql`
      select status from processor_gateway.charges where idempotency_key = ${key}`;
    expect(left?.status).toBe('pending');

    await system.restart('processor-gateway', { CHARGE_JANITOR_INTERVAL_MS: '500' });
    const settled = await waitFor(
      async () => {
        const [row] = await sql`
          select status, reference, processor_calls from processor_gateway.charges where idempotency_key = ${key}`;
        return row?.status === 'succeeded' ? row : undefined;
      },
      40_000,
      200,
    );
    // The redelivered command has had its turn by now (the consumer starts before the janitor's pass).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await charges()).toEqual([
      expect.objectContaining({ kind: 'charge', reference: settled.reference, resultCode: '00' }),
    ]);
    expect(settled.processor_calls).toBe(1);
    const outbox = await sql`
      select type from processor_gateway.outbox where body::jsonb -> 'data' ->> 'idempotencyKey' = ${key}`;
    expect(outbox.map((event) => event.type)).toEqual(['payment.succeeded']);
  }, 90_000);
});
