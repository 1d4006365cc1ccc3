import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEvent, type EventInput, type EventType } from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { type MessageBus, postgresUnitOfWork } from '@payrail/messaging';
import { type ServiceUnderTest, startService, type StartServiceOptions } from '@payrail/testing';
import { recordWebhookEventsOnEvents } from '../../src/adapters/messaging/record-webhook-events-on-events.consumer';
import { postgresCreatedLinkRecorder } from '../../src/adapters/postgres/created-link-recorder';
import { inbox } from '../../src/adapters/postgres/schema';
import { webhookStores } from '../../src/adapters/postgres/stores';
import { gatewayService } from '../../src/service';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A real HTTP receiver on a free port. `answer` decides each response: a status, or `hang` (never
 * answers, as a stuck receiver), and `down` closes connections at once (as a dead one).
 */
export async function startReceiver() {
  const requests: ReceivedRequest[] = [];
  const state = { status: 204, down: false, hang: false, delayMs: 0, answer: null as string | null };
  /** Requests being answered right now, and the most there ever were at once. */
  const load = { open: 0, maxOpen: 0 };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (state.down) {
        request.socket.destroy();
        return;
      }
      load.open += 1;
      load.maxOpen = Math.max(load.maxOpen, load.open);
      response.on('close', () => {
        load.open -= 1;
      });
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      if (state.hang) {
        hanging.add(response);
        return;
      }
      setTimeout(() => {
        response.writeHead(state.status, { 'content-type': 'text/plain' });
        response.end(state.answer ?? (state.status < 300 ? 'ok' : `refused with ${state.status}`));
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    state,
    load,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The gateway alone, its webhook worker on a compressed retry schedule (seconds stand for days). */
export async function startWebhookGateway(
  env: Record<string, string> = {},
  options: StartServiceOptions = {},
) {
  const gateway = await startService(gatewayService, {
    ...options,
    env: {
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '25',
      WEBHOOK_RETRY_SCHEDULE: '50ms,100ms,200ms',
      ...env,
    },
  });
  return gateway;
}

export async function call(
  gateway: ServiceUnderTest,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; admin?: boolean } = {},
) {
  const headers: Record<string, string> = {};
  if (options.token) headers['api-token'] = options.token;
  if (options.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  const response = await gateway.request(method, path, { body: options.body, headers });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: test responses are read loosely
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any, text };
}

export async function createMerchant(gateway: ServiceUnderTest, name = 'Gym Asunción') {
  const created = await call(gateway, 'POST', '/admin/merchants', {
    admin: true,
    body: { name, instance: 'NATIONAL' },
  });
  if (created.status !== 201) throw new Error(`merchant not created: ${created.text}`);
  return { merchantId: created.body.id as string, token: created.body.apiToken as string };
}

export async function createEndpoint(
  gateway: ServiceUnderTest,
  token: string,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const created = await call(gateway, 'POST', '/api/webhook-endpoints', { token, body });
  if (created.status !== 201) throw new Error(`endpoint not created: ${created.text}`);
  return created.body;
}

let eventClock = Date.parse('2026-11-23T12:00:00Z');

/** Publishes a contract-valid event on the bus, as the owning service's relay would. */
export async function publish<T extends EventType>(
  bus: MessageBus,
  type: T,
  data: EventInput<T>,
): Promise<string> {
  eventClock += 1000;
  const event = createEvent(type, data, new Date(eventClock));
  await bus.publish({ id: event.id, type, body: JSON.stringify(event) });
  return event.id;
}

let nextId = 1000;
export const freshId = () => {
  nextId += 1;
  return nextId;
};

/** The envelopes of `publishEveryKind`'s subscription, in the order they happen. */
export const SUBSCRIPTION_STORY = [
  'PAYMENT_SUCCESS',
  'SUBSCRIPTION_ACTIVATED',
  'INSTALLMENT_UPDATED',
  'INSTALLMENT_CANCELLED',
  'PAYMENT_FAILED',
  'INSTALLMENT_FAILED',
  'SUBSCRIPTION_PAST_DUE',
  'PAYMENT_SUCCESS',
  'BANK_TRANSFER_REGISTERED',
  'PAYMENT_REFUNDED',
  'REFUND_FAILED',
  'SUBSCRIPTION_COMPLETED',
  'SUBSCRIPTION_CANCELLED',
] as const;
/** How many envelopes one `publishEveryKind` makes: the subscription's and seven of the one-off links. */
export const STORY_ENVELOPES = SUBSCRIPTION_STORY.length + 7;

/** A time-ordered UUID of the story's money movements, as processor-gateway makes them (distinct per call). */
let movement = 0;
export const movementId = () => {
  movement += 1;
  return `0190f0c6-${String(Math.floor(movement / 10_000)).padStart(4, '0')}-7000-8000-${String(movement).padStart(12, '0')}`;
};

/**
 * One merchant's story through every event kind a receiver hears of: a STATIC subscription of 3 periods
 * (its first payment by card, activated, updated, an installment cancelled, a declined debit that fails
 * after dunning, past due, paid by a bank transfer, a part of that transfer given back outside, a rollback
 * of the first payment that failed, completed, cancelled) and four one-off links (declined then paid by card
 * and that payment reversed, paid by a bank transfer, expired, cancelled). Every money movement has its
 * `txId` (`movements`), refunds included.
 */
export async function publishEveryKind(bus: MessageBus, merchantId: string) {
  const linkId = freshId();
  const subscriptionId = freshId();
  const installments = [freshId(), freshId(), freshId()];
  const movements = {
    firstPayment: movementId(),
    declinedDebit: movementId(),
    installmentTransfer: movementId(),
    declinedCard: movementId(),
    cardPayment: movementId(),
    linkTransfer: movementId(),
    transferRefund: movementId(),
    failedRefund: movementId(),
    cardRefund: movementId(),
  };
  const common = { merchantId, currency: 'PYG' as const, timezone: 'America/Asuncion' };
  const snapshot = {
    subscriptionId,
    merchantId,
    linkId,
    type: 'STATIC' as const,
    customIdentifier: '4567890',
    customIdentifier2: null,
    currency: 'PYG' as const,
    timezone: 'America/Asuncion',
  };
  await publish(bus, 'link.created', {
    ...common,
    linkId,
    slug: `s${linkId}`,
    label: 'Gym membership',
    amount: '150000.00',
    customIdentifier: '4567890',
    customIdentifier2: null,
    paymentMethods: ['PARAGUAY.PROCESSOR_A'],
    createdAt: '2026-11-23T12:00:00.000Z',
    createdOn: '2026-11-23',
    recurrence: {
      type: 'STATIC',
      installmentAmount: '150000.00',
      totalPeriods: 3,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    },
  });
  await publish(bus, 'subscription.created', {
    ...snapshot,
    status: 'pending',
    installments: installments.map((installmentId, index) => ({
      installmentId,
      number: index + 1,
      paymentDate: `2026-${String(11 + index).padStart(2, '0')}-05`.replace('2026-13', '2027-01'),
      amount: '150000.00',
    })),
  });
  await publish(bus, 'link.paid', {
    linkId,
    merchantId,
    amount: '150000.00',
    currency: 'PYG',
    paidAt: '2026-11-23T12:05:00.000Z',
    txId: movements.firstPayment,
    recurrent: true,
    method: 'CARD',
    processor: 'PARAGUAY.PROCESSOR_A',
    paymentMethodId: null,
    chargeId: movements.firstPayment,
    customerId: null,
    processorReference: '000000000001',
    authorizationCode: 'A-1',
  });
  const installment = (number: number, status: 'paid' | 'pending' | 'failed' | 'cancelled') => ({
    ...common,
    subscriptionId,
    installmentId: installments[number - 1] as number,
    number,
    paymentDate: '2026-12-05',
    amount: '150000.00',
    status,
    invoiceNumber: null,
  });
  await publish(bus, 'installment.paid', {
    ...installment(1, 'paid'),
    paidAt: '2026-11-23T12:05:00.000Z',
    method: 'CARD',
    bankReference: null,
    paidCount: 1,
    paidTotal: '150000.00',
    chargeAttempt: null,
    txId: movements.firstPayment,
    processorReference: '000000000001',
    authorizationCode: 'A-1',
  });
  await publish(bus, 'subscription.activated', {
    ...snapshot,
    status: 'active',
    activatedAt: '2026-11-23T12:05:00.000Z',
  });
  const item = (number: number, status: 'pending' | 'cancelled', amount = '150000.00') => ({
    installmentId: installments[number - 1] as number,
    number,
    paymentDate: '2026-12-05',
    amount,
    status,
    invoiceNumber: null,
  });
  await publish(bus, 'installments.updated', {
    ...snapshot,
    status: 'active',
    installments: [{ ...item(2, 'pending', '160000.00'), changedFields: ['amount'] }],
  });
  await publish(bus, 'installments.cancelled', {
    ...snapshot,
    status: 'active',
    installments: [item(3, 'cancelled')],
  });
  await publish(bus, 'payment.failed', {
    idempotencyKey: `installment:${installments[1]}:attempt:1`,
    chargeId: movements.declinedDebit,
    merchantId,
    processor: 'PARAGUAY.PROCESSOR_A',
    amount: '160000.00',
    currency: 'PYG',
    installmentId: installments[1] as number,
    attempt: 1,
    linkId: null,
    paymentMethodId: null,
    failedAt: '2026-12-05T09:00:00.000Z',
    retryable: false,
    declineCode: 'insufficient_funds',
    category: 'hard',
    processorReference: '000000000002',
  });
  await publish(bus, 'installment.failed', {
    ...installment(2, 'failed'),
    amount: '160000.00',
    failedAt: '2026-12-05T09:00:00.000Z',
    attempts: 1,
    declineCode: 'insufficient_funds',
    category: 'hard',
  });
  await publish(bus, 'subscription.past-due', {
    ...snapshot,
    status: 'past_due',
    installmentId: installments[1] as number,
    pastDueAt: '2026-12-05T09:00:00.000Z',
  });
  // The failed installment paid by a bank transfer: its payment, then the transfer's notice.
  const transfer = {
    reference: 'TRX-000123',
    bankName: 'Banco Nacional',
    transferDate: '2026-12-06',
    note: null,
  };
  await publish(bus, 'installment.paid', {
    ...installment(2, 'paid'),
    amount: '160000.00',
    paidAt: '2026-12-06T10:00:00.000Z',
    method: 'BANK_TRANSFER',
    bankReference: transfer.reference,
    bankTransfer: transfer,
    paidCount: 2,
    paidTotal: '310000.00',
    chargeAttempt: null,
    txId: movements.installmentTransfer,
  });
  await publish(bus, 'bank-transfer.registered', {
    bankTransferId: freshId(),
    txId: movements.installmentTransfer,
    merchantId,
    reference: 'TRX-000123',
    bankName: 'Banco Nacional',
    amount: '160000.00',
    currency: 'PYG',
    transferDate: '2026-12-06',
    note: null,
    target: { type: 'INSTALLMENT', installmentId: installments[1] as number, subscriptionId },
    registeredAt: '2026-12-06T10:00:00.000Z',
  });
  // A part of that transfer given back outside (processor-gateway does not know the installment's
  // subscription: the projection does), and a rollback of the first payment (the link's) that failed.
  const refund = {
    merchantId,
    currency: 'PYG' as const,
    reason: null,
    requestedAt: '2026-12-07T10:00:00.000Z',
  };
  await publish(bus, 'refund.succeeded', {
    ...refund,
    refundId: movements.transferRefund,
    paymentId: movements.installmentTransfer,
    amount: '60000.00',
    refundedTotal: '60000.00',
    mode: 'outside',
    method: 'BANK_TRANSFER',
    processor: null,
    reference: 'DEV-000042',
    reason: 'Paid twice',
    linkId: null,
    subscriptionId: null,
    installmentId: installments[1] as number,
    succeededAt: '2026-12-07T10:00:00.000Z',
  });
  await publish(bus, 'refund.failed', {
    ...refund,
    refundId: movements.failedRefund,
    paymentId: movements.firstPayment,
    amount: '150000.00',
    refundedTotal: '0.00',
    mode: 'rollback',
    method: 'CARD',
    processor: 'PARAGUAY.PROCESSOR_A',
    reference: null,
    linkId,
    subscriptionId: null,
    installmentId: null,
    failedAt: '2026-12-07T10:01:00.000Z',
    code: 'PROCESSOR_UNAVAILABLE',
    message: 'The processor could not be reached; nothing was given back',
  });
  await publish(bus, 'subscription.completed', { ...snapshot, status: 'completed' });
  await publish(bus, 'subscription.cancelled', { ...snapshot, status: 'cancelled', reason: 'merchant' });

  const oneOff = async (label: string) => {
    const id = freshId();
    await publish(bus, 'link.created', {
      ...common,
      linkId: id,
      slug: `s${id}`,
      label,
      amount: '50000.00',
      customIdentifier: null,
      customIdentifier2: null,
      paymentMethods: ['PARAGUAY.PROCESSOR_B'],
      createdAt: '2026-11-23T12:00:00.000Z',
      createdOn: '2026-11-23',
      recurrence: null,
    });
    return id;
  };
  const paid = await oneOff('T-shirt');
  await publish(bus, 'link.payment-failed', {
    linkId: paid,
    merchantId,
    amount: '50000.00',
    currency: 'PYG',
    failedAt: '2026-11-23T12:10:00.000Z',
    processor: 'PARAGUAY.PROCESSOR_B',
    chargeId: movements.declinedCard,
    declineCode: 'do_not_honor',
    category: 'soft',
    processorReference: '000000000003',
  });
  await publish(bus, 'link.paid', {
    linkId: paid,
    merchantId,
    amount: '50000.00',
    currency: 'PYG',
    paidAt: '2026-11-23T12:11:00.000Z',
    txId: movements.cardPayment,
    recurrent: false,
    method: 'CARD',
    processor: 'PARAGUAY.PROCESSOR_B',
    paymentMethodId: null,
    chargeId: movements.cardPayment,
    customerId: null,
    processorReference: '000000000004',
    authorizationCode: 'B-77',
  });
  await publish(bus, 'refund.succeeded', {
    refundId: movements.cardRefund,
    paymentId: movements.cardPayment,
    merchantId,
    amount: '50000.00',
    currency: 'PYG',
    refundedTotal: '50000.00',
    mode: 'reversal',
    method: 'CARD',
    processor: 'PARAGUAY.PROCESSOR_B',
    reference: null,
    reason: null,
    linkId: paid,
    subscriptionId: null,
    installmentId: null,
    requestedAt: '2026-11-23T12:30:00.000Z',
    succeededAt: '2026-11-23T12:30:00.000Z',
  });
  const byTransfer = await oneOff('Uniform');
  const linkTransfer = {
    reference: 'TRX-000124',
    bankName: 'Banco Familiar',
    transferDate: '2026-11-24',
    note: 'Counter 2',
  };
  await publish(bus, 'link.paid', {
    linkId: byTransfer,
    merchantId,
    amount: '50000.00',
    currency: 'PYG',
    paidAt: '2026-11-24T12:00:00.000Z',
    txId: movements.linkTransfer,
    recurrent: false,
    method: 'BANK_TRANSFER',
    bankReference: linkTransfer.reference,
    bankTransfer: linkTransfer,
  });
  await publish(bus, 'bank-transfer.registered', {
    bankTransferId: freshId(),
    txId: movements.linkTransfer,
    merchantId,
    reference: linkTransfer.reference,
    bankName: linkTransfer.bankName,
    amount: '50000.00',
    currency: 'PYG',
    transferDate: linkTransfer.transferDate,
    note: linkTransfer.note,
    target: { type: 'PAY_REQUEST', linkId: byTransfer },
    registeredAt: '2026-11-24T12:00:00.000Z',
  });
  const expired = await oneOff('Expired offer');
  await publish(bus, 'link.expired', {
    linkId: expired,
    merchantId,
    amount: '50000.00',
    currency: 'PYG',
    expiredAt: '2026-11-24T12:00:00.000Z',
  });
  const cancelled = await oneOff('Cancelled offer');
  await publish(bus, 'link.cancelled', {
    linkId: cancelled,
    merchantId,
    amount: '50000.00',
    currency: 'PYG',
    cancelledAt: '2026-11-23T13:00:00.000Z',
    reason: 'merchant',
  });
  return { linkId, subscriptionId, installments, paid, byTransfer, expired, cancelled, movements };
}

/** The webhook-events consumer on `db`, made as `service.ts` makes it (the unit of work of libs/messaging). */
export function webhookEventsConsumer(db: Database, afterCommit: () => void = () => {}) {
  return recordWebhookEventsOnEvents(
    postgresUnitOfWork({ db, inbox, stores: webhookStores }),
    postgresCreatedLinkRecorder(db, inbox),
    afterCommit,
  );
}
