import {
  type BankTransferDetails,
  type EventData,
  type EventEnvelope,
  type EventType,
  JsonDecimal,
  PAYMENT_LINK_STATUSES,
  type WebhookEventKind,
} from '@payrail/contracts';
import { formatAmount, parseAmount } from '@payrail/money';
import {
  amountOrNull,
  type EnvelopeBase,
  type EnvelopeData,
  type EnvelopeValue,
  emptyEnvelopeBase as emptyBase,
  envelopeData,
  identifierOrEmpty,
  serializeEnvelope,
  type WebhookEnvelope,
} from '../../domain/webhooks/envelope';
import type { WebhookStores } from '../../ports/unit-of-work';
import type { LoggedEvent } from '../../ports/webhook-event-log';
import type { ProjectedLink, ProjectionKeys, WebhookProjection } from '../../ports/webhook-projection';
import { envelopeId } from './envelope-id';

/** The bus events the webhook log is made from (envelopes, or the projection envelopes are filled from). */
export const WEBHOOK_SOURCE_EVENTS = [
  'link.created',
  'link.paid',
  'link.payment-failed',
  'link.expired',
  'link.cancelled',
  'subscription.created',
  'subscription.activated',
  'subscription.completed',
  'subscription.cancelled',
  'subscription.past-due',
  'installments.scheduled',
  'installments.updated',
  'installments.cancelled',
  'installment.paid',
  'installment.failed',
  'payment.failed',
  'bank-transfer.registered',
  'refund.succeeded',
  'refund.failed',
] as const satisfies readonly EventType[];
export type WebhookSourceEvent = (typeof WEBHOOK_SOURCE_EVENTS)[number];

interface Draft {
  kind: WebhookEventKind;
  orderingKey: string;
  data: EnvelopeData;
}

/**
 * What the projection knows of a link (and its subscription); one link's events share its ordering key.
 * `subscriptionPayedPeriod`: the subscription's paid periods so far (null for a link without one).
 */
async function linkContext(writer: WebhookProjection, linkId: number) {
  const link = await writer.findLink(linkId);
  const subscription = link?.subscriptionId ? await writer.findSubscription(link.subscriptionId) : null;
  const base: EnvelopeBase = {
    ...emptyBase(),
    payRequestId: linkId,
    currency: link?.currency ?? null,
    customIdentifier: identifierOrEmpty(link?.customIdentifier),
    customIdentifier2: identifierOrEmpty(link?.customIdentifier2),
    label: link?.label ?? null,
    subscriptionId: link?.subscriptionId ?? null,
    subscriptionTotalPeriods: subscription?.totalPeriods ?? link?.totalPeriods ?? null,
    subscriptionPayedPeriod: link?.subscriptionId ? await writer.findPaidCount(link.subscriptionId) : null,
  };
  return { link, base, orderingKey: `link:${linkId}` };
}

/** The same for a subscription: its link's fields, keyed by its link (a subscription is one link's). */
async function subscriptionContext(
  writer: WebhookProjection,
  subscriptionId: number,
  known: {
    linkId?: number;
    customIdentifier?: string | null;
    customIdentifier2?: string | null;
    currency?: string;
  },
) {
  const subscription = await writer.findSubscription(subscriptionId);
  const linkId = known.linkId ?? subscription?.linkId;
  const context = linkId ? await linkContext(writer, linkId) : null;
  const base: EnvelopeBase = {
    ...(context?.base ?? emptyBase()),
    subscriptionId,
    subscriptionTotalPeriods: subscription?.totalPeriods ?? context?.base.subscriptionTotalPeriods ?? null,
    subscriptionPayedPeriod: await writer.findPaidCount(subscriptionId),
  };
  if (known.customIdentifier !== undefined) base.customIdentifier = identifierOrEmpty(known.customIdentifier);
  if (known.customIdentifier2 !== undefined)
    base.customIdentifier2 = identifierOrEmpty(known.customIdentifier2);
  if (known.currency !== undefined) base.currency = known.currency;
  return {
    base,
    link: context?.link ?? null,
    orderingKey: context ? context.orderingKey : `subscription:${subscriptionId}`,
  };
}

