import { type EventData, parseEvent } from '@payrail/contracts';
import type { DeliveredMessage } from '@payrail/messaging';
import type { Movement } from '../domain/ledger';
import type { ChargeStore } from '../ports/charge-store';
import type { LedgerStore } from '../ports/ledger-store';
import type { PaymentMethodStore } from '../ports/payment-method-store';

/** The events the ledger is written from: the movements, and the context its rows take. */
export const LEDGER_EVENTS = [
  'payment.succeeded',
  'payment.failed',
  'bank-transfer.registered',
  'refund.scheduled',
  'refund.succeeded',
  'refund.failed',
  'link.created',
  'subscription.created',
  'installments.scheduled',
] as const;

export interface LedgerStores {
  ledger: LedgerStore;
  charges: ChargeStore;
  paymentMethods: PaymentMethodStore;
}

type Context = Pick<
  Movement,
  | 'linkId'
  | 'label'
  | 'subscriptionId'
  | 'installmentId'
  | 'installmentNumber'
  | 'handleValue'
  | 'handleLabel'
  | 'customIdentifier'
  | 'customIdentifier2'
>;

/** What the ledger knows of a link and an installment: the row's context. */
async function contextOf(
  stores: LedgerStores,
  linkId: number | null,
  installmentId: number | null,
  subscriptionId: number | null = null,
): Promise<Context> {
  const installment = installmentId === null ? undefined : await stores.ledger.findInstallment(installmentId);
  const link = linkId ?? installment?.linkId ?? null;
  const described = link === null ? undefined : await stores.ledger.findLink(link);
  return {
    linkId: link,
    label: described?.label ?? null,
    subscriptionId: installment?.subscriptionId ?? subscriptionId ?? described?.subscriptionId ?? null,
    installmentId,
    installmentNumber: installment?.number ?? null,
    handleValue: described?.handleValue ?? null,
    handleLabel: described?.handleLabel ?? null,
    customIdentifier: described?.customIdentifier ?? null,
    customIdentifier2: described?.customIdentifier2 ?? null,
  };
}

async function recordCharge(
  stores: LedgerStores,
  data: EventData<'payment.succeeded'> | EventData<'payment.failed'>,
  outcome:
    | { status: 'succeeded'; at: string }
    | { status: 'declined'; at: string; code: string; category: string },
) {
  const charge = await stores.charges.findCharge(data.merchantId, data.chargeId);
  const card =
    data.paymentMethodId === null
      ? undefined
      : await stores.paymentMethods.findPaymentMethod(data.merchantId, data.paymentMethodId);
  const context = await contextOf(stores, data.linkId, data.installmentId);
  await stores.ledger.record({
    id: data.chargeId,
    merchantId: data.merchantId,
    kind: data.installmentId !== null ? 'INSTALLMENT_CHARGE' : 'LINK_PAYMENT',
    status: outcome.status,
    method: 'CARD',
    processor: data.processor,
    amount: data.amount,
    currency: data.currency,
    refundedAmount: '0.00',
    cardBrand: card?.brand ?? null,
    cardLast4: card?.last4 ?? null,
    processorReference: data.processorReference,
    reference: null,
    paymentId: null,
    ...context,
    declineCode: outcome.status === 'declined' ? outcome.code : null,
    declineCategory: outcome.status === 'declined' ? outcome.category : null,
    createdAt: charge?.createdAt ?? new Date(outcome.at),
    settledAt: new Date(outcome.at),
  });
  await stores.ledger.refreshRefunded(data.chargeId);
}

async function recordTransfer(stores: LedgerStores, data: EventData<'bank-transfer.registered'>) {
  // Older messages named no movement: there is no id to keep it by.
  if (data.txId === null) return;
  const target = data.target;
  const context =
    target.type === 'PAY_REQUEST'
      ? await contextOf(stores, target.linkId, null)
      : await contextOf(stores, null, target.installmentId, target.subscriptionId);
  const registeredAt = new Date(data.registeredAt);
  await stores.ledger.record({
    id: data.txId,
    merchantId: data.merchantId,
    kind: 'BANK_TRANSFER',
    status: 'succeeded',
    method: 'BANK_TRANSFER',
    processor: null,
    amount: data.amount,
    currency: data.currency,
    refundedAmount: '0.00',
    cardBrand: null,
    cardLast4: null,
    processorReference: null,
    reference: data.reference,
    paymentId: null,
    ...context,
    declineCode: null,
    declineCategory: null,
    createdAt: registeredAt,
    settledAt: registeredAt,
  });
  await stores.ledger.refreshRefunded(data.txId);
}

