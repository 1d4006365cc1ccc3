import { signMerchantContext } from '@payrail/http';
import type { MerchantContext } from '@payrail/contracts';
import { type E2eSystem, startSystem } from './support';

export const INTERNAL_SECRET = 'e2e-internal-secret-0123456789';

/** Every service as its own process, plus a second processor-gateway process on the same database and queue. */
export interface ProcessorSystem extends E2eSystem {
  /** Both processor-gateway processes' base URLs. */
  gateways: [string, string];
  stopAll(): Promise<void>;
}

export async function startProcessorSystem(env: Record<string, string>): Promise<ProcessorSystem> {
  const system = await startSystem({ INTERNAL_SECRET, PUBLIC_BASE_URL: 'https://pay.example.test', ...env });
  try {
    const second = await system.addReplica('processor-gateway');
    return {
      ...system,
      gateways: [system.urls['processor-gateway'], second.url],
      stopAll: () => system.stop(),
    };
  } catch (error) {
    await system.stop();
    throw error;
  }
}

/** Calls a processor-gateway's internal route with the signed merchant context, as links does. */
export function internal(
  baseUrl: string,
  merchant: MerchantContext,
  method: string,
  route: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${baseUrl}/internal${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...signMerchantContext(merchant, INTERNAL_SECRET) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The sandbox's test API. */
export async function sandbox<T = Record<string, unknown>>(
  system: E2eSystem,
  method: string,
  route: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${system.urls['processor-sandbox']}/__sandbox${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
}

export type Processor = 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';

export interface FormRef {
  kind: 'iframe' | 'redirect';
  processId?: string;
  hash?: string;
}

export const formTarget = (form: FormRef) =>
  form.kind === 'iframe' ? { processId: form.processId } : { hash: form.hash };

/**
 * Registers a card through processor-gateway's internal routes and the sandbox's form (`/__sandbox/complete`),
 * as the pay page does; answers the saved payment methods (none when the card is refused).
 */
export async function registerCard(
  baseUrl: string,
  system: E2eSystem,
  merchant: MerchantContext,
  customerId: number,
  processor: Processor,
  cardNumber: string,
): Promise<{ outcome: string; saved: Array<{ paymentMethodId: string; maskedNumber: string }> }> {
  const opened = await internal(baseUrl, merchant, 'POST', '/card-registrations', {
    customerId,
    processor,
    returnUrl: 'https://pay.example.test/cards/return',
    email: 'ana@example.com',
  });
  if (opened.status !== 201)
    throw new Error(`registration not opened: ${opened.status} ${await opened.text()}`);
  const { registrationId, form } = (await opened.json()) as { registrationId: string; form: FormRef };
  const completed = await sandbox<{ outcome: string }>(system, 'POST', '/complete', {
    ...formTarget(form),
    cardNumber,
    expiry: '12/30',
    cvv: '123',
  });
  const done = await internal(baseUrl, merchant, 'POST', `/card-registrations/${registrationId}/complete`);
  if (done.status !== 200) throw new Error(`registration not completed: ${done.status} ${await done.text()}`);
  const { saved } = (await done.json()) as {
    saved: Array<{ paymentMethodId: string; maskedNumber: string }>;
  };
  return { outcome: completed.outcome, saved };
}
