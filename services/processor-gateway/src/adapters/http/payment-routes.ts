import {
  type Currency,
  type ListPaymentsQuery,
  type MerchantContext,
  PAYMENT_PAGE,
  type PaymentMovement,
  paymentApi,
  type Processor,
} from '@payrail/contracts';
import { HttpProblem, requestHeader, route } from '@payrail/http';
import { endOfLocalDay, localDateTimeWithOffsetWriter, startOfLocalDay } from '@payrail/time';
import type { Hono } from 'hono';
import { everyPayment, getPayment, listPayments } from '../../application/payments-ledger';
import { decodePosition, type LedgerFilter, type Movement, type WrittenMovement } from '../../domain/ledger';
import type { LedgerStore } from '../../ports/ledger-store';
import { CSV_HEADER, csvLineOf } from './payments-csv';

type DeclineCategory = NonNullable<PaymentMovement['declineCategory']>;

/** A movement as the API answers it, its instants written by `at` (the merchant's zone). */
export function movementView(movement: Movement, at: (instant: Date) => string): PaymentMovement {
  return {
    id: movement.id,
    kind: movement.kind,
    status: movement.status,
    method: movement.method,
    processor: movement.processor as Processor | null,
    amount: movement.amount,
    currency: movement.currency as Currency,
    refundedAmount: movement.refundedAmount,
    cardBrand: movement.cardBrand,
    cardLast4: movement.cardLast4,
    processorReference: movement.processorReference,
    reference: movement.reference,
    paymentId: movement.paymentId,
    payRequestId: movement.linkId,
    label: movement.label,
    subscriptionId: movement.subscriptionId,
    installmentId: movement.installmentId,
    installmentNumber: movement.installmentNumber,
    handleValue: movement.handleValue,
    handleLabel: movement.handleLabel,
    customIdentifier: movement.customIdentifier,
    customIdentifier2: movement.customIdentifier2,
    declineCode: movement.declineCode,
    declineCategory: movement.declineCategory as DeclineCategory | null,
    createdAt: at(movement.createdAt),
    settledAt: movement.settledAt ? at(movement.settledAt) : null,
  };
}

/** What paid: a link or an installment; nothing for a declined attempt or a refund. */
function paidBy(movement: Movement) {
  if (movement.kind === 'REFUND' || movement.status !== 'succeeded') return null;
  if (movement.installmentId !== null) {
    return {
      type: 'INSTALLMENT' as const,
      subscriptionId: movement.subscriptionId,
      installmentId: movement.installmentId,
      number: movement.installmentNumber,
    };
  }
  if (movement.linkId !== null) return { type: 'PAY_REQUEST' as const, payRequestId: movement.linkId };
  return null;
}

function filterOf(query: ListPaymentsQuery, merchant: MerchantContext): LedgerFilter {
  if (query.createdFrom && query.createdTo && query.createdFrom > query.createdTo) {
    const message = 'must not be before createdFrom';
    throw new HttpProblem(400, 'VALIDATION_ERROR', `createdTo ${message}`, [{ path: 'createdTo', message }]);
  }
  return {
    status: query.status,
    kind: query.kind,
    method: query.method,
    processor: query.processor,
    linkId: query.payRequestId,
    subscriptionId: query.subscriptionId,
    customIdentifier: query.customIdentifier,
    customerPrefix: query.q,
    createdFrom: query.createdFrom ? startOfLocalDay(query.createdFrom, merchant.timezone) : undefined,
    createdBefore: query.createdTo ? endOfLocalDay(query.createdTo, merchant.timezone) : undefined,
    amountMin: query.amountMin,
    amountMax: query.amountMax,
  };
}

/** Whether the request asks for the CSV export (`format=csv`, or `Accept: text/csv` without `format=json`). */
function wantsCsv(query: ListPaymentsQuery, accept: string | undefined): boolean {
  if (query.format) return query.format === 'csv';
  return accept !== undefined && /(^|[,\s])text\/csv\b/i.test(accept);
}

/**
 * The writer of instants in a zone, one per zone for the process: each remembers the offsets it found
 * (per UTC quarter hour, a bounded number), so a page asks Intl nothing once its hours were seen.
 */
