/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type {
  PaymentDetailsResponse,
  PaymentListResponse,
  PaymentMovement,
  RefundResponse,
} from '@payrail/contracts';
import { decimalsOf, formatAmount, formatMoney, parseAmount } from '@payrail/money';
import type { Hono } from 'hono';
import {
  Badge,
  type ConsoleEnv,
  type Ctx,
  callApi,
  confirmationProblem,
  confirmed,
  DoneNotice,
  Field,
  FormSecrets,
  formOf,
  idempotencyKeyOf,
  Money,
  type Problem,
  ProblemNotice,
  PageHead,
  page,
  problemStatus,
  queryOf,
  read,
  t,
  type Tone,
  when,
  withQuery,
} from './kit';
import { DataTable, FilterForm, FilterSelect, ListAnswer, readListPage, choices } from './list-page';
import { type PaymentsMessages, paymentsMessages } from './payments-i18n';
import { mayWrite } from './permissions';

/**
 * The Payments pages (issue 28 over the ledger of issue 27), each a client of the public API as the
 * signed-in user: the ledger with its filters (`GET /api/payments`, the filters in the page's own query
 * string, paged by cursor), its CSV export (the API's answer streamed on to the browser, never gathered
 * here), a movement's detail with its refunds (`GET /api/payments/{id}`), and the refund form with its
 * confirmation step (`POST /api/payments/{id}/refunds` with the form's own Idempotency-Key).
 */

const FILTERS = [
  'status',
  'kind',
  'method',
  'processor',
  'q',
  'customIdentifier',
  'createdFrom',
  'createdTo',
  'amountMin',
  'amountMax',
  'payRequestId',
  'subscriptionId',
] as const;

const STATUSES = ['succeeded', 'declined', 'pending', 'scheduled', 'failed'] as const;
const KINDS = ['LINK_PAYMENT', 'INSTALLMENT_CHARGE', 'BANK_TRANSFER', 'REFUND'] as const;
const METHODS = ['CARD', 'BANK_TRANSFER', 'CASH'] as const;
const PAGE_SIZE = 50;

const TONE: Record<string, Tone> = {
  succeeded: 'good',
  declined: 'bad',
  failed: 'bad',
  pending: 'info',
  scheduled: 'warn',
};

export const pt = (c: Ctx): PaymentsMessages => paymentsMessages(c.var.lang);

function StatusBadge(props: { status: string; text: PaymentsMessages; testid?: string }) {
  return (
    <Badge tone={TONE[props.status]} status={props.status} testid={props.testid ?? 'payment-status'}>
      {props.text.statuses[props.status as keyof PaymentsMessages['statuses']] ?? props.status}
    </Badge>
  );
}

/** A movement's amount as the merchant reads it, a refund's with a minus. */
function SignedMoney(props: { movement: PaymentMovement; c: Ctx }) {
  const minus = props.movement.kind === 'REFUND';
  return (
    <>
      {minus ? '− ' : ''}
      <Money amount={props.movement.amount} currency={props.movement.currency} lang={props.c.var.lang} />
    </>
  );
}

/** The amount as typed in the currency's own decimals (`87500` for PYG, `12.50` for USD). */
function amountForInput(amount: string, currency: string): string {
  const text = formatAmount(parseAmount(amount));
  return decimalsOf(currency) === 0 ? (text.split('.')[0] ?? text) : text;
}

/** What is left to refund: the payment minus every refund that did not fail (in progress included). */
export function leftToRefund(payment: PaymentDetailsResponse): string {
  let left = parseAmount(payment.amount);
  for (const refund of payment.refunds) if (refund.status !== 'failed') left -= parseAmount(refund.amount);
  return formatAmount(left < 0n ? 0n : left);
}

/** Whether the movement can be refunded at all (a payment that moved money and has something left). */
function refundable(payment: PaymentDetailsResponse): boolean {
  return (
    payment.kind !== 'REFUND' && payment.status === 'succeeded' && parseAmount(leftToRefund(payment)) > 0n
  );
}

