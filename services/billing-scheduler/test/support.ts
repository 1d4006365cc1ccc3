import { randomUUID } from 'node:crypto';
import { createEvent, type EventData, type EventEnvelope, type EventType } from '@payrail/contracts';
import { signOperatorContext } from '@payrail/http';
import type { MessageBus } from '@payrail/messaging';
import { type ServiceUnderTest, TEST_INTERNAL_SECRET, waitFor } from '@payrail/testing';
import { eq, sql } from 'drizzle-orm';
import { inbox, installments, outbox } from '../src/adapters/postgres/schema';

let nextId = 1000;
export const newId = () => nextId++;

export interface TestSubscription {
  subscriptionId: number;
  merchantId: string;
  timezone: string;
  installments: Array<{ installmentId: number; number: number; paymentDate: string; amount: string }>;
}

/** A STATIC subscription of a merchant: installment 1 (the link's) and one installment per later date. */
export function aSubscription(options: {
  merchantId?: string;
  timezone?: string;
  dates: string[];
}): TestSubscription {
  const merchantId = options.merchantId ?? randomUUID();
  const dates = [options.dates[0] ?? '2026-11-01', ...options.dates];
  return {
    subscriptionId: newId(),
    merchantId,
    timezone: options.timezone ?? 'America/Asuncion',
    installments: dates.map((paymentDate, index) => ({
      installmentId: newId(),
      number: index + 1,
      paymentDate,
      amount: '150000.00',
    })),
  };
}

const at = new Date('2026-11-22T12:00:00Z');

function snapshot(subscription: TestSubscription, status: EventData<'subscription.activated'>['status']) {
  return {
    subscriptionId: subscription.subscriptionId,
    merchantId: subscription.merchantId,
    linkId: subscription.subscriptionId,
    type: 'STATIC' as const,
    status,
    customIdentifier: null,
    customIdentifier2: null,
    currency: 'PYG' as const,
    timezone: subscription.timezone,
  };
}

export function subscriptionCreated(subscription: TestSubscription): EventEnvelope {
  return createEvent(
    'subscription.created',
    { ...snapshot(subscription, 'pending'), status: 'pending', installments: subscription.installments },
    at,
  );
}

export function subscriptionStatus(
  subscription: TestSubscription,
  type: 'subscription.activated' | 'subscription.cancelled' | 'subscription.completed',
): EventEnvelope {
  const status = {
    'subscription.activated': 'active',
    'subscription.cancelled': 'cancelled',
    'subscription.completed': 'completed',
  } as const;
  const base = snapshot(subscription, status[type]);
  return type === 'subscription.activated'
    ? createEvent(type, { ...base, activatedAt: at.toISOString() }, at)
    : createEvent(type, base, at);
}

type Item = EventData<'installments.scheduled'>['installments'][number];

export function installmentsEvent(
  subscription: TestSubscription,
  type: 'installments.scheduled' | 'installments.updated' | 'installments.cancelled',
  items: Array<Partial<Item> & { installmentId: number }>,
): EventEnvelope {
  const full = items.map((item) => {
    const known = subscription.installments.find((one) => one.installmentId === item.installmentId);
    return {
      installmentId: item.installmentId,
      number: item.number ?? known?.number ?? 2,
      paymentDate: item.paymentDate ?? known?.paymentDate ?? '2026-12-10',
      amount: item.amount ?? known?.amount ?? '150000.00',
      status: item.status ?? (type === 'installments.cancelled' ? 'cancelled' : 'pending'),
      invoiceNumber: null,
      ...(type === 'installments.updated' ? { changedFields: ['paymentDate' as const] } : {}),
    };
  });
  return createEvent(type, { ...snapshot(subscription, 'active'), installments: full } as never, at);
}

/** `installment.paid`, by default of an installment paid otherwise than by its automatic charge. */
export function installmentPaid(
  subscription: TestSubscription,
  installmentId: number,
  chargeAttempt: number | null = null,
): EventEnvelope {
  const known = subscription.installments.find((one) => one.installmentId === installmentId);
  return createEvent(
    'installment.paid',
    {
      merchantId: subscription.merchantId,
      subscriptionId: subscription.subscriptionId,
      installmentId,
      number: known?.number ?? 1,
      paymentDate: known?.paymentDate ?? '2026-11-01',
      amount: '150000.00',
      currency: 'PYG',
      status: 'paid',
      invoiceNumber: null,
      timezone: subscription.timezone,
      paidAt: at.toISOString(),
      method: 'CARD',
      bankReference: null,
      paidCount: known?.number ?? 1,
      paidTotal: '150000.00',
      chargeAttempt,
      txId: chargeAttempt === null ? null : `AUTH-${installmentId}-${chargeAttempt}`,
    },
    at,
  );
}

