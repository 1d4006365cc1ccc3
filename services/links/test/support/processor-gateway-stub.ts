import { randomUUID } from 'node:crypto';
import { verifyMerchantContext } from '@payrail/http';
import { TEST_INTERNAL_SECRET } from '@payrail/testing';

/**
 * Stands in for processor-gateway's internal routes in links' component tests, with the same contract:
 * one charge per idempotency key (`link:<id>:payment:<n>`), a repeated hosted open answering the same form,
 * a saved-card charge repeated with the same card answering the same charge and with another card 409.
 * It counts what links asked, so a test can say how many charges a burst of clicks made.
 */
export interface StubCharge {
  chargeId: string;
  idempotencyKey: string;
  kind: 'hosted' | 'stored-card';
  status: 'pending' | 'succeeded' | 'failed';
  processor: string;
  amount: string;
  currency: string;
  linkId: number;
  paymentMethodId: string | null;
  declineCode: string | null;
  category: string | null;
  processId: string;
}

export interface StubCard {
  paymentMethodId: string;
  customerId: number;
  processor: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  blocked: boolean;
  createdAt: string;
  merchantId: string;
}

export interface ProcessorGatewayStub {
  handle(request: Request): Promise<Response>;
  charges: Map<string, StubCharge>;
  cards: StubCard[];
  /** Every call links made: method and path. */
  calls: string[];
  /** What the next stored-card charges of a last4 answer (default approved). */
  storedOutcome: Map<string, { status: 'succeeded' | 'failed'; declineCode?: string; category?: string }>;
  /** Registrations opened: id → customer, processor, returnUrl, card to save on completion. */
  registrations: Map<
    string,
    {
      customerId: number;
      processor: string;
      merchantId: string;
      cardLast4: string | null;
      completed: boolean;
    }
  >;
  addCard(card: Omit<StubCard, 'paymentMethodId' | 'createdAt' | 'blocked'>): StubCard;
  chargeOfKey(key: string): StubCharge | undefined;
  settle(
    key: string,
    status: 'succeeded' | 'failed',
    decline?: { code: string; category: string },
  ): StubCharge;
}

/** The fields of the internal routes' bodies this stub reads. */
interface RequestBody {
  linkId: number;
  paymentNumber: number;
  processor: string;
  amount: string;
  currency: string;
  customerId: number;
  paymentMethodId: string;
}

const json = (body: unknown, status = 200) => Response.json(body, { status });

function view(charge: StubCharge) {
  const { processId: _processId, kind: _kind, ...rest } = charge;
  return {
    ...rest,
    installmentId: null,
    retryable: null,
    settledAt: null,
    // What the processor knows the charge by, and the code it approved it with.
    processorReference: `REF-${charge.idempotencyKey}`,
    authorizationCode: charge.status === 'succeeded' ? '654321' : null,
  };
}

