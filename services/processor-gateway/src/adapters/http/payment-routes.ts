import {
  type Currency,
  type ListPaymentsQuery,
  type MerchantContext,
  PAYMENT_CSV_COLUMNS,
  PAYMENT_PAGE,
  type PaymentMovement,
  paymentApi,
  type Processor,
} from '@payrail/contracts';
import { HttpProblem, requestHeader, route } from '@payrail/http';
import { endOfLocalDay, localDateTimeWithOffsetWriter, startOfLocalDay } from '@payrail/time';
import type { Hono } from 'hono';
import { everyPayment, getPayment, listPayments } from '../../application/payments-ledger';
import { decodePosition, type LedgerFilter, type Movement } from '../../domain/ledger';
import type { LedgerStore } from '../../ports/ledger-store';

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

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(view: PaymentMovement): string {
  let line = '';
  for (let index = 0; index < PAYMENT_CSV_COLUMNS.length; index += 1) {
    if (index > 0) line += ',';
    line += csvField(view[PAYMENT_CSV_COLUMNS[index] as keyof PaymentMovement] as string | number | null);
  }
  return `${line}\r\n`;
}

/** Whether the request asks for the CSV export (`format=csv`, or `Accept: text/csv` without `format=json`). */
function wantsCsv(query: ListPaymentsQuery, accept: string | undefined): boolean {
  if (query.format) return query.format === 'csv';
  return accept !== undefined && /(^|[,\s])text\/csv\b/i.test(accept);
}

/**
 * The export: a stream that reads the next batch of rows only when the one before was taken by the
 * client (pull), so that memory holds one batch whatever the size of the selection.
 */
function csvStream(
  batches: AsyncGenerator<Movement[]>,
  at: (instant: Date) => string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let headerSent = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(`${PAYMENT_CSV_COLUMNS.join(',')}\r\n`));
          return;
        }
        const next = await batches.next();
        if (next.done) {
          controller.close();
          return;
        }
        let text = '';
        for (const movement of next.value) text += csvLine(movementView(movement, at));
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
      const at = localDateTimeWithOffsetWriter(merchant.timezone);
      if (wantsCsv(query, requestHeader(c, 'accept'))) {
        const body = csvStream(everyPayment(deps.ledger, merchant.merchantId, filter), at);
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
      return c.json(
        {
          payments: page.movements.map((movement) => movementView(movement, at)),
          nextCursor: page.nextCursor,
        },
        200,
      );
    },
    { mountedAt: '/api' },
  );

  route(
    api,
    paymentApi.getPayment,
    async (c, { params }) => {
      const merchant = c.var.merchant;
      const at = localDateTimeWithOffsetWriter(merchant.timezone);
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
