import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, DEMO_MERCHANT_ID, type MerchantContext } from '@payrail/contracts';
import { signMerchantContext } from '@payrail/http';
import { aMerchant, waitFor } from '@payrail/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  INTERNAL_SECRET,
  type ProcessorSystem,
  registerCard,
  type SystemOnTestInfrastructure,
  sandbox,
  startOnTestInfrastructure,
} from './processor-support';
import { DEMO_TOKEN, startSystem } from './support';

// Refunds (issue 27) with every service as its own process on real PostgreSQL and RabbitMQ, and two
// processor-gateway processes on one database: 20 identical refund requests, half to each process, give
// one reversal in the sandbox's ledger; and a refund through the gateway, as a merchant makes it: the key
// required, the answer replayed, the link's refundedAmount, the PAYMENT_REFUNDED webhook, another
// merchant's payment not found.

/** A JSON answer, with the fields the tests read. */
type Answer = Record<string, unknown> & {
  id: string;
  status: string;
  code: string;
  errors: Array<{ path: string; message: string }>;
};
const bodyOf = async (response: Response) => (await response.json()) as Answer;

const ADMIN_TOKEN = 'e2e-admin-token-refunds-0123456789';
let running: SystemOnTestInfrastructure<ProcessorSystem>;
let receiver: { url: string; bodies: string[]; close(): Promise<void> };

beforeAll(async () => {
  running = await startOnTestInfrastructure('e2e_refunds', async (infrastructure) => {
    const system = await startSystem({
      ...infrastructure,
      INTERNAL_SECRET,
      PUBLIC_BASE_URL: 'https://pay.example.test',
      DEMO_API_TOKEN: DEMO_TOKEN,
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      // Only the requests settle refunds here: no janitor may reverse on their behalf.
      CHARGE_JANITOR_INTERVAL_MS: '0',
      LOG_LEVEL: 'warn',
    });
    try {
      const second = await system.addReplica('processor-gateway');
      return {
        ...system,
        gateways: [system.urls['processor-gateway'], second.url] as [string, string],
        stop: () => system.stop(),
      };
    } catch (error) {
      await system.stop();
      throw error;
    }
  });
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await running?.stop();
}, 60_000);

afterEach(({ task }) => {
  if (task.result?.state !== 'fail' || !running) return;
  console.log(`the services' last log lines (warn and up)\n${running.system.logs.slice(-60).join('\n')}`);
});

async function startReceiver() {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A refund asked of one processor-gateway process directly, as the gateway forwards it. */
function refundAt(
  baseUrl: string,
  merchant: MerchantContext,
  paymentId: string,
  key: string,
  body: Record<string, unknown>,
): Promise<Response> {
  return fetch(`${baseUrl}/api/payments/${paymentId}/refunds`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': key,
      ...signMerchantContext(merchant, INTERNAL_SECRET),
    },
    body: JSON.stringify(body),
  });
}

