import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from '@payrail/http';
import { createLogger } from '@payrail/observability';
import { type ServiceDependencies, systemClock } from '@payrail/runtime';
import type { ActiveFault } from '../../src/application/faults';
import type { LedgerEntry } from '../../src/application/ledger';
import type { ConfirmationA } from '../../src/application/processor-a';
import type { OrderView } from '../../src/application/processor-b';
import type { DeliveryLogEntry } from '../../src/application/webhooks';
import { processorATokens, processorBTokens } from '../../src/application/signatures';
import { processorSandboxService } from '../../src/service';

// Replies typed with every field either shape may carry: the tests check at run time which one came.
export interface ReplyA {
  status: string;
  process_id: string;
  confirmation: ConfirmationA;
  messages: { key: string; level: string; dsc: string }[];
  cards: {
    alias_token: string;
    card_masked_number: string;
    expiration_date: string;
    card_brand: string;
    card_id: number;
    card_type: string;
  }[];
}
export interface StoredCardB {
  alias_token: string;
  id_tarjeta: string;
  tarjeta_numero: string;
  marca: string;
  vencimiento: string;
}
export interface ReplyB<T> {
  respuesta: boolean;
  resultado: T;
}
export interface CompleteReply {
  outcome: string;
  responseCode: string | null;
  redirectUrl: string;
  error?: string;
}

export const KEYS = {
  a: { publicKey: 'test-a-public', privateKey: 'test-a-private' },
  b: { publicKey: 'test-b-public', privateKey: 'test-b-private' },
};

/** Everything the sandbox answered, redirected to and logged in one test run, to scan for card numbers. */
export interface Transcript {
  bodies: string[];
}

export interface RunningSandbox {
  url: string;
  transcript: Transcript;
  stop(): Promise<void>;
  /** Raw call that records the response body in the transcript. */
  call<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T; text: string }>;
  a: ReturnType<typeof processorAClient>;
  b: ReturnType<typeof processorBClient>;
  test: ReturnType<typeof testApiClient>;
}