function purpose(subscription: TestSubscription, installmentId: number, attempt: number) {
  return {
    idempotencyKey: `installment:${installmentId}:attempt:${attempt}`,
    chargeId: randomUUID(),
    merchantId: subscription.merchantId,
    processor: 'PARAGUAY.PROCESSOR_A' as const,
    amount: '150000.00',
    currency: 'PYG' as const,
    installmentId,
    attempt,
    linkId: null,
    paymentMethodId: randomUUID(),
  };
}

export function chargeRequested(subscription: TestSubscription, installmentId: number, attempt: number) {
  return createEvent(
    'charge.requested',
    {
      idempotencyKey: `installment:${installmentId}:attempt:${attempt}`,
      merchantId: subscription.merchantId,
      subscriptionId: subscription.subscriptionId,
      installmentId,
      attempt,
      paymentMethodId: randomUUID(),
      amount: '150000.00',
      currency: 'PYG',
    },
    at,
  );
}

export function paymentSucceeded(subscription: TestSubscription, installmentId: number, attempt: number) {
  return createEvent(
    'payment.succeeded',
    {
      ...purpose(subscription, installmentId, attempt),
      paidAt: at.toISOString(),
      authorizationCode: '123456',
    },
    at,
  );
}

export function paymentFailed(
  subscription: TestSubscription,
  installmentId: number,
  attempt: number,
  category: 'soft' | 'hard' | 'card-blocked' | 'processor-down',
  blockedUntil?: string,
) {
  return createEvent(
    'payment.failed',
    {
      ...purpose(subscription, installmentId, attempt),
      failedAt: at.toISOString(),
      retryable: category !== 'hard',
      declineCode: category === 'hard' ? '54' : '51',
      category,
      ...(blockedUntil ? { blockedUntil } : {}),
    },
    at,
  );
}

export function chargeSkipped(
  subscription: TestSubscription,
  charge: { runId: string; installmentId: number; attempt: number },
  reason: EventData<'installment.charge-skipped'>['reason'],
  retryOn: string | null = null,
  state: Partial<
    Pick<EventData<'installment.charge-skipped'>, 'installmentStatus' | 'attemptStatus' | 'declineCategory'>
  > = {},
) {
  return createEvent(
    'installment.charge-skipped',
    {
      ...charge,
      merchantId: subscription.merchantId,
      subscriptionId: subscription.subscriptionId,
      reason,
      retryOn,
      installmentStatus: null,
      attemptStatus: null,
      declineCategory: null,
      ...state,
    },
    at,
  );
}

/** Whether the service's consumers took the message (its inbox has it). */
export async function handled(svc: ServiceUnderTest, messageId: string): Promise<boolean> {
  return (await svc.database.db.select().from(inbox).where(eq(inbox.messageId, messageId))).length > 0;
}

/** Publishes on the broker and waits until each service's inbox has the message (its consumer handled it). */
export async function publishAndWait(
  services: ServiceUnderTest | ServiceUnderTest[],
  bus: MessageBus,
  event: EventEnvelope,
) {
  await bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
  for (const svc of Array.isArray(services) ? services : [services]) {
    await waitFor(() => handled(svc, event.id), 15_000, 20);
  }
}

export async function projected(svc: ServiceUnderTest, installmentId: number) {
  const [row] = await svc.database.db
    .select()
    .from(installments)
    .where(eq(installments.installmentId, installmentId));
  return row;
}

/** The events billing-scheduler wrote to its outbox, of one type, oldest first. */
export async function outboxEvents<T extends EventType>(
  svc: ServiceUnderTest,
  type: T,
): Promise<EventEnvelope<T>[]> {
  const rows = await svc.database.db
    .select()
    .from(outbox)
    .where(eq(outbox.type, type))
    .orderBy(outbox.createdAt, sql`id`);
  return rows.map((row) => JSON.parse(row.body) as EventEnvelope<T>);
}

/** A request as the gateway sends it after checking the operator's bearer token. */
export function asOperator(svc: ServiceUnderTest, method: string, path: string, body?: unknown) {
  const headers = signOperatorContext(method, path.split('?')[0] ?? path, TEST_INTERNAL_SECRET);
  return svc.request(method, path, { body, headers });
}

export async function runToEnd(svc: ServiceUnderTest, body: { asOf: string; merchantId?: string }) {
  const response = await asOperator(svc, 'POST', '/admin/billing/runs', body);
  if (response.status !== 202) throw new Error(`run refused: ${response.status} ${await response.text()}`);
  const run = (await response.json()) as { id: string };
  return waitFor(async () => {
    const current = (await (await asOperator(svc, 'GET', `/admin/billing/runs/${run.id}`)).json()) as {
      id: string;
      status: string;
      due: number;
      requested: number;
      succeeded: number;
      failed: number;
      skipped: number;
    };
    return current.status !== 'claiming' && current;
  });
}