export function processorGatewayStub(sandboxOrigin = 'http://sandbox.test:3005'): ProcessorGatewayStub {
  const charges = new Map<string, StubCharge>();
  const cards: StubCard[] = [];
  const calls: string[] = [];
  const storedOutcome: ProcessorGatewayStub['storedOutcome'] = new Map();
  const registrations: ProcessorGatewayStub['registrations'] = new Map();

  const form = (charge: { processor: string; processId: string }) =>
    charge.processor === 'PARAGUAY.PROCESSOR_A'
      ? {
          kind: 'iframe',
          processId: charge.processId,
          formUrl: `${sandboxOrigin}/checkout/new?process_id=${charge.processId}`,
        }
      : { kind: 'redirect', url: `${sandboxOrigin}/pagos/${charge.processId}`, hash: charge.processId };

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^\/internal/, '');
    calls.push(`${request.method} ${path}`);
    const merchant = verifyMerchantContext(
      request.headers.get('x-merchant-context') ?? undefined,
      request.headers.get('x-merchant-signature') ?? undefined,
      TEST_INTERNAL_SECRET,
    );
    if (!merchant) return json({ code: 'UNAUTHORIZED' }, 401);
    const body = (request.method === 'POST' ? await request.json().catch(() => ({})) : {}) as RequestBody;

    if (request.method === 'POST' && path === '/payments/hosted') {
      const key = `link:${body.linkId}:payment:${body.paymentNumber}`;
      const existing = charges.get(key);
      if (existing) {
        if (existing.kind === 'hosted' && existing.status === 'pending') {
          return json({ ...view(existing), form: form(existing) }, 201);
        }
        return json({ code: 'PAYMENT_ATTEMPT_USED' }, 409);
      }
      const charge: StubCharge = {
        chargeId: randomUUID(),
        idempotencyKey: key,
        kind: 'hosted',
        status: 'pending',
        processor: body.processor,
        amount: body.amount,
        currency: body.currency,
        linkId: body.linkId,
        paymentMethodId: null,
        declineCode: null,
        category: null,
        processId: randomUUID().replace(/-/g, '').slice(0, 16),
      };
      charges.set(key, charge);
      return json({ ...view(charge), form: form(charge) }, 201);
    }

    if (request.method === 'POST' && path === '/payments/saved-card') {
      const card = cards.find(
        (candidate) =>
          candidate.paymentMethodId === body.paymentMethodId &&
          candidate.customerId === body.customerId &&
          candidate.merchantId === merchant.merchantId,
      );
      if (!card) return json({ code: 'NOT_FOUND' }, 404);
      const key = `link:${body.linkId}:payment:${body.paymentNumber}`;
      const existing = charges.get(key);
      if (existing) {
        if (existing.kind !== 'stored-card' || existing.paymentMethodId !== card.paymentMethodId) {
          return json({ code: 'PAYMENT_ATTEMPT_USED' }, 409);
        }
        return json(view(existing), 200);
      }
      // A little latency, so that concurrent requests really overlap.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const outcome = storedOutcome.get(card.last4) ?? { status: 'succeeded' as const };
      const charge: StubCharge = {
        chargeId: randomUUID(),
        idempotencyKey: key,
        kind: 'stored-card',
        status: outcome.status,
        processor: card.processor,
        amount: body.amount,
        currency: body.currency,
        linkId: body.linkId,
        paymentMethodId: card.paymentMethodId,
        declineCode: outcome.declineCode ?? null,
        category: outcome.category ?? null,
        processId: '',
      };
      charges.set(key, charge);
      return json(view(charge), 201);
    }

    const linkCharge = /^\/links\/(\d+)\/payments\/(\d+)$/.exec(path);
    if (request.method === 'GET' && linkCharge) {
      const charge = charges.get(`link:${linkCharge[1]}:payment:${linkCharge[2]}`);
      return charge ? json(view(charge)) : json({ code: 'NOT_FOUND' }, 404);
    }

    const customerCards = /^\/customers\/(\d+)\/payment-methods$/.exec(path);
    if (request.method === 'GET' && customerCards) {
      const customerId = Number(customerCards[1]);
      const mine = cards.filter(
        (card) => card.customerId === customerId && card.merchantId === merchant.merchantId,
      );
      return json({ paymentMethods: mine.map(({ merchantId: _m, ...card }) => card) });
    }

    if (request.method === 'POST' && path === '/card-registrations') {
      const registrationId = randomUUID();
      registrations.set(registrationId, {
        customerId: body.customerId,
        processor: body.processor,
        merchantId: merchant.merchantId,
        cardLast4: null,
        completed: false,
      });
      const processId = registrationId.replace(/-/g, '').slice(0, 16);
      return json(
        { registrationId, processor: body.processor, form: form({ processor: body.processor, processId }) },
        201,
      );
    }

    const complete = /^\/card-registrations\/([\w-]+)\/complete$/.exec(path);
    if (request.method === 'POST' && complete) {
      const registration = registrations.get(complete[1] ?? '');
      if (!registration || registration.merchantId !== merchant.merchantId) return json({}, 404);
      const saved: StubCard[] = [];
      if (!registration.completed && registration.cardLast4) {
        saved.push(
          addCard({
            customerId: registration.customerId,
            processor: registration.processor,
            last4: registration.cardLast4,
            brand: 'Visa',
            expiryMonth: 12,
            expiryYear: 2030,
            merchantId: merchant.merchantId,
          }),
        );
      }
      registration.completed = true;
      const all = cards.filter(
        (card) => card.customerId === registration.customerId && card.processor === registration.processor,
      );
      return json({ saved, paymentMethods: all });
    }

    return json({ code: 'NOT_FOUND', path }, 404);
  }

  function addCard(card: Omit<StubCard, 'paymentMethodId' | 'createdAt' | 'blocked'>): StubCard {
    const stored: StubCard = {
      ...card,
      paymentMethodId: randomUUID(),
      blocked: false,
      createdAt: new Date(Date.now() + cards.length).toISOString(),
    };
    cards.push(stored);
    return stored;
  }

  return {
    handle,
    charges,
    cards,
    calls,
    storedOutcome,
    registrations,
    addCard,
    chargeOfKey: (key) => charges.get(key),
    settle(key, status, decline) {
      const charge = charges.get(key);
      if (!charge) throw new Error(`no charge ${key}`);
      charge.status = status;
      charge.declineCode = decline?.code ?? null;
      charge.category = decline?.category ?? null;
      return charge;
    },
  };
}