/** The sandbox on a free port of its own, as the runtime would run it. */
export async function startSandbox(env: Record<string, string> = {}): Promise<RunningSandbox> {
  // Every log line goes into the transcript too, so a test can scan what the sandbox logged.
  const transcript: Transcript = { bodies: [] };
  const deps = {
    logger: createLogger('processor-sandbox-test', 'debug', {
      write: (line: string) => {
        transcript.bodies.push(line);
      },
    }),
    clock: systemClock,
    env: {
      SANDBOX_PROCESSOR_A_PUBLIC_KEY: KEYS.a.publicKey,
      SANDBOX_PROCESSOR_A_PRIVATE_KEY: KEYS.a.privateKey,
      SANDBOX_PROCESSOR_B_PUBLIC_KEY: KEYS.b.publicKey,
      SANDBOX_PROCESSOR_B_PRIVATE_KEY: KEYS.b.privateKey,
      ...env,
    },
    internalSecret: 'test',
    upstream: () => async () => new Response('no processor-gateway in this test', { status: 503 }),
  } as unknown as ServiceDependencies;
  const instance = await processorSandboxService.create(deps);
  await instance.start();
  const server = await listen(instance.app, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${server.port}`;
  const call = async <T = unknown>(path: string, init: RequestInit = {}) => {
    const response = await fetch(`${url}${path}`, { redirect: 'manual', ...init });
    const text = await response.text();
    transcript.bodies.push(text, response.headers.get('location') ?? '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body: body as T, text };
  };
  return {
    url,
    transcript,
    call,
    stop: async () => {
      await instance.stop();
      await server.close();
    },
    a: processorAClient(call),
    b: processorBClient(call),
    test: testApiClient(call),
  };
}

type Call = RunningSandbox['call'];
const json = (body: unknown, method = 'POST'): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A minimal PROCESSOR_A client: builds each operation's token the way an adapter must. */
export function processorAClient(call: Call, keys = KEYS.a) {
  const send = (path: string, operation: Record<string, unknown>, method = 'POST') =>
    call<ReplyA>(`/vpos/api/0.3/${path}`, json({ public_key: keys.publicKey, operation }, method));
  const priv = keys.privateKey;
  return {
    singleBuy: (spid: number, amount: string, extra: Record<string, unknown> = {}) =>
      send('single_buy', {
        token: processorATokens.singleBuy(priv, spid, amount, 'PYG'),
        shop_process_id: spid,
        amount,
        currency: 'PYG',
        description: 'Gym',
        return_url: 'http://shop.test/return',
        cancel_url: 'http://shop.test/cancel',
        ...extra,
      }),
    getConfirmation: (spid: number) =>
      send('single_buy/confirmations', {
        token: processorATokens.getConfirmation(priv, spid),
        shop_process_id: spid,
      }),
    rollback: (spid: number) =>
      send('single_buy/rollback', { token: processorATokens.rollback(priv, spid), shop_process_id: spid }),
    newCard: (userId: number, cardId: number) =>
      send('cards/new', {
        token: processorATokens.newCard(priv, cardId, userId),
        card_id: cardId,
        user_id: userId,
        user_cell_phone: '0981000000',
        user_mail: 'ana@example.com',
        return_url: 'http://shop.test/cards',
      }),
    userCards: (userId: number) =>
      send(`users/${userId}/cards`, { token: processorATokens.userCards(priv, userId) }),
    charge: (spid: number, amount: string, aliasToken: string) =>
      send('charge', {
        token: processorATokens.charge(priv, spid, amount, 'PYG', aliasToken),
        shop_process_id: spid,
        amount,
        currency: 'PYG',
        alias_token: aliasToken,
        number_of_payments: 1,
      }),
    deleteCard: (userId: number, aliasToken: string) =>
      send(
        `users/${userId}/cards`,
        { token: processorATokens.deleteCard(priv, userId, aliasToken), alias_token: aliasToken },
        'DELETE',
      ),
  };
}

/** A minimal PROCESSOR_B client. */
export function processorBClient(call: Call, keys = KEYS.b) {
  const priv = keys.privateKey;
  const recurring = <T = string>(op: string, body: Record<string, unknown>) =>
    call<ReplyB<T>>(
      `/api/pago-recurrente/3.0/${op}`,
      json({ token: processorBTokens.recurring(priv), token_publico: keys.publicKey, ...body }),
    );
  return {
    start: (orderId: string, amount: number, extra: Record<string, unknown> = {}) =>
      call<ReplyB<{ data: string; pedido: string }[]>>(
        '/api/comercios/2.0/iniciar-transaccion',
        json({
          token: processorBTokens.startTransaction(priv, orderId, amount),
          public_key: keys.publicKey,
          monto_total: amount,
          id_pedido_comercio: orderId,
          tipo_pedido: 'VENTA-COMERCIO',
          forma_pago: 9,
          comprador: { nombre: 'Ana' },
          compras_items: [{ nombre: 'Gym', cantidad: 1, precio_total: amount }],
          ...extra,
        }),
      ),
    query: (hash: string) =>
      call<ReplyB<OrderView[]>>(
        '/api/pedidos/1.1/traer',
        json({ token: processorBTokens.query(priv), token_publico: keys.publicKey, hash_pedido: hash }),
      ),
    reverse: (hash: string) =>
      call<ReplyB<string>>(
        '/api/pedidos/1.1/reversar',
        json({ token: processorBTokens.reverse(priv), token_publico: keys.publicKey, hash_pedido: hash }),
      ),
    addCustomer: (id: string) => recurring('agregar-cliente', { identificador: id, nombre_apellido: 'Ana' }),
    addCard: (id: string) =>
      recurring('agregar-tarjeta', { identificador: id, url: 'http://shop.test/card', proveedor: 'Bancard' }),
    confirmCard: (id: string) =>
      recurring('confirmar-tarjeta', { identificador: id, url: 'http://shop.test/card' }),
    listCards: (id: string) => recurring<StoredCardB[]>('listar-tarjeta', { identificador: id }),
    deleteCard: (id: string, alias: string) =>
      recurring('eliminar-tarjeta', { identificador: id, tarjeta: alias }),
    pay: (id: string, hash: string, alias: string) =>
      recurring('pagar', { identificador: id, hash_pedido: hash, tarjeta: alias }),
  };
}

export function testApiClient(call: Call) {
  return {
    ledger: async () => (await call<{ entries: LedgerEntry[] }>('/__sandbox/ledger')).body.entries,
    ledgerPage: async (query: string) =>
      call<{ entries: LedgerEntry[]; total: number; next: number | null; error?: string }>(
        `/__sandbox/ledger?${query}`,
      ),
    faults: async () => (await call<{ faults: ActiveFault[] }>('/__sandbox/faults')).body.faults,
    fault: (body: Record<string, unknown>) => call('/__sandbox/faults', json(body)),
    outcomes: (body: Record<string, unknown>) => call('/__sandbox/outcomes', json(body)),
    complete: (body: Record<string, unknown>) => call<CompleteReply>('/__sandbox/complete', json(body)),
    webhooks: async () =>
      (await call<{ deliveries: DeliveryLogEntry[] }>('/__sandbox/webhooks')).body.deliveries,
    flush: () => call('/__sandbox/webhooks/flush', json({})),
    advance: (seconds: number) => call('/__sandbox/clock', json({ advanceSeconds: seconds })),
    setClock: (iso: string) => call('/__sandbox/clock', json({ set: iso })),
    config: (body: Record<string, unknown>) => call('/__sandbox/config', json(body)),
    reset: () => call('/__sandbox/reset', json({})),
  };
}

/** A small HTTP receiver standing in for processor-gateway's webhook endpoints. */
export async function startReceiver<T = { operation: ConfirmationA }>(
  answer: (body: T, index: number) => { status: number; body: unknown } = () => ({
    status: 200,
    body: { status: 'success' },
  }),
) {
  const received: T[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      const body = JSON.parse(raw) as T;
      received.push(body);
      const reply = answer(body, received.length - 1);
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    raw: () => received.map((body) => JSON.stringify(body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type Receiver<T = { operation: ConfirmationA }> = Awaited<ReturnType<typeof startReceiver<T>>>;

export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