function gateway(method: string, path: string, token: string, body?: unknown, key?: string) {
  return fetch(`${running.system.gatewayUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'api-token': token,
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('refunds across two processor-gateway processes', () => {
  it('20 identical requests, 10 to each process: one refund, one reversal in the sandbox ledger', async () => {
    const { system, sql, bus } = running;
    const merchant = aMerchant();
    const { saved } = await registerCard(
      system.gateways[0],
      system,
      merchant,
      700_000 + Math.floor(Math.random() * 100_000),
      'PARAGUAY.PROCESSOR_B',
      '4242424242424242',
    );
    const installmentId = 50_000_000 + Math.floor(Math.random() * 1_000_000);
    const request = createEvent(
      'charge.requested',
      {
        idempotencyKey: `installment:${installmentId}:attempt:1`,
        merchantId: merchant.merchantId,
        installmentId,
        attempt: 1,
        paymentMethodId: saved[0]?.paymentMethodId as string,
        amount: '150000.00',
        currency: 'PYG',
      },
      new Date(),
    );
    await bus.publish({ id: request.id, type: request.type, body: JSON.stringify(request) });
    // PROCESSOR_B charges asynchronously: its notification settles the charge.
    const charge = await waitFor(
      async () => {
        const [row] = await sql`
          select id, reference from processor_gateway.charges
          where idempotency_key = ${request.data.idempotencyKey} and status = 'succeeded'`;
        return row;
      },
      30_000,
      100,
    );

    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        refundAt(system.gateways[index % 2] as string, merchant, charge.id, key, { reason: 'Charged twice' }),
      ),
    );
    const bodies = await Promise.all(answers.map((answer) => bodyOf(answer)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    // Those that came while the first was at the processor saw it pending; it ends succeeded.
    expect(bodies.every((body) => ['pending', 'succeeded'].includes(body.status))).toBe(true);
    const rows = await sql`
      select status, mode, processor_calls from processor_gateway.refunds where payment_id = ${charge.id}`;
    expect(rows).toEqual([{ status: 'succeeded', mode: 'reversal', processor_calls: 1 }]);

    const { entries } = await sandbox<{ entries: Array<{ kind: string; reference: string }> }>(
      system,
      'GET',
      '/ledger',
    );
    expect(
      entries.filter((entry) => entry.reference === charge.reference).map((entry) => entry.kind),
    ).toEqual(['charge', 'reversal']);
    const events = await sql`
      select type from processor_gateway.outbox
      where type like 'refund.%' and body::jsonb -> 'data' ->> 'paymentId' = ${charge.id}`;
    expect(events.map((event) => event.type)).toEqual(['refund.succeeded']);
  });
});

describe('a refund through the gateway', () => {
  it('requires a key, replays an answer, shows on the link, is a PAYMENT_REFUNDED webhook, and is the merchant’s only', async () => {
    const { sql } = running;
    const endpoint = await gateway('POST', '/api/webhook-endpoints', DEMO_TOKEN, {
      url: receiver.url,
      events: ['PAYMENT_REFUNDED', 'REFUND_FAILED'],
    });
    expect(endpoint.status).toBe(201);

    // A link of the demo merchant, paid by a bank transfer the merchant notified.
    const created = await gateway('POST', '/api/saleitems/add', DEMO_TOKEN, {
      label: 'Gym membership',
      amount: 150000,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      customIdentifier: 'REF-1',
      singlePayment: true,
      creditAndDebitCard: true,
    });
    const link = (await created.json()) as { id: number };
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Asuncion' }).format(new Date());
    const notified = await gateway('POST', '/api/bank-notification/add', DEMO_TOKEN, {
      payRequestId: link.id,
      amount: 150000,
      bankName: 'Banco Nacional',
      reference: `TRF-${randomUUID()}`,
      transferDate: today,
    });
    expect(notified.status).toBe(200);
    const [transfer] = await sql`
      select tx_id::text as tx_id from processor_gateway.bank_transfers
      where merchant_id = ${DEMO_MERCHANT_ID} and (response -> 'target' ->> 'payRequestId')::int = ${link.id}`;
    const paymentId = transfer?.tx_id as string;
    const path = `/api/payments/${paymentId}/refunds`;
    const body = {
      amount: 40000,
      method: 'BANK_TRANSFER',
      reference: 'DEV-9001',
      reason: 'Two classes missed',
    };

    const withoutKey = await gateway('POST', path, DEMO_TOKEN, body);
    expect(withoutKey.status).toBe(400);
    expect(await bodyOf(withoutKey)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED' });

    const key = randomUUID();
    const first = await gateway('POST', path, DEMO_TOKEN, body, key);
    expect(first.status).toBe(201);
    const refund = await bodyOf(first);
    expect(refund).toMatchObject({
      paymentId,
      status: 'succeeded',
      mode: 'outside',
      amount: '40000.00',
      refundedAmount: '40000.00',
      refundableAmount: '110000.00',
    });
    expect(refund.createdAt).toMatch(/-0[34]:00$/);
    const replayed = await gateway('POST', path, DEMO_TOKEN, body, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await bodyOf(replayed)).id).toBe(refund.id);

    const read = await gateway('GET', `${path}/${refund.id}`, DEMO_TOKEN);
    expect(read.status).toBe(200);
    expect((await bodyOf(read)).id).toBe(refund.id);

    // The link stays paid and says what was given back (links learns it from refund.succeeded).
    await waitFor(
      async () => {
        const retrieved = await bodyOf(await gateway('GET', `/api/payrequests/${link.id}`, DEMO_TOKEN));
        return retrieved.refundedAmount === '40000.00' && retrieved.statusId === 200;
      },
      15_000,
      100,
    );

    // The merchant's receiver hears of it: statusId 9, never 200, the refund's own txId.
    const delivered = await waitFor(
      () => receiver.bodies.map((text) => JSON.parse(text)).find((each) => each.data?.txId === refund.id),
      15_000,
      100,
    );
    expect(delivered).toMatchObject({
      event: 'PAYMENT_REFUNDED',
      data: {
        paymentTxId: paymentId,
        payRequestId: link.id,
        customIdentifier: 'REF-1',
        amount: 40000,
        statusId: 9,
        refundedAmount: 40000,
        method: 'BANK_TRANSFER',
        reference: 'DEV-9001',
      },
    });

    // Another merchant does not find the payment, nor its refund.
    const other = await fetch(`${running.system.gatewayUrl}/admin/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ name: 'Another shop', instance: 'NATIONAL' }),
    });
    const { apiToken } = (await other.json()) as { apiToken: string };
    const foreign = await gateway('POST', path, apiToken, body, randomUUID());
    expect(foreign.status).toBe(404);
    expect((await bodyOf(foreign)).code).toBe('PAYMENT_NOT_FOUND');
    expect((await gateway('GET', `${path}/${refund.id}`, apiToken)).status).toBe(404);
    const [count] = await sql`
      select count(*)::int as n from processor_gateway.refunds where payment_id = ${paymentId}`;
    expect(count?.n).toBe(1);
  });
});
