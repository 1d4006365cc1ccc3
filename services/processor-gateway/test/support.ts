import { randomUUID } from 'node:crypto';
import { createEvent, type EventEnvelope } from '@payrail/contracts';
import type { DeliveredMessage, MessageBus } from '@payrail/messaging';
import type { ServiceUnderTest } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { gatewayStores } from '../src/adapters/postgres/stores';
import { charges } from '../src/adapters/postgres/schema';
import type { ChargeJanitor } from '../src/application/charge-janitor';
import type { ChargeDeps } from '../src/application/settle-charge';
import type { PaymentMethod } from '../src/domain/payment-method';
import type { ProcessorId, StoredCard } from '../src/ports/card-processor';
import type { GatewayStores } from '../src/ports/unit-of-work';
import { createProcessorGatewayService } from '../src/service';
import type { FakeCardProcessor } from './fake-card-processor';

let nextInstallmentId = 10_000 + Math.floor(Math.random() * 1_000_000) * 100;
let nextCustomerId = 5_000 + Math.floor(Math.random() * 1_000_000) * 100;

export function newInstallmentId(): number {
  nextInstallmentId += 1;
  return nextInstallmentId;
}

export function newCustomerId(): number {
  nextCustomerId += 1;
  return nextCustomerId;
}

/** Environment for tests: the janitor only runs when a test calls it, with short waits between checks. */
export const TEST_ENV = {
  CHARGE_JANITOR_INTERVAL_MS: '0',
  CHARGE_STALE_AFTER_MS: '0',
  CHARGE_UNKNOWN_CHECK_AFTER_MS: '0',
  CHARGE_RECHECK_AFTER_MS: '0',
  CHARGE_NOT_FOUND_FINAL_AFTER_MS: '0',
};

/** A service definition that talks to the fake processors and hands out its janitor. */
export function serviceWithFakes(fakes: { a: FakeCardProcessor; b?: FakeCardProcessor }) {
  const handles: { janitor?: ChargeJanitor; deps?: ChargeDeps } = {};
  const definition = createProcessorGatewayService({
    cardProcessors: () => (processor) =>
      processor === 'PARAGUAY.PROCESSOR_B' && fakes.b ? fakes.b : fakes.a,
    onCreated: ({ janitor, deps }) => {
      handles.janitor = janitor;
      handles.deps = deps;
    },
  });
  return {
    definition,
    janitor: () => {
      if (!handles.janitor) throw new Error('service not created yet');
      return handles.janitor;
    },
    /** The service's charge core (stores, processors, clock, timings), to call a use case directly. */
    deps: () => {
      if (!handles.deps) throw new Error('service not created yet');
      return handles.deps;
    },
  };
}

/** The customer's card, as the processor listed it, saved as a payment method usable now. */
export async function saveCard(
  stores: GatewayStores,
  owner: { merchantId: string; customerId: number; processor: ProcessorId; customerRef: string },
  card: StoredCard,
): Promise<PaymentMethod> {
  const { method } = await stores.paymentMethods.saveNewPaymentMethod({
    id: randomUUID(),
    ...owner,
    cardRef: card.cardRef,
    maskedNumber: card.maskedNumber,
    last4: card.last4,
    brand: card.brand,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    blockedUntil: null,
    createdAt: new Date(),
    removedAt: null,
  });
  return method;
}

/** Puts a card in the vault as a completed registration would (the customer exists at the fake). */
export async function vaultCard(
  svc: ServiceUnderTest,
  fake: FakeCardProcessor,
  merchantId: string,
  number = '4242424242424242',
): Promise<PaymentMethod> {
  const stores = gatewayStores(svc.database.db);
  const customerId = newCustomerId();
  const customerRef = await stores.customers.processorCustomerRef(
    merchantId,
    customerId,
    fake.id,
    new Date(),
  );
  const cardRef = fake.addCard(customerRef, number);
  const [card] = (await fake.listCards(customerRef)).filter((c) => c.cardRef === cardRef);
  if (!card) throw new Error('card not at the fake');
  return saveCard(stores, { merchantId, customerId, processor: fake.id, customerRef }, card);
}

export function chargeRequested(
  method: PaymentMethod,
  options: { installmentId?: number; attempt?: number; amount?: string } = {},
): EventEnvelope<'charge.requested'> {
  const installmentId = options.installmentId ?? newInstallmentId();
  const attempt = options.attempt ?? 1;
  return createEvent(
    'charge.requested',
    {
      idempotencyKey: `installment:${installmentId}:attempt:${attempt}`,
      merchantId: method.merchantId,
      subscriptionId: 77,
      installmentId,
      attempt,
      paymentMethodId: method.id,
      amount: options.amount ?? '150000.00',
      currency: 'PYG',
    },
    new Date(),
  );
}

export async function publish(bus: MessageBus, event: EventEnvelope, messageId = event.id): Promise<void> {
  await bus.publish({ id: messageId, type: event.type, body: JSON.stringify(event) });
}

export async function chargeByKey(svc: { database: ServiceUnderTest['database'] }, key: string) {
  const [row] = await svc.database.db.select().from(charges).where(eq(charges.idempotencyKey, key));
  return row;
}

export async function existingCharge(svc: { database: ServiceUnderTest['database'] }, key: string) {
  const row = await chargeByKey(svc, key);
  if (!row) throw new Error(`no charge ${key}`);
  return row;
}

/** Collects the payment events this service publishes. */
export function paymentObserver() {
  const seen: DeliveredMessage[] = [];
  return {
    seen,
    subscription: {
      consumer: 'observer',
      eventTypes: ['payment.succeeded', 'payment.failed', 'payment-method.saved', 'payment-method.removed'],
      handler: async (message: DeliveredMessage) => {
        seen.push(message);
      },
    },
    of(key: string) {
      return seen
        .map((message) => JSON.parse(message.body) as { type: string; data: Record<string, unknown> })
        .filter((event) => event.data.idempotencyKey === key);
    },
  };
}