type Item =
  | EventData<'installments.updated'>['installments'][number]
  | EventData<'installments.cancelled'>['installments'][number];

function installmentItems(items: Item[]): EnvelopeValue {
  return items.map((item) => ({
    installmentId: item.installmentId,
    number: item.number,
    paymentDate: item.paymentDate,
    amount: new JsonDecimal(item.amount),
    status: item.status,
    invoiceNumber: item.invoiceNumber,
    ...('changedFields' in item ? { changedFields: item.changedFields } : {}),
  }));
}

/** The amount of an envelope that lists installments: their sum. */
function sumOf(items: Item[]): JsonDecimal {
  return new JsonDecimal(formatAmount(items.reduce((sum, item) => sum + parseAmount(item.amount), 0n)));
}

/** How a payment was made, as a payment event tells it: the processor's references, or the transfer. */
interface PaymentWay {
  method: 'CARD' | 'BANK_TRANSFER';
  processor?: string | null;
  processorReference: string | null;
  authorizationCode: string | null;
  bankReference: string | null;
  bankTransfer: BankTransferDetails | null;
}

function paymentWayFields(way: PaymentWay): Record<string, EnvelopeValue> {
  if (way.method === 'BANK_TRANSFER') {
    return {
      method: way.method,
      bankReference: way.bankReference ?? way.bankTransfer?.reference ?? null,
      bankName: way.bankTransfer?.bankName ?? null,
      transferDate: way.bankTransfer?.transferDate ?? null,
      note: way.bankTransfer?.note ?? null,
    };
  }
  return {
    method: way.method,
    ...(way.processor === undefined ? {} : { processor: way.processor }),
    processorReference: way.processorReference,
    authorizationCode: way.authorizationCode,
  };
}

/**
 * The projected link of a `link.created`: the whole of that event's change (it makes no envelope), so
 * the consumer may save it in one statement with its inbox row (`recordLinkCreated`).
 */
export function projectedLinkOf(data: EventData<'link.created'>): ProjectedLink {
  return {
    linkId: data.linkId,
    merchantId: data.merchantId,
    label: data.label,
    amount: data.amount,
    currency: data.currency,
    customIdentifier: data.customIdentifier,
    customIdentifier2: data.customIdentifier2,
    recurrent: data.recurrence !== null,
    totalPeriods: data.recurrence?.type === 'STATIC' ? data.recurrence.totalPeriods : null,
    statusId: PAYMENT_LINK_STATUSES.PENDING,
    subscriptionId: null,
    txId: null,
  };
}

/**
 * What the projection knows of the payment a refund gives money back from: an installment's subscription
 * (the event names the installment; its subscription when processor-gateway knew it), or a link (a link
 * that starts a subscription is paid as its installment 1), keyed as that subscription's or link's events.
 */
async function refundContext(
  writer: WebhookProjection,
  data: EventData<'refund.succeeded'> | EventData<'refund.failed'>,
): Promise<{ base: EnvelopeBase; orderingKey: string; installmentNumber: number | null }> {
  if (data.installmentId !== null) {
    const installment = await writer.findInstallment(data.installmentId);
    const subscriptionId = data.subscriptionId ?? installment?.subscriptionId ?? null;
    if (subscriptionId === null) {
      return {
        base: emptyBase(),
        orderingKey: `installment:${data.installmentId}`,
        installmentNumber: null,
      };
    }
    const { base, orderingKey } = await subscriptionContext(writer, subscriptionId, {});
    return { base, orderingKey, installmentNumber: installment?.number ?? null };
  }
  if (data.linkId !== null) {
    const { base, link, orderingKey } = await linkContext(writer, data.linkId);
    return { base, orderingKey, installmentNumber: link?.subscriptionId ? 1 : null };
  }
  return { base: emptyBase(), orderingKey: `payment:${data.paymentId}`, installmentNumber: null };
}

