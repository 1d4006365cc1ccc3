import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createEvent, type EventData, type EventEnvelope, type MerchantContext } from '@payrail/contracts';
import { type MessageBus, postgresUnitOfWork } from '@payrail/messaging';
import { type ServiceUnderTest, waitFor } from '@payrail/testing';
import { asc, eq, inArray } from 'drizzle-orm';
import { inbox, installments, outbox, subscriptions } from '../src/adapters/postgres/schema';
import { subscriptionStores } from '../src/adapters/postgres/stores';
import type { SubscriptionStores, SubscriptionUnitOfWork } from '../src/ports/unit-of-work';

let nextLinkId = 1_000 + Math.floor(Math.random() * 1_000_000) * 1_000;

export function newLinkId(): number {
  nextLinkId += 1;
  return nextLinkId;
}

type Recurrence = NonNullable<EventData<'link.created'>['recurrence']>;

export interface LinkOptions {
  linkId?: number;
  customIdentifier?: string | null;
  customIdentifier2?: string | null;
  amount?: string;
  /** The link's currency (PYG when absent). */
  currency?: 'PYG' | 'USD' | 'EUR';
  recurrence?: Recurrence | null;
  createdAt?: string;
  createdOn?: string;
  timezone?: string;
}

export const STATIC_TERMS: Recurrence = {
  type: 'STATIC',
  installmentAmount: '150000.00',
  totalPeriods: 4,
  dayOfMonth: 10,
  monthForSecondInstallment: 1,
};

export function linkCreated(
  merchant: MerchantContext,
  options: LinkOptions = {},
): EventEnvelope<'link.created'> {
  return createEvent(
    'link.created',
    {
      linkId: options.linkId ?? newLinkId(),
      merchantId: merchant.merchantId,
      slug: `slug-${nextLinkId}`,
      label: 'Gym membership',
      amount: options.amount ?? '200000.00',
      currency: options.currency ?? 'PYG',
      customIdentifier: options.customIdentifier === undefined ? 'CI-1' : options.customIdentifier,
      customIdentifier2: options.customIdentifier2 ?? null,
      paymentMethods: ['PARAGUAY.PROCESSOR_A'],
      timezone: options.timezone ?? 'America/Asuncion',
      createdAt: options.createdAt ?? '2026-01-15T15:00:00.000Z',
      createdOn: options.createdOn ?? '2026-01-15',
      recurrence: options.recurrence === undefined ? STATIC_TERMS : options.recurrence,
    },
    new Date('2026-01-15T15:00:00Z'),
  );
}

/** The vault's card a pay-page payment reports in `link.paid`. */
export interface PaidWithCard {
  paymentMethodId: string;
  processor: 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';
  customerId: number;
}

export function linkPaid(
  merchant: MerchantContext,
  linkId: number,
  amount = '200000.00',
  recurrent = true,
  card: PaidWithCard | null = null,
): EventEnvelope<'link.paid'> {
  return createEvent(
    'link.paid',
    {
      linkId,
      merchantId: merchant.merchantId,
      amount,
      currency: 'PYG',
      paidAt: '2026-01-15T16:00:00.000Z',
      txId: 'tx-1',
      recurrent,
      method: 'CARD',
      processor: card?.processor ?? null,
      paymentMethodId: card?.paymentMethodId ?? null,
      chargeId: card ? randomUUID() : null,
      customerId: card?.customerId ?? null,
      processorReference: 'REF-1',
      authorizationCode: 'AUTH-1',
    },
    new Date('2026-01-15T16:00:00Z'),
  );
}

export async function publish(bus: MessageBus, event: EventEnvelope): Promise<void> {
  await bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
}

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type InstallmentRow = typeof installments.$inferSelect;

export async function subscriptionOfLink(
  svc: ServiceUnderTest,
  linkId: number,
): Promise<SubscriptionRow | undefined> {
  const [row] = await svc.database.db.select().from(subscriptions).where(eq(subscriptions.linkId, linkId));
  return row;
}

export async function installmentsOfSubscription(
  svc: ServiceUnderTest,
  subscriptionId: number,
): Promise<InstallmentRow[]> {
  return svc.database.db
    .select()
    .from(installments)
    .where(eq(installments.subscriptionId, subscriptionId))
    .orderBy(asc(installments.number));
}

/** Publishes `link.created` and waits until its subscription is stored. */
export async function createSubscription(
  svc: ServiceUnderTest,
  merchant: MerchantContext,
  options: LinkOptions = {},
): Promise<{ subscription: SubscriptionRow; installments: InstallmentRow[]; linkId: number }> {
  const event = linkCreated(merchant, options);
  await publish(svc.bus, event);
  const subscription = await waitFor(() => subscriptionOfLink(svc, event.data.linkId), 10_000, 10);
  return {
    subscription,
    installments: await installmentsOfSubscription(svc, subscription.id),
    linkId: event.data.linkId,
  };
}