/** A refused refund in the user's words: the ledger's own codes first, then the console's. */
function RefundProblem(props: { problem: Problem | undefined; c: Ctx }) {
  const problem = props.problem;
  if (!problem) return null;
  const own = pt(props.c).codes[problem.code];
  if (!own) return <ProblemNotice problem={problem} t={t(props.c)} labels={refundLabels(props.c)} />;
  return (
    <div class="notice error" role="alert" data-testid="form-problem" data-code={problem.code}>
      <strong>{own}</strong>
      <p class="muted">{problem.detail}</p>
    </div>
  );
}

function refundLabels(c: Ctx): Record<string, string> {
  const text = pt(c);
  return {
    amount: text.amount,
    method: text.method,
    reference: text.refund.reference,
    reason: text.refund.reason,
  };
}

export function paymentsPages(console: Hono<ConsoleEnv>) {
  console.get('/payments', async (c) => {
    const text = pt(c);
    const common = t(c);
    const { filters, cursor, answer } = await readListPage<PaymentListResponse, (typeof FILTERS)[number]>(
      c,
      '/api/payments',
      FILTERS,
      PAGE_SIZE,
    );
    const tz = c.var.merchantProfile.timezone;
    const processors = c.var.merchantProfile.processors;
    return page(
      c,
      { title: text.title, section: 'payments', status: answer.ok ? 200 : problemStatus(answer.problem) },
      <>
        <PageHead title={text.title}>
          <a
            class="button secondary"
            href={withQuery('/console/payments/export', filters)}
            data-testid="payment-export"
            download
          >
            {text.export}
          </a>
        </PageHead>
        <FilterForm action="/console/payments" t={common}>
          <FilterSelect
            label={text.status}
            name="status"
            value={filters.status}
            all={common.all}
            options={choices(STATUSES, text.statuses)}
          />
          <FilterSelect
            label={text.kind}
            name="kind"
            value={filters.kind}
            all={common.all}
            options={choices(KINDS, text.kinds)}
          />
          <FilterSelect
            label={text.method}
            name="method"
            value={filters.method}
            all={common.all}
            options={choices(METHODS, text.methods)}
          />
          <FilterSelect
            label={text.processor}
            name="processor"
            value={filters.processor}
            all={common.all}
            options={choices(processors)}
          />
          <Field label={text.search} name="q" type="search" value={filters.q} hint={text.searchHint} />
          <Field label={text.customIdentifier} name="customIdentifier" value={filters.customIdentifier} />
          <Field label={text.createdFrom} name="createdFrom" type="date" value={filters.createdFrom} />
          <Field label={text.createdTo} name="createdTo" type="date" value={filters.createdTo} />
          <Field label={text.amountMin} name="amountMin" inputmode="decimal" value={filters.amountMin} />
          <Field label={text.amountMax} name="amountMax" inputmode="decimal" value={filters.amountMax} />
          {filters.payRequestId ? (
            <input type="hidden" name="payRequestId" value={filters.payRequestId} />
          ) : null}
          {filters.subscriptionId ? (
            <input type="hidden" name="subscriptionId" value={filters.subscriptionId} />
          ) : null}
        </FilterForm>
        <ListAnswer
          answer={answer}
          t={common}
          pager={{ path: '/console/payments', filters, cursor }}
          list={(body) => (
            <DataTable
              rows={body.payments}
              empty={text.none}
              caption={text.title}
              row={(movement) => ({
                'data-testid': 'payment-row',
                'data-id': movement.id,
                'data-status': movement.status,
              })}
              columns={[
                {
                  label: text.created,
                  cell: (movement) => (
                    <a href={`/console/payments/${movement.id}`}>
                      {when(movement.createdAt, tz, c.var.lang)}
                    </a>
                  ),
                },
                {
                  label: text.kind,
                  cell: (movement) => (
                    <>
                      {text.kinds[movement.kind]}
                      {movement.label ? <span class="hint">{movement.label}</span> : null}
                    </>
                  ),
                },
                {
                  label: text.customer,
                  cell: (movement) => (
                    <>
                      {movement.handleLabel ?? '—'}
                      {movement.handleValue ? <span class="hint">{movement.handleValue}</span> : null}
                    </>
                  ),
                },
                {
                  label: text.method,
                  cell: (movement) => (
                    <>
                      {text.methods[movement.method]}
                      <span class="hint">
                        {[movement.processor, movement.cardLast4 ? `•••• ${movement.cardLast4}` : null]
                          .filter(Boolean)
                          .join(' · ')}
                      </span>
                    </>
                  ),
                },
                {
                  label: text.amount,
                  num: true,
                  cell: (movement) => (
                    <>
                      <SignedMoney movement={movement} c={c} />
                      {movement.refundedAmount !== '0.00' ? (
                        <span class="hint">
                          {text.refunded}{' '}
                          <Money
                            amount={movement.refundedAmount}
                            currency={movement.currency}
                            lang={c.var.lang}
                          />
                        </span>
                      ) : null}
                    </>
                  ),
                },
                {
                  label: text.status,
                  cell: (movement) => <StatusBadge status={movement.status} text={text} />,
                },
              ]}
            />
          )}
        />
      </>,
    );
  });

  // The export: the API's CSV handed on to the browser as it arrives (any size, never gathered here).
  console.get('/payments/export', async (c) => {
    const filters = queryOf(c, FILTERS);
    const response = await c.var.consoleApi.call({
      method: 'GET',
      path: withQuery('/api/payments', { ...filters, format: 'csv' }),
      accept: 'text/csv',
    });
    if (response.status >= 300) {
      const answer = await callApiOf(response);
      return page(
        c,
        { title: pt(c).title, section: 'payments', status: problemStatus(answer) },
        <>
          <h1>{pt(c).export}</h1>
          <ProblemNotice problem={answer} t={t(c)} />
          <p>
            <a href={withQuery('/console/payments', filters)}>← {pt(c).back}</a>
          </p>
        </>,
      );
    }
    const headers = new Headers({
      'content-type': response.headers.get('content-type') ?? 'text/csv; charset=utf-8',
      'content-disposition':
        response.headers.get('content-disposition') ?? 'attachment; filename="payments.csv"',
    });
    return new Response(response.body, { status: 200, headers });
  });

  const detailPage = async (c: Ctx, problem?: Problem) => {
    const text = pt(c);
    const id = c.req.param('id') ?? '';
    const payment = await read<PaymentDetailsResponse>(c, `/api/payments/${encodeURIComponent(id)}`);
    const tz = c.var.merchantProfile.timezone;
    const lang = c.var.lang;
    const done = c.req.query('done');
    // The refund just made, from the refunds API, until the ledger (written from its events) shows it too.
    const justMade = c.req.query('refund');
    if (justMade && UUID.test(justMade) && !payment.refunds.some((refund) => refund.id === justMade)) {
      const answer = await callApi<RefundResponse>(c, {
        method: 'GET',
        path: `/api/payments/${payment.id}/refunds/${justMade}`,
      });
      if (answer.ok) payment.refunds.push(refundAsMovement(payment, answer.body));
    }
    const left = leftToRefund(payment);
    return page(
      c,
      {
        title: `${text.payment} · ${text.kinds[payment.kind]}`,
        section: 'payments',
        status: problem ? problemStatus(problem) : 200,
      },
      <>
        <p>
          <a href="/console/payments">← {text.back}</a>
        </p>
        <PageHead
          title={
            <>
              {text.kinds[payment.kind]} · <SignedMoney movement={payment} c={c} />
            </>
          }
        >
          <StatusBadge status={payment.status} text={text} testid="payment-status" />
        </PageHead>
        <DoneNotice text={done ? text.refund.done[done] : undefined} />
        <RefundProblem problem={problem} c={c} />
        {refundable(payment) && mayWrite(c.var.consoleUser, 'refunds') ? (
          <div class="actions">
            <a class="button" href={`/console/payments/${payment.id}/refund`} data-testid="refund-new">
              {text.refund.new}
            </a>
          </div>
        ) : null}
        <section class="card" aria-labelledby="h-details">
          <h2 id="h-details">{text.details}</h2>
          <dl class="facts">
            <dt>{text.id}</dt>
            <dd class="mono" data-testid="payment-id">
              {payment.id}
            </dd>
            <dt>{text.method}</dt>
            <dd>
              {text.methods[payment.method]}
              {payment.processor ? ` · ${payment.processor}` : ''}
            </dd>
            {payment.cardLast4 ? (
              <>
                <dt>{text.card}</dt>
                <dd>
                  {payment.cardBrand ?? ''} •••• {payment.cardLast4}
                </dd>
              </>
            ) : null}
            {payment.kind !== 'REFUND' ? (
              <>
                <dt>{text.refunded}</dt>
                <dd data-testid="payment-refunded">
                  <Money amount={payment.refundedAmount} currency={payment.currency} lang={lang} />
                </dd>
                {payment.status === 'succeeded' ? (
                  <>
                    <dt>{text.left}</dt>
                    <dd data-testid="payment-left">
                      <Money amount={left} currency={payment.currency} lang={lang} />
                    </dd>
                  </>
                ) : null}
              </>
            ) : null}
            {payment.processorReference ? (
              <>
                <dt>{text.processorReference}</dt>
                <dd class="mono">{payment.processorReference}</dd>
              </>
            ) : null}
            {payment.reference ? (
              <>
                <dt>{text.reference}</dt>
                <dd class="mono">{payment.reference}</dd>
              </>
            ) : null}
            {payment.paymentId ? (
              <>
                <dt>{text.refundOf}</dt>
                <dd>
                  <a class="mono" href={`/console/payments/${payment.paymentId}`}>
                    {payment.paymentId}
                  </a>
                </dd>
              </>
            ) : null}
            <dt>{text.customer}</dt>
            <dd>
              {payment.handleLabel ?? '—'}
              {payment.handleValue ? <span class="hint">{payment.handleValue}</span> : null}
            </dd>
            <dt>{text.identifiers}</dt>
            <dd>
              {[payment.customIdentifier, payment.customIdentifier2].filter(Boolean).join(' · ') || '—'}
            </dd>
            {payment.payRequestId ? (
              <>
                <dt>{text.link}</dt>
                <dd>
                  <a href={`/console/links/${payment.payRequestId}`}>
                    #{payment.payRequestId}
                    {payment.label ? ` · ${payment.label}` : ''}
                  </a>
                </dd>
              </>
            ) : null}
            {payment.subscriptionId ? (
              <>
                <dt>{text.subscription}</dt>
                <dd>
                  <a href={`/console/subscriptions/${payment.subscriptionId}`}>#{payment.subscriptionId}</a>
                  {payment.installmentNumber ? ` · ${text.installment} ${payment.installmentNumber}` : ''}
                </dd>
              </>
            ) : null}
            {payment.declineCode ? (
              <>
                <dt>{text.decline}</dt>
                <dd>
                  <span class="mono">{payment.declineCode}</span>
                  {payment.declineCategory ? ` · ${payment.declineCategory}` : ''}
                </dd>
              </>
            ) : null}
            <dt>{text.created}</dt>
            <dd>{when(payment.createdAt, tz, lang)}</dd>
            <dt>{text.settled}</dt>
            <dd>{when(payment.settledAt, tz, lang)}</dd>
          </dl>
        </section>
        {payment.kind !== 'REFUND' ? (
          <section class="card" aria-labelledby="h-refunds">
            <h2 id="h-refunds">{text.refunds}</h2>
            {payment.refunds.length === 0 ? (
              <p class="muted">{text.noRefunds}</p>
            ) : (
              <DataTable
                rows={payment.refunds}
                caption={text.refunds}
                row={(refund) => ({
                  'data-testid': 'refund-row',
                  'data-id': refund.id,
                  'data-status': refund.status,
                })}
                columns={[
                  {
                    label: text.created,
                    cell: (refund) => (
                      <a href={`/console/payments/${refund.id}`}>{when(refund.createdAt, tz, lang)}</a>
                    ),
                  },
                  {
                    label: text.method,
                    cell: (refund) => (
                      <>
                        {text.methods[refund.method]}
                        {refund.processor ? <span class="hint">{refund.processor}</span> : null}
                      </>
                    ),
                  },
                  { label: text.reference, cell: (refund) => refund.reference ?? '—' },
                  {
                    label: text.amount,
                    num: true,
                    cell: (refund) => <Money amount={refund.amount} currency={refund.currency} lang={lang} />,
                  },
                  {
                    label: text.status,
                    cell: (refund) => (
                      <StatusBadge status={refund.status} text={text} testid="refund-status" />
                    ),
                  },
                ]}
              />
            )}
          </section>
        ) : null}
      </>,
    );
  };

  const PAYMENT_ID = ':id{[0-9a-fA-F-]{36}}';
  console.get(`/payments/${PAYMENT_ID}`, (c) => detailPage(c));

  /** The refund form (first step), with what was typed and the last refusal. */
  const refundForm = async (c: Ctx, form: Record<string, string>, problem?: Problem) => {
    const text = pt(c);
    const common = t(c);
    const id = c.req.param('id') ?? '';
    const payment = await read<PaymentDetailsResponse>(c, `/api/payments/${encodeURIComponent(id)}`);
    const lang = c.var.lang;
    const left = leftToRefund(payment);
    if (!mayWrite(c.var.consoleUser, 'refunds')) return forbidden(c);
    const card = payment.method === 'CARD';
    const method = form.method ?? (card ? 'CARD' : 'BANK_TRANSFER');
    return page(
      c,
      { title: text.refund.title, section: 'payments', status: problem ? problemStatus(problem) : 200 },
      <>
        <p>
          <a href={`/console/payments/${payment.id}`}>← {text.payment}</a>
        </p>
        <h1>{text.refund.title}</h1>
        <PaymentSummary payment={payment} c={c} left={left} />
        <RefundProblem problem={problem} c={c} />
        <form
          method="post"
          action={`/console/payments/${payment.id}/refund`}
          class="card"
          data-testid="refund-form"
        >
          <FormSecrets csrf={c.var.csrfToken} />
          <input type="hidden" name="step" value="review" />
          <fieldset>
            <legend>{text.refund.how}</legend>
            {card ? (
              <label class="check">
                <input
                  type="radio"
                  name="method"
                  value="CARD"
                  checked={method === 'CARD'}
                  data-testid="refund-method-card"
                />
                <span>
                  {text.refund.byProcessor}
                  <span class="hint">{text.refund.byProcessorHint}</span>
                </span>
              </label>
            ) : null}
            <label class="check">
              <input
                type="radio"
                name="method"
                value="BANK_TRANSFER"
                checked={method === 'BANK_TRANSFER'}
                data-testid="refund-method-transfer"
              />
              <span>
                {text.refund.outsideTransfer}
                <span class="hint">{text.refund.outsideHint}</span>
              </span>
            </label>
            <label class="check">
              <input
                type="radio"
                name="method"
                value="CASH"
                checked={method === 'CASH'}
                data-testid="refund-method-cash"
              />
              <span>{text.refund.outsideCash}</span>
            </label>
          </fieldset>
          <Field
            label={text.amount}
            name="amount"
            inputmode="decimal"
            value={form.amount ?? amountForInput(left, payment.currency)}
            hint={text.refund.amountHint(formatMoneyText(left, payment.currency, lang))}
            testid="refund-amount"
            required
          />
          <Field
            label={text.refund.reference}
            name="reference"
            value={form.reference}
            hint={text.refund.referenceHint}
            testid="refund-reference"
          />
          <Field label={text.refund.reason} name="reason" value={form.reason} testid="refund-reason" />
          <div class="actions">
            <button type="submit" data-testid="refund-review">
              {text.refund.review}
            </button>
            <a href={`/console/payments/${payment.id}`}>{common.cancel}</a>
          </div>
        </form>
      </>,
    );
  };

  /** The confirmation step: what will be asked, the same form's key carried on, one button to confirm. */
  const reviewPage = async (c: Ctx, form: Record<string, string>) => {
    const text = pt(c);
    const id = c.req.param('id') ?? '';
    const payment = await read<PaymentDetailsResponse>(c, `/api/payments/${encodeURIComponent(id)}`);
    const lang = c.var.lang;
    if (!mayWrite(c.var.consoleUser, 'refunds')) return forbidden(c);
    const method = form.method === 'BANK_TRANSFER' || form.method === 'CASH' ? form.method : 'CARD';
    const amount = form.amount?.trim() ?? '';
    return page(
      c,
      { title: text.refund.reviewTitle, section: 'payments' },
      <>
        <h1>{text.refund.reviewTitle}</h1>
        <PaymentSummary payment={payment} c={c} left={leftToRefund(payment)} />
        <form
          method="post"
          action={`/console/payments/${payment.id}/refund`}
          class="card"
          data-testid="refund-review-form"
        >
          <input type="hidden" name="csrf" value={c.var.csrfToken} />
          <input type="hidden" name="idem" value={form.idem ?? ''} />
          <input type="hidden" name="confirm" value="yes" />
          <input type="hidden" name="method" value={method} />
          <input type="hidden" name="amount" value={amount} />
          <input type="hidden" name="reference" value={form.reference ?? ''} />
          <input type="hidden" name="reason" value={form.reason ?? ''} />
          <p>{text.refund.reviewHint}</p>
          <dl class="facts">
            <dt>{text.refund.how}</dt>
            <dd>
              {method === 'CARD'
                ? `${text.refund.byProcessor} (${payment.processor ?? ''})`
                : method === 'CASH'
                  ? text.refund.outsideCash
                  : text.refund.outsideTransfer}
            </dd>
            <dt>{text.amount}</dt>
            <dd data-testid="refund-review-amount">{safeMoneyText(amount, payment.currency, lang)}</dd>
            {form.reference ? (
              <>
                <dt>{text.refund.reference}</dt>
                <dd class="mono">{form.reference}</dd>
              </>
            ) : null}
            {form.reason ? (
              <>
                <dt>{text.refund.reason}</dt>
                <dd>{form.reason}</dd>
              </>
            ) : null}
          </dl>
          <div class="actions">
            <button type="submit" class="danger" data-testid="refund-confirm">
              {text.refund.confirm}
            </button>
          </div>
        </form>
        <form method="post" action={`/console/payments/${payment.id}/refund`}>
          <input type="hidden" name="csrf" value={c.var.csrfToken} />
          <input type="hidden" name="step" value="edit" />
          <input type="hidden" name="method" value={method} />
          <input type="hidden" name="amount" value={amount} />
          <input type="hidden" name="reference" value={form.reference ?? ''} />
          <input type="hidden" name="reason" value={form.reason ?? ''} />
          <button type="submit" class="secondary" data-testid="refund-edit">
            {text.refund.edit}
          </button>
        </form>
      </>,
    );
  };

  console.get(`/payments/${PAYMENT_ID}/refund`, (c) => refundForm(c, {}));

  console.post(`/payments/${PAYMENT_ID}/refund`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    if (form.step === 'review') return reviewPage(c, form);
    if (form.step === 'edit') return refundForm(c, form);
    // Only the confirmation page sends `confirm=yes`; a form without it is the first step's form again.
    if (!confirmed(form)) return refundForm(c, form, confirmationProblem(c));
    // Confirmed: the API decides (the role's permission, what is left, what the processor can do). The
    // form's key makes a second submit (a reload, a double click) answer the same refund, never a second.
    const method = form.method === 'BANK_TRANSFER' || form.method === 'CASH' ? form.method : 'CARD';
    const amount = form.amount?.trim();
    const body: Record<string, unknown> = { method };
    if (amount) body.amount = amount;
    if (method !== 'CARD' && form.reference?.trim()) body.reference = form.reference.trim();
    if (form.reason?.trim()) body.reason = form.reason.trim();
    const answer = await callApi<RefundResponse>(c, {
      method: 'POST',
      path: `/api/payments/${id}/refunds`,
      body,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) {
      if (answer.status === 403) return forbidden(c, answer.problem);
      return refundForm(c, form, answer.problem);
    }
    return c.redirect(
      withQuery(`/console/payments/${id}`, { done: answer.body.status, refund: answer.body.id }),
      303,
    );
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A refund as the refunds API answers it, shown as a row of the payment's refunds. */
function refundAsMovement(payment: PaymentDetailsResponse, refund: RefundResponse): PaymentMovement {
  return {
    ...payment,
    id: refund.id,
    kind: 'REFUND',
    status: refund.status,
    method: refund.method,
    processor: refund.processor,
    amount: refund.amount,
    currency: refund.currency,
    refundedAmount: '0.00',
    reference: refund.reference,
    paymentId: payment.id,
    declineCode: null,
    declineCategory: null,
    createdAt: refund.createdAt,
    settledAt: refund.succeededAt ?? refund.failedAt,
  };
}

/** The payment a refund form is about. */
function PaymentSummary(props: { payment: PaymentDetailsResponse; c: Ctx; left: string }) {
  const text = pt(props.c);
  const lang = props.c.var.lang;
  const payment = props.payment;
  return (
    <dl class="facts card">
      <dt>{text.payment}</dt>
      <dd>
        {text.kinds[payment.kind]} · {text.methods[payment.method]}
        {payment.processor ? ` · ${payment.processor}` : ''}
        {payment.handleLabel ? ` · ${payment.handleLabel}` : ''}
      </dd>
      <dt>{text.amount}</dt>
      <dd>
        <Money amount={payment.amount} currency={payment.currency} lang={lang} />
      </dd>
      <dt>{text.left}</dt>
      <dd>
        <Money amount={props.left} currency={payment.currency} lang={lang} />
      </dd>
    </dl>
  );
}

function forbidden(c: Ctx, problem?: Problem): Response {
  const text = pt(c);
  return page(
    c,
    { title: t(c).problems.forbidden, section: 'payments', status: 403 },
    <>
      <h1>{t(c).problems.forbidden}</h1>
      <div
        class="notice error"
        role="alert"
        data-testid="form-problem"
        data-code={problem?.code ?? 'FORBIDDEN'}
      >
        {text.refund.notAllowed}
      </div>
      <p>
        <a href="/console/payments">← {text.back}</a>
      </p>
    </>,
  );
}

function formatMoneyText(amount: string, currency: string, lang: 'es' | 'en'): string {
  return formatMoney(amount, currency, lang);
}

/** A typed amount shown back as money where it is one, else as typed (the API will name the problem). */
function safeMoneyText(amount: string, currency: string, lang: 'es' | 'en') {
  try {
    parseAmount(amount);
  } catch {
    return <span class="mono">{amount || '—'}</span>;
  }
  return <Money amount={amount} currency={currency} lang={lang} />;
}

async function callApiOf(response: Response): Promise<Problem> {
  const text = await response.text();
  let body: Partial<Problem> = {};
  try {
    body = JSON.parse(text) as Partial<Problem>;
  } catch {
    body = {};
  }
  return {
    status: response.status,
    code: body.code ?? `HTTP_${response.status}`,
    detail: body.detail ?? text.slice(0, 300),
    errors: Array.isArray(body.errors) ? body.errors : [],
  };
}