const writers = new Map<string, (instant: Date) => string>();
function instantWriter(timezone: string): (instant: Date) => string {
  let writer = writers.get(timezone);
  if (!writer) {
    writer = localDateTimeWithOffsetWriter(timezone);
    writers.set(timezone, writer);
  }
  return writer;
}

/**
 * A movement of a page as JSON: the store's text up to `declineCategory`, then its instants (last, as
 * `movementView` orders them; a written instant holds nothing JSON escapes).
 */
function movementJson(movement: WrittenMovement, at: (instant: Date) => string): string {
  const settled = movement.settledAt ? `"${at(movement.settledAt)}"` : 'null';
  return `${movement.text},"createdAt":"${at(movement.createdAt)}","settledAt":${settled}}`;
}

/**
 * The export: a stream the client pulls. Each pull hands on the batch read before and asks the database
 * for the one after it at once, so that PostgreSQL reads and writes the next batch while this one is
 * finished and sent (neither waits for the other); memory holds two batches whatever the size of the
 * selection, and a client that stops reading stops the reading after one more batch.
 */
function csvStream(
  batches: AsyncGenerator<WrittenMovement[]>,
  at: (instant: Date) => string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let ahead: Promise<IteratorResult<WrittenMovement[]>> | undefined;
  const readAhead = () => {
    ahead = batches.next();
    // Awaited by the next pull; a client gone before then must not leave a rejection unhandled.
    ahead.catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!ahead) {
          readAhead();
          controller.enqueue(encoder.encode(CSV_HEADER));
          return;
        }
        const next = await ahead;
        if (next.done) {
          controller.close();
          return;
        }
        readAhead();
        let text = '';
        for (const movement of next.value) text += csvLineOf(movement, at);
        controller.enqueue(encoder.encode(text));
      },
      async cancel() {
        await batches.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * `GET /api/payments` (a page, or the CSV export) and `GET /api/payments/{id}`, on the router of
 * `/api/payments/*` (the merchant context checked by its middleware).
 */
export function paymentRoutes(
  api: Hono<{ Variables: { merchant: MerchantContext } }>,
  deps: { ledger: LedgerStore },
) {
  route(
    api,
    paymentApi.listPayments,
    async (c, { query }) => {
      const merchant = c.var.merchant;
      const filter = filterOf(query, merchant);
      const at = instantWriter(merchant.timezone);
      if (wantsCsv(query, requestHeader(c, 'accept'))) {
        const body = csvStream(everyPayment(deps.ledger, merchant.merchantId, filter, 'csv'), at);
        return new Response(body, {
          status: 200,
          headers: {
            'content-type': 'text/csv; charset=utf-8; header=present',
            'content-disposition': 'attachment; filename="payments.csv"',
            'cache-control': 'no-store',
          },
        }) as never;
      }
      if (query.cursor !== undefined && decodePosition(query.cursor) === undefined) {
        const message = 'must be a nextCursor of an earlier page';
        throw new HttpProblem(400, 'VALIDATION_ERROR', `cursor ${message}`, [{ path: 'cursor', message }]);
      }
      const page = await listPayments(
        deps.ledger,
        merchant.merchantId,
        filter,
        query.cursor,
        query.limit ?? PAYMENT_PAGE.default,
      );
      // Written as `c.json` would write `{ payments: movements.map(movementView), nextCursor }`.
      let payments = '';
      for (const movement of page.movements)
        payments += `${payments === '' ? '' : ','}${movementJson(movement, at)}`;
      return c.body(`{"payments":[${payments}],"nextCursor":${JSON.stringify(page.nextCursor)}}`, 200, {
        'content-type': 'application/json',
      }) as never;
    },
    { mountedAt: '/api' },
  );

  route(
    api,
    paymentApi.getPayment,
    async (c, { params }) => {
      const merchant = c.var.merchant;
      const at = instantWriter(merchant.timezone);
      const { movement, refunds } = await getPayment(
        deps.ledger,
        merchant.merchantId,
        params.id.toLowerCase(),
      );
      return c.json(
        {
          ...movementView(movement, at),
          refunds: refunds.map((refund) => movementView(refund, at)),
          paid: paidBy(movement),
        },
        200,
      );
    },
    { mountedAt: '/api' },
  );
}