type RefundData =
  | { type: 'refund.scheduled'; data: EventData<'refund.scheduled'> }
  | { type: 'refund.succeeded'; data: EventData<'refund.succeeded'> }
  | { type: 'refund.failed'; data: EventData<'refund.failed'> };

async function recordRefund(stores: LedgerStores, event: RefundData) {
  const { data } = event;
  const payment = await stores.ledger.find(data.merchantId, data.paymentId);
  const context: Context = payment
    ? {
        linkId: payment.linkId,
        label: payment.label,
        subscriptionId: payment.subscriptionId,
        installmentId: payment.installmentId,
        installmentNumber: payment.installmentNumber,
        handleValue: payment.handleValue,
        handleLabel: payment.handleLabel,
        customIdentifier: payment.customIdentifier,
        customIdentifier2: payment.customIdentifier2,
      }
    : await contextOf(stores, data.linkId, data.installmentId, data.subscriptionId);
  const settledAt =
    event.type === 'refund.succeeded'
      ? new Date(event.data.succeededAt)
      : event.type === 'refund.failed'
        ? new Date(event.data.failedAt)
        : null;
  await stores.ledger.record({
    id: data.refundId,
    merchantId: data.merchantId,
    kind: 'REFUND',
    status:
      event.type === 'refund.scheduled'
        ? 'scheduled'
        : event.type === 'refund.succeeded'
          ? 'succeeded'
          : 'failed',
    method: data.method,
    processor: data.processor,
    amount: data.amount,
    currency: data.currency,
    refundedAmount: '0.00',
    cardBrand: payment?.cardBrand ?? null,
    cardLast4: payment?.cardLast4 ?? null,
    processorReference: null,
    reference: data.reference,
    paymentId: data.paymentId,
    ...context,
    declineCode: event.type === 'refund.failed' ? event.data.code : null,
    declineCategory: null,
    createdAt: new Date(data.requestedAt),
    settledAt,
  });
  await stores.ledger.refreshRefunded(data.paymentId);
}

/**
 * One event into the ledger (`record-movements-on-money-events`, in the unit of work: a redelivery finds
 * its inbox row and comes nowhere near here). Writes are upserts by the movement's id, and context is
 * given both ways (a row takes what is known; context arriving later reaches the rows before it), so the
 * order the events arrive in does not matter.
 */
export async function recordMovement(stores: LedgerStores, message: Pick<DeliveredMessage, 'type' | 'body'>) {
  switch (message.type) {
    case 'payment.succeeded': {
      const { data } = parseEvent('payment.succeeded', message.body);
      return recordCharge(stores, data, { status: 'succeeded', at: data.paidAt });
    }
    case 'payment.failed': {
      const { data } = parseEvent('payment.failed', message.body);
      return recordCharge(stores, data, {
        status: 'declined',
        at: data.failedAt,
        code: data.declineCode,
        category: data.category,
      });
    }
    case 'bank-transfer.registered':
      return recordTransfer(stores, parseEvent('bank-transfer.registered', message.body).data);
    case 'refund.scheduled':
      return recordRefund(stores, { type: message.type, data: parseEvent(message.type, message.body).data });
    case 'refund.succeeded':
      return recordRefund(stores, { type: message.type, data: parseEvent(message.type, message.body).data });
    case 'refund.failed':
      return recordRefund(stores, { type: message.type, data: parseEvent(message.type, message.body).data });
    case 'link.created': {
      const { data } = parseEvent('link.created', message.body);
      return stores.ledger.saveLink({
        linkId: data.linkId,
        merchantId: data.merchantId,
        label: data.label,
        handleValue: data.handleValue,
        handleLabel: data.handleLabel,
        customIdentifier: data.customIdentifier,
        customIdentifier2: data.customIdentifier2,
        subscriptionId: null,
      });
    }
    case 'subscription.created': {
      const { data } = parseEvent('subscription.created', message.body);
      await stores.ledger.saveInstallments(
        data.installments.map((item) => ({
          installmentId: item.installmentId,
          subscriptionId: data.subscriptionId,
          linkId: data.linkId,
          number: item.number,
        })),
      );
      return stores.ledger.setLinkSubscription(data.merchantId, data.linkId, data.subscriptionId);
    }
    case 'installments.scheduled': {
      const { data } = parseEvent('installments.scheduled', message.body);
      return stores.ledger.saveInstallments(
        data.installments.map((item) => ({
          installmentId: item.installmentId,
          subscriptionId: data.subscriptionId,
          linkId: data.linkId,
          number: item.number,
        })),
      );
    }
    default:
      return undefined;
  }
}