/** The projection changes of one bus event, and the envelopes it makes (none for most). */
async function draftsOf(writer: WebhookProjection, event: EventEnvelope): Promise<Draft[]> {
  switch (event.type as WebhookSourceEvent) {
    case 'link.created': {
      await writer.saveLink(projectedLinkOf(event.data as EventData<'link.created'>));
      return [];
    }
    case 'link.paid': {
      const data = event.data as EventData<'link.paid'>;
      await writer.setLinkStatus(data.linkId, PAYMENT_LINK_STATUSES.PAID, data.txId);
      // A subscription's first payment is told by its `installment.paid` (period 1), not twice.
      if (data.recurrent) return [];
      const { base, orderingKey } = await linkContext(writer, data.linkId);
      // A one-off payment (of a link that may also offer a subscription): no period of anything.
      const oneOff: EnvelopeBase = {
        ...base,
        txId: data.txId,
        currency: data.currency,
        subscriptionId: null,
        subscriptionTotalPeriods: null,
        subscriptionPayedPeriod: null,
      };
      return [
        {
          kind: 'PAYMENT_SUCCESS',
          orderingKey,
          data: envelopeData('PAYMENT_SUCCESS', oneOff, new JsonDecimal(data.amount), {
            installmentNumber: null,
            paidAt: data.paidAt,
            ...paymentWayFields({
              ...data,
              // An older transfer's `link.paid` had the bank's reference as its `txId`.
              bankReference:
                data.bankReference ??
                (data.method === 'BANK_TRANSFER' && !data.bankTransfer ? data.txId : null),
            }),
          }),
        },
      ];
    }
    case 'link.payment-failed': {
      const data = event.data as EventData<'link.payment-failed'>;
      await writer.setLinkStatus(data.linkId, PAYMENT_LINK_STATUSES.LAST_ATTEMPT_REJECTED);
      const { base, link, orderingKey } = await linkContext(writer, data.linkId);
      return [
        {
          kind: 'PAYMENT_FAILED',
          orderingKey,
          data: envelopeData(
            'PAYMENT_FAILED',
            { ...base, txId: data.chargeId, currency: data.currency },
            new JsonDecimal(data.amount),
            {
              // A subscription's link is paid as its installment 1.
              installmentNumber: link?.subscriptionId ? 1 : null,
              declineCode: data.declineCode,
              declineReason: data.category,
              failedAt: data.failedAt,
              method: 'CARD',
              processor: data.processor,
              processorReference: data.processorReference,
            },
          ),
        },
      ];
    }
    case 'link.expired':
    case 'link.cancelled': {
      const data = event.data as EventData<'link.expired'> | EventData<'link.cancelled'>;
      const expired = event.type === 'link.expired';
      const statusId = expired ? PAYMENT_LINK_STATUSES.EXPIRED : PAYMENT_LINK_STATUSES.CANCELLED;
      await writer.setLinkStatus(data.linkId, statusId);
      const { base, orderingKey } = await linkContext(writer, data.linkId);
      const kind = expired ? 'LINK_EXPIRED' : 'LINK_CANCELLED';
      const extra: Record<string, EnvelopeValue> =
        'reason' in data
          ? { cancelledAt: data.cancelledAt, reason: data.reason }
          : { expiredAt: data.expiredAt };
      return [
        {
          kind,
          orderingKey,
          data: envelopeData(kind, { ...base, currency: data.currency }, new JsonDecimal(data.amount), extra),
        },
      ];
    }
    case 'subscription.created': {
      const data = event.data as EventData<'subscription.created'>;
      const link = await writer.findLink(data.linkId);
      await writer.saveSubscription({
        subscriptionId: data.subscriptionId,
        merchantId: data.merchantId,
        linkId: data.linkId,
        // Null for an open-ended plan (every month until cancelled); older messages do not say.
        totalPeriods:
          data.totalPeriods !== undefined
            ? data.totalPeriods
            : data.type === 'STATIC'
              ? (link?.totalPeriods ?? data.installments.length)
              : null,
      });
      await writer.saveInstallments(
        data.installments.map((item) => ({
          installmentId: item.installmentId,
          subscriptionId: data.subscriptionId,
          number: item.number,
        })),
      );
      return [];
    }
    case 'subscription.activated':
    case 'subscription.completed':
    case 'subscription.cancelled':
    case 'subscription.past-due': {
      const data = event.data as EventData<'subscription.activated'> &
        Partial<EventData<'subscription.past-due'>> &
        Partial<Pick<EventData<'subscription.cancelled'>, 'reason'>>;
      if (!(await writer.findSubscription(data.subscriptionId))) {
        await writer.saveSubscription({
          subscriptionId: data.subscriptionId,
          merchantId: data.merchantId,
          linkId: data.linkId,
          totalPeriods: null,
        });
      }
      const { base, orderingKey } = await subscriptionContext(writer, data.subscriptionId, data);
      const kind = {
        'subscription.activated': 'SUBSCRIPTION_ACTIVATED',
        'subscription.completed': 'SUBSCRIPTION_COMPLETED',
        'subscription.cancelled': 'SUBSCRIPTION_CANCELLED',
        'subscription.past-due': 'SUBSCRIPTION_PAST_DUE',
      }[event.type as 'subscription.activated'] as WebhookEventKind;
      const extra: Record<string, EnvelopeValue> = { subscriptionStatus: data.status };
      if (data.activatedAt) extra.activatedAt = data.activatedAt;
      if (data.pastDueAt) extra.pastDueAt = data.pastDueAt;
      if (data.installmentId) extra.installmentId = data.installmentId;
      if (data.reason) extra.reason = data.reason;
      // Not a payment: no amount, no statusId (a receiver reading `statusId` must not count it as one).
      return [{ kind, orderingKey, data: envelopeData(kind, base, null, extra) }];
    }
    case 'installments.scheduled':
    case 'installments.updated':
    case 'installments.cancelled': {
      const data = event.data as EventData<'installments.updated'> | EventData<'installments.cancelled'>;
      await writer.saveInstallments(
        data.installments.map((item) => ({
          installmentId: item.installmentId,
          subscriptionId: data.subscriptionId,
          number: item.number,
        })),
      );
      if (event.type === 'installments.scheduled') return [];
      const { base, orderingKey } = await subscriptionContext(writer, data.subscriptionId, data);
      const kind = event.type === 'installments.updated' ? 'INSTALLMENT_UPDATED' : 'INSTALLMENT_CANCELLED';
      return [
        {
          kind,
          orderingKey,
          data: envelopeData(kind, base, sumOf(data.installments), {
            installments: installmentItems(data.installments),
          }),
        },
      ];
    }
    case 'installment.paid': {
      const data = event.data as EventData<'installment.paid'>;
      await writer.saveInstallments([
        { installmentId: data.installmentId, subscriptionId: data.subscriptionId, number: data.number },
      ]);
      // Periods paid after this payment: the count subscriptions gives (an older message: its number), or
      // a greater one already seen (events of one subscription may come late or twice; a count only grows).
      const paidCount = Math.max(
        data.paidCount ?? data.number,
        await writer.findPaidCount(data.subscriptionId),
      );
      await writer.savePaidCounts([{ subscriptionId: data.subscriptionId, paidCount }]);
      const installment = await writer.findInstallment(data.installmentId);
      const { base, link, orderingKey } = await subscriptionContext(writer, data.subscriptionId, data);
      // The money movement comes with the event. Older messages: `installment.txId` was set by a
      // `payment.succeeded` an older gateway recorded; installment 1 is the link's payment; an older
      // transfer's had only its bank reference.
      const txId =
        data.txId ??
        installment?.txId ??
        (data.number === 1 ? (link?.txId ?? null) : null) ??
        (data.method === 'BANK_TRANSFER' ? data.bankReference : null);
      return [
        {
          kind: 'PAYMENT_SUCCESS',
          orderingKey,
          data: envelopeData(
            'PAYMENT_SUCCESS',
            { ...base, txId, subscriptionPayedPeriod: paidCount },
            new JsonDecimal(data.amount),
            {
              installmentNumber: data.number,
              installmentId: data.installmentId,
              paymentDate: data.paymentDate,
              paidAt: data.paidAt,
              ...paymentWayFields(data),
              paidCount: data.paidCount,
              paidTotal: amountOrNull(data.paidTotal),
            },
          ),
        },
      ];
    }
    case 'installment.failed': {
      const data = event.data as EventData<'installment.failed'>;
      await writer.saveInstallments([
        { installmentId: data.installmentId, subscriptionId: data.subscriptionId, number: data.number },
      ]);
      const { base, orderingKey } = await subscriptionContext(writer, data.subscriptionId, data);
      return [
        {
          kind: 'INSTALLMENT_FAILED',
          orderingKey,
          data: envelopeData('INSTALLMENT_FAILED', base, new JsonDecimal(data.amount), {
            installmentNumber: data.number,
            installmentId: data.installmentId,
            paymentDate: data.paymentDate,
            attempts: data.attempts,
            declineCode: data.declineCode,
            declineReason: data.category,
            failedAt: data.failedAt,
          }),
        },
      ];
    }
    case 'payment.failed': {
      // Pay-page declines are told by `link.payment-failed`; here the automatic debit's, attempt by attempt.
      const data = event.data as EventData<'payment.failed'>;
      if (!data.installmentId) return [];
      const installment = await writer.findInstallment(data.installmentId);
      const context = installment
        ? await subscriptionContext(writer, installment.subscriptionId, { currency: data.currency })
        : { base: emptyBase(), orderingKey: `installment:${data.installmentId}` };
      return [
        {
          kind: 'PAYMENT_FAILED',
          orderingKey: context.orderingKey,
          data: envelopeData(
            'PAYMENT_FAILED',
            { ...context.base, txId: data.chargeId, currency: data.currency },
            new JsonDecimal(data.amount),
            {
              installmentNumber: installment?.number ?? null,
              installmentId: data.installmentId,
              attempt: data.attempt,
              declineCode: data.declineCode,
              declineReason: data.category,
              retryable: data.retryable,
              failedAt: data.failedAt,
              method: 'CARD',
              processor: data.processor,
              processorReference: data.processorReference,
            },
          ),
        },
      ];
    }
    case 'bank-transfer.registered': {
      // A notice, not a payment: the payment is the `PAYMENT_SUCCESS` of the `link.paid` / `installment.paid`
      // the transfer settled, with the same `txId`. So no amount and no statusId here.
      const data = event.data as EventData<'bank-transfer.registered'>;
      const transfer: Record<string, EnvelopeValue> = {
        bankName: data.bankName,
        bankReference: data.reference,
        transferDate: data.transferDate,
        note: data.note,
        registeredAt: data.registeredAt,
      };
      const txId = data.txId ?? data.reference;
      if (data.target.type === 'PAY_REQUEST') {
        const { base, orderingKey } = await linkContext(writer, data.target.linkId);
        return [
          {
            kind: 'BANK_TRANSFER_REGISTERED',
            orderingKey,
            data: envelopeData(
              'BANK_TRANSFER_REGISTERED',
              { ...base, txId, currency: data.currency },
              null,
              transfer,
            ),
          },
        ];
      }
      const installment = await writer.findInstallment(data.target.installmentId);
      const { base, orderingKey } = await subscriptionContext(writer, data.target.subscriptionId, {});
      return [
        {
          kind: 'BANK_TRANSFER_REGISTERED',
          orderingKey,
          data: envelopeData('BANK_TRANSFER_REGISTERED', { ...base, txId, currency: data.currency }, null, {
            installmentNumber: installment?.number ?? null,
            installmentId: data.target.installmentId,
            ...transfer,
          }),
        },
      ];
    }
    case 'refund.succeeded':
    case 'refund.failed': {
      // The refund is a movement of its own (`txId`), of the payment `paymentTxId`; money given back is
      // `statusId` 9, never 200 (the link and the installment stay paid). A failed refund is a notice.
      const data = event.data as EventData<'refund.succeeded'> | EventData<'refund.failed'>;
      const { base, orderingKey, installmentNumber } = await refundContext(writer, data);
      const refund: EnvelopeBase = { ...base, txId: data.refundId, currency: data.currency };
      const about: Record<string, EnvelopeValue> = {
        installmentNumber,
        installmentId: data.installmentId,
        paymentTxId: data.paymentId,
      };
      const way: Record<string, EnvelopeValue> = {
        mode: data.mode,
        method: data.method,
        processor: data.processor,
      };
      if ('succeededAt' in data) {
        return [
          {
            kind: 'PAYMENT_REFUNDED',
            orderingKey,
            data: envelopeData('PAYMENT_REFUNDED', refund, new JsonDecimal(data.amount), {
              ...about,
              refundedAmount: new JsonDecimal(data.refundedTotal),
              ...way,
              reference: data.reference,
              reason: data.reason,
              refundedAt: data.succeededAt,
            }),
          },
        ];
      }
      return [
        {
          kind: 'REFUND_FAILED',
          orderingKey,
          data: envelopeData('REFUND_FAILED', refund, null, {
            ...about,
            ...way,
            code: data.code,
            message: data.message,
            failedAt: data.failedAt,
          }),
        },
      ];
    }
    default:
      return [];
  }
}