/** Publishes `link.paid` and waits until the subscription is no longer pending. */
export async function activate(
  svc: ServiceUnderTest,
  merchant: MerchantContext,
  linkId: number,
  card: PaidWithCard | null = null,
): Promise<SubscriptionRow> {
  await publish(svc.bus, linkPaid(merchant, linkId, '200000.00', true, card));
  return waitFor(
    async () => {
      const row = await subscriptionOfLink(svc, linkId);
      return row && row.status !== 'pending' ? row : undefined;
    },
    10_000,
    10,
  );
}

/** A pending-then-active STATIC subscription: installment 1 paid, the rest pending. */
export async function activeSubscription(
  svc: ServiceUnderTest,
  merchant: MerchantContext,
  options: LinkOptions = {},
  card: PaidWithCard | null = null,
) {
  const created = await createSubscription(svc, merchant, options);
  const subscription = await activate(svc, merchant, created.linkId, card);
  return {
    subscription,
    installments: await installmentsOfSubscription(svc, subscription.id),
    linkId: created.linkId,
  };
}

/** Everything stored about a merchant, to show that a refused request changed nothing. */
export async function merchantState(svc: ServiceUnderTest, merchantId: string) {
  const subs = await svc.database.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.merchantId, merchantId))
    .orderBy(asc(subscriptions.id));
  const ids = subs.map((row) => row.id);
  const rows =
    ids.length === 0
      ? []
      : await svc.database.db
          .select()
          .from(installments)
          .where(inArray(installments.subscriptionId, ids))
          .orderBy(asc(installments.id));
  const events = await svc.database.db.select({ id: outbox.id }).from(outbox);
  return { subscriptions: subs, installments: rows, outboxRows: events.length };
}

export async function eventsOfType(svc: ServiceUnderTest, type: string) {
  const rows = await svc.database.db
    .select()
    .from(outbox)
    .where(eq(outbox.type, type))
    .orderBy(asc(outbox.createdAt));
  return rows.map((row) => JSON.parse(row.body) as EventEnvelope);
}

/** The data of the events of a type the service put in its outbox about one subscription. */
export async function subscriptionEventData(svc: ServiceUnderTest, type: string, subscriptionId: number) {
  return (await eventsOfType(svc, type))
    .map((e) => e.data as Record<string, unknown>)
    .filter((data) => data.subscriptionId === subscriptionId);
}

export interface Problem {
  status: number;
  code: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

/** Publishes an event and waits until the consumer has committed it (its inbox row). */
export async function publishAndWait(svc: ServiceUnderTest, event: EventEnvelope): Promise<void> {
  await publish(svc.bus, event);
  await waitFor(
    async () => (await svc.database.db.select().from(inbox).where(eq(inbox.messageId, event.id))).length > 0,
    10_000,
    10,
  );
}

/** The `installments.*` events of one subscription, oldest first, each as its list of installments. */
export async function installmentSets(svc: ServiceUnderTest, type: string, subscriptionId: number) {
  return (await eventsOfType(svc, type))
    .map((event) => event.data as { subscriptionId: number; installments: Array<Record<string, unknown>> })
    .filter((data) => data.subscriptionId === subscriptionId)
    .map((data) => data.installments);
}

/** Asserts the refusal and that the merchant's rows and the outbox are exactly as before. */
export async function expectRefused(
  svc: ServiceUnderTest,
  merchant: MerchantContext,
  send: () => Promise<Response>,
  expected: { status: number; code: string; paths?: string[] },
) {
  const before = await merchantState(svc, merchant.merchantId);
  const response = await send();
  const problem = (await response.json()) as Problem;
  expect({ status: response.status, code: problem.code }).toEqual({
    status: expected.status,
    code: expected.code,
  });
  if (expected.paths) expect(problem.errors.map((e) => e.path)).toEqual(expected.paths);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(await merchantState(svc, merchant.merchantId)).toEqual(before);
}

/** A consumers' unit of work as the service makes one (a replica of its own, on the same database). */
export function unitOfWorkOf(svc: ServiceUnderTest): SubscriptionUnitOfWork {
  return postgresUnitOfWork({ db: svc.database.db, inbox, stores: subscriptionStores });
}

/**
 * The stores, each call made to them (and to the stores of their transactions) named in `calls` as
 * `transaction` or `<store>.<method>` (`installments.saveInstallments`).
 */
export function countingStores(stores: SubscriptionStores, calls: string[]): SubscriptionStores {
  const counted = <T extends object>(name: string, store: T): T =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(`${name}.${String(property)}`);
          return (value as (...all: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    subscriptions: counted('subscriptions', stores.subscriptions),
    installments: counted('installments', stores.installments),
    attempts: counted('attempts', stores.attempts),
    cards: counted('cards', stores.cards),
    earlyPayments: counted('earlyPayments', stores.earlyPayments),
    transfers: counted('transfers', stores.transfers),
    outbox: counted('outbox', stores.outbox),
    transaction(work) {
      calls.push('transaction');
      return stores.transaction((inner) => work(countingStores(inner, calls)));
    },
  };
}
