import type { DatabaseHandle } from '@payrail/db';
import { listen, type RunningServer } from '@payrail/http';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import { processorSandboxService } from '@payrail/processor-sandbox';
import { TEST_INTERNAL_SECRET } from '@payrail/testing';
import type { ProcessorAdapterSettings } from '../src/adapters/processors';
import type { ProcessorId, RawWebhook, WebhookReply } from '../src/ports/card-processor';

export const KEYS = {
  A: { publicKey: 'contract-a-public', privateKey: 'contract-a-private-key' },
  B: { publicKey: 'contract-b-public', privateKey: 'contract-b-private-key' },
} as const;

export type WebhookReceiver = (processor: 'A' | 'B', raw: RawWebhook) => Promise<WebhookReply>;

export interface LedgerEntry {
  processor: string;
  kind: 'charge' | 'rollback' | 'reversal';
  reference: string;
  processReference: string;
  amount: string;
  currency: string;
  resultCode: string;
  last4: string;
  at: string;
}

export interface Delivery {
  processor: string;
  attempt: number;
  status: number | null;
  echoed?: boolean;
  note?: string;
  body: unknown;
}

/**
 * The real processor-sandbox, started in this process on a free port of 127.0.0.1 (a real socket, so a
 * "lost reply" really cuts the connection), with its webhooks handed to whatever receiver the test sets.
 */
export async function startContractSandbox() {
  let receiver: WebhookReceiver = async () => ({ status: 503, body: { error: 'no receiver yet' } });
  const instance = await processorSandboxService.create({
    database: undefined as unknown as DatabaseHandle,
    bus: createInProcessBus(),
    logger: createLogger('processor-sandbox', process.env.TEST_LOG_LEVEL ?? 'silent'),
    clock: { now: () => new Date() },
    internalSecret: TEST_INTERNAL_SECRET,
    env: {
      SANDBOX_PROCESSOR_A_PUBLIC_KEY: KEYS.A.publicKey,
      SANDBOX_PROCESSOR_A_PRIVATE_KEY: KEYS.A.privateKey,
      SANDBOX_PROCESSOR_B_PUBLIC_KEY: KEYS.B.publicKey,
      SANDBOX_PROCESSOR_B_PRIVATE_KEY: KEYS.B.privateKey,
      PUBLIC_BASE_URL: 'http://pay.test',
    },
    // Unset webhook URLs make the sandbox post to processor-gateway through the runtime upstream.
    upstream: () => async (request) => {
      const processor = new URL(request.url).pathname.endsWith('processor-a') ? 'A' : 'B';
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const reply = await receiver(processor, { body: await request.text(), headers });
      return Response.json(reply.body, { status: reply.status });
    },
  });
  await instance.start();
  const server: RunningServer = await listen(instance.app, 0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${server.port}`;

  async function testApi<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${baseUrl}/__sandbox/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T;
    if (!response.ok) throw new Error(`sandbox ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  return {
    baseUrl,
    settings(
      processor: 'A' | 'B',
      overrides: Partial<ProcessorAdapterSettings> = {},
    ): ProcessorAdapterSettings {
      const id: ProcessorId = processor === 'A' ? 'PARAGUAY.PROCESSOR_A' : 'PARAGUAY.PROCESSOR_B';
      return { id, baseUrl, ...KEYS[processor], timeoutMs: 15_000, ...overrides };
    },
    receiveWith(next: WebhookReceiver) {
      receiver = next;
    },
    /** Raw signed call to a processor API, for the wire-level checks the adapter by design never makes. */
    async post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
      const response = await fetch(`${baseUrl}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    reset: () => testApi('POST', 'reset'),
    ledger: async () => (await testApi<{ entries: LedgerEntry[] }>('GET', 'ledger')).entries,
    deliveries: async () => (await testApi<{ deliveries: Delivery[] }>('GET', 'webhooks')).deliveries,
    flushWebhooks: () => testApi('POST', 'webhooks/flush'),
    fault: (processor: 'A' | 'B', fault: string, count = 1, seconds?: number) =>
      testApi('POST', 'faults', { processor, fault, count, ...(seconds === undefined ? {} : { seconds }) }),
    outcomes: (processor: 'A' | 'B', last4: string, codes: string[]) =>
      testApi('POST', 'outcomes', { processor, last4, codes }),
    complete: (target: { processId: string } | { hash: string }, cardNumber: string) =>
      testApi<{ outcome: string; responseCode: string | null; redirectUrl: string }>('POST', 'complete', {
        ...target,
        cardNumber,
      }),
    advanceClock: (seconds: number) => testApi('POST', 'clock', { advanceSeconds: seconds }),
    /** Sets the simulated clock (then runs what became due, B's scheduled reversals among them). */
    setClock: (at: Date) => testApi('POST', 'clock', { set: at.toISOString() }),
    async stop() {
      await server.close();
      await instance.stop();
    },
  };
}

export type ContractSandbox = Awaited<ReturnType<typeof startContractSandbox>>;

let referenceCounter = 0;

/** Our references (charges, customers, registrations): 15 digits, first non-zero, unique in the run. */
export function aReference(): string {
  referenceCounter += 1;
  return `1${String(Date.now()).slice(-8)}${String(referenceCounter).padStart(6, '0')}`;
}
