import { createLogger } from '@payrail/observability';
import { testClock } from '@payrail/testing';
import { describe, expect, it } from 'vitest';
import { createProcessorA } from '../src/adapters/processors/processor-a';
import { createProcessorB } from '../src/adapters/processors/processor-b';
import { SEND_WINDOW_PASSED } from '../src/ports/card-processor';

/**
 * Answers the sandbox never gives but a real network can: what each one may be taken to mean. The rule:
 * only an answer that proves nothing was charged may become a decline.
 */
const logger = createLogger('processor-gateway', 'silent');

function stubFetch(answers: Record<string, () => Response | Promise<Response>>): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const match = Object.entries(answers).find(([path]) => url.pathname.endsWith(path));
    if (!match) throw new Error(`unexpected call ${url.pathname}`);
    return match[1]();
  }) as typeof fetch;
}

const listingA = () =>
  Response.json({
    status: 'success',
    cards: [
      {
        alias_token: 'alias-1',
        card_masked_number: '424242******4242',
        expiration_date: '12/30',
        card_brand: 'Visa',
        card_id: 9,
        card_type: 'credit',
      },
    ],
  });

function processorA(charge: () => Response | Promise<Response>) {
  return createProcessorA(
    { id: 'PARAGUAY.PROCESSOR_A', baseUrl: 'http://a.test', publicKey: 'p', privateKey: 'k', timeoutMs: 500 },
    { logger, fetch: stubFetch({ '/cards': listingA, '/charge': charge }) },
  );
}

const chargeInput = {
  reference: '123456789012345',
  customerRef: '555',
  cardRef: '9',
  amount: '1000.00',
  currency: 'PYG',
  description: 'x',
  sendBy: new Date(Date.now() + 3_600_000),
};

describe('PROCESSOR_A charge answers', () => {
  it.each([
    ['200 with an unreadable body', () => new Response('<html>ok</html>', { status: 200 })],
    ['200 success without a confirmation', () => Response.json({ status: 'success' })],
    ['502 from a proxy', () => new Response('bad gateway', { status: 502 })],
    ['504 with no body', () => new Response(null, { status: 504 })],
    ['408', () => new Response('', { status: 408 })],
    [
      'spid already taken',
      () =>
        Response.json(
          {
            status: 'error',
            messages: [{ key: 'InvalidOperationError', dsc: 'process has already been taken' }],
          },
          { status: 400 },
        ),
    ],
  ])('%s is unknown, never a decline', async (_case, answer) => {
    expect(await processorA(answer).chargeStoredCard(chargeInput)).toMatchObject({ kind: 'unknown' });
  });

  it('a reply that never comes within the deadline is unknown', async () => {
    const never = () => new Promise<Response>(() => {});
    const slow = createProcessorA(
      {
        id: 'PARAGUAY.PROCESSOR_A',
        baseUrl: 'http://a.test',
        publicKey: 'p',
        privateKey: 'k',
        timeoutMs: 100,
      },
      {
        logger,
        fetch: (async (input: string | URL | Request, init?: RequestInit) => {
          const url = new URL(input instanceof Request ? input.url : input);
          if (url.pathname.endsWith('/cards')) return listingA();
          return new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
            void never();
          });
        }) as typeof fetch,
      },
    );
    expect(await slow.chargeStoredCard(chargeInput)).toEqual({ kind: 'unknown', reason: 'timeout' });
  });

  it.each([
    ['503 outage page', () => new Response('down', { status: 503 }), 'processor-down'],
    ['404 page', () => new Response('not found', { status: 404 }), 'processor-down'],
    [
      'CardBlockedError',
      () =>
        Response.json(
          { status: 'error', messages: [{ key: 'CardBlockedError', dsc: 'x' }] },
          { status: 400 },
        ),
      'card-blocked',
    ],
  ])('%s is a %s decline', async (_case, answer, category) => {
    expect(await processorA(answer).chargeStoredCard(chargeInput)).toMatchObject({
      kind: 'declined',
      category,
    });
  });

  it('a connection refused before anything was sent is processor-down', async () => {
    const refused = createProcessorA(
      {
        id: 'PARAGUAY.PROCESSOR_A',
        baseUrl: 'http://a.test',
        publicKey: 'p',
        privateKey: 'k',
        timeoutMs: 500,
      },
      {
        logger,
        fetch: (async () => {
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
          });
        }) as typeof fetch,
      },
    );
    expect(await refused.chargeStoredCard(chargeInput)).toMatchObject({
      kind: 'declined',
      category: 'processor-down',
    });
  });

  it('a connection reset after the request went out is unknown', async () => {
    const reset = processorA(() => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }),
      });
    });
    expect(await reset.chargeStoredCard(chargeInput)).toMatchObject({ kind: 'unknown' });
  });
});