/** A log entry to append: one envelope of a bus event, and the merchant's log it goes to. */
export type WebhookLogEntry = Omit<LoggedEvent, 'seq'>;

/**
 * One bus event's change to the projection (made through `projection`), and the log entries it makes, in
 * order; none appended yet.
 */
export async function webhookEntriesOf(
  projection: WebhookProjection,
  event: EventEnvelope,
): Promise<WebhookLogEntry[]> {
  const drafts = await draftsOf(projection, event);
  const merchantId = (event.data as { merchantId: string }).merchantId;
  return drafts.map((draft, part) => {
    const envelope: WebhookEnvelope = {
      id: envelopeId(event.id, part),
      event: draft.kind,
      createdAt: event.occurredAt,
      data: draft.data,
    };
    return {
      id: envelope.id,
      merchantId,
      kind: draft.kind,
      orderingKey: draft.orderingKey,
      body: serializeEnvelope(envelope),
      createdAt: new Date(event.occurredAt),
    };
  });
}

/**
 * The projection rows some events may touch: every link, subscription and installment id their data
 * names (the projection's own links between them are followed by `loadProjection`).
 */
export function projectionKeysOf(events: EventEnvelope[]): ProjectionKeys {
  const links = new Set<number>();
  const subscriptions = new Set<number>();
  const installments = new Set<number>();
  const visit = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== 'object') return;
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === 'number' && Number.isInteger(field)) {
        if (key === 'linkId') links.add(field);
        else if (key === 'subscriptionId') subscriptions.add(field);
        else if (key === 'installmentId') installments.add(field);
      } else if (typeof field === 'object') visit(field);
    }
  };
  for (const event of events) visit(event.data);
  return { linkIds: [...links], subscriptionIds: [...subscriptions], installmentIds: [...installments] };
}

/**
 * One bus event into the webhook log: the projection updated, and each envelope it makes appended (and
 * queued for the merchant's endpoints) in the consumer's transaction. Returns how many were appended.
 */
export async function recordWebhookEvents(stores: WebhookStores, event: EventEnvelope): Promise<number> {
  let appended = 0;
  for (const entry of await webhookEntriesOf(stores.projection, event)) {
    if (await stores.eventLog.appendEvent(entry)) appended += 1;
  }
  return appended;
}