describe('the send window: the request that moves money never leaves after `sendBy`', () => {
  /** An adapter whose card listing (and B's order) take `slowMs` of the test clock; counts money requests. */
  function slowSteps(processor: 'A' | 'B', slowMs: number) {
    const clock = testClock(new Date('2026-11-28T12:00:00Z'));
    const moneyRequests: string[] = [];
    const slow = (answer: () => Response) => () => {
      clock.advance(slowMs);
      return answer();
    };
    const settings = { baseUrl: `http://${processor}.test`, publicKey: 'p', privateKey: 'k', timeoutMs: 500 };
    const adapter =
      processor === 'A'
        ? createProcessorA(
            { ...settings, id: 'PARAGUAY.PROCESSOR_A' },
            {
              logger,
              clock,
              fetch: stubFetch({
                '/cards': slow(listingA),
                '/charge': () => {
                  moneyRequests.push('charge');
                  return Response.json({
                    status: 'success',
                    confirmation: { response_code: '00', authorization_number: '123456' },
                  });
                },
              }),
            },
          )
        : createProcessorB(
            { ...settings, id: 'PARAGUAY.PROCESSOR_B' },
            {
              logger,
              clock,
              fetch: stubFetch({
                '/iniciar-transaccion': slow(() =>
                  Response.json({ respuesta: true, resultado: [{ data: 'hash-1', pedido: '1001' }] }),
                ),
                '/listar-tarjeta': () => Response.json({ respuesta: true, resultado: [listingB] }),
                '/pagar': () => {
                  moneyRequests.push('pagar');
                  return Response.json({ respuesta: true, resultado: [] });
                },
              }),
            },
          );
    const input =
      processor === 'A'
        ? chargeInput
        : { ...chargeInput, reference: 'ord1', customerRef: 'c1', cardRef: 't1' };
    return { clock, adapter, moneyRequests, input };
  }

  it.each(['A', 'B'] as const)(
    '%s: steps slower than the window send nothing and answer unknown',
    async (processor) => {
      const { clock, adapter, moneyRequests, input } = slowSteps(processor, 5_000);
      const result = await adapter.chargeStoredCard({
        ...input,
        sendBy: new Date(clock.now().getTime() + 4_999),
      });
      expect(result).toMatchObject({ kind: 'unknown', reason: SEND_WINDOW_PASSED });
      expect(moneyRequests).toEqual([]);
    },
  );

  it.each(['A', 'B'] as const)('%s: within the window the request leaves', async (processor) => {
    const { clock, adapter, moneyRequests, input } = slowSteps(processor, 5_000);
    const result = await adapter.chargeStoredCard({
      ...input,
      sendBy: new Date(clock.now().getTime() + 5_001),
    });
    expect(result.kind).not.toBe('unknown');
    expect(moneyRequests).toHaveLength(1);
  });
});

const listingB = {
  alias_token: 'a',
  id_tarjeta: 't1',
  tarjeta_numero: '424242******4242',
  marca: 'Visa',
  vencimiento: '12/30',
};

describe('PROCESSOR_B pagar answers', () => {
  function processorB(pay: () => Response) {
    return createProcessorB(
      {
        id: 'PARAGUAY.PROCESSOR_B',
        baseUrl: 'http://b.test',
        publicKey: 'p',
        privateKey: 'k',
        timeoutMs: 500,
      },
      {
        logger,
        fetch: stubFetch({
          '/iniciar-transaccion': () =>
            Response.json({ respuesta: true, resultado: [{ data: 'hash-1', pedido: '1001' }] }),
          '/listar-tarjeta': () =>
            Response.json({
              respuesta: true,
              resultado: [
                {
                  alias_token: 'a',
                  id_tarjeta: 't1',
                  tarjeta_numero: '424242******4242',
                  marca: 'Visa',
                  vencimiento: '12/30',
                },
              ],
            }),
          '/pagar': pay,
        }),
      },
    );
  }
  const input = { ...chargeInput, reference: 'ord1', customerRef: 'c1', cardRef: 't1', amount: '1000.00' };

  it.each([
    ['200 with an unreadable body', () => new Response('ok', { status: 200 })],
    ['500', () => new Response('oops', { status: 500 })],
  ])('%s is unknown', async (_case, answer) => {
    expect(await processorB(answer).chargeStoredCard(input)).toMatchObject({ kind: 'unknown' });
  });

  it('"pago en proceso" is pending, not a decline', async () => {
    const busy = () =>
      Response.json({ respuesta: false, resultado: 'El pedido tiene un pago en proceso' }, { status: 400 });
    expect(await processorB(busy).chargeStoredCard(input)).toEqual({
      kind: 'pending',
      processorReference: 'hash-1',
    });
  });

  it('a whole amount goes out as an integer', async () => {
    let sent: unknown;
    const adapter = createProcessorB(
      {
        id: 'PARAGUAY.PROCESSOR_B',
        baseUrl: 'http://b.test',
        publicKey: 'p',
        privateKey: 'k',
        timeoutMs: 500,
      },
      {
        logger,
        fetch: (async (_input: string | URL | Request, init?: RequestInit) => {
          sent = JSON.parse(String(init?.body));
          return Response.json({ respuesta: true, resultado: [{ data: 'h', pedido: '1' }] });
        }) as typeof fetch,
      },
    );
    await adapter.openPayment({
      ...input,
      amount: '150000.00',
      returnUrl: 'http://x',
      cancelUrl: 'http://x',
    });
    expect(sent).toMatchObject({ monto_total: 150000 });
    expect(JSON.stringify(sent)).toContain('"monto_total":150000,');
  });
});
