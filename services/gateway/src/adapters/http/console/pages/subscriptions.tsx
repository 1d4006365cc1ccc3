/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PaymentLinkDetails } from '@payrail/contracts';
import type { Hono } from 'hono';
import {
  ActionButton,
  Badge,
  type ConsoleEnv,
  type Ctx,
  callApi,
  confirmationProblem,
  confirmed,
  DoneNotice,
  day,
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
  read,
  t,
  type Tone,
  todayIn,
  when,
  withQuery,
} from './kit';
import { DataTable, FilterForm, FilterSelect, ListAnswer, readListPage, choices } from './list-page';
import { mayWrite } from './permissions';

type SubscriptionStatus = 'pending' | 'active' | 'past_due' | 'completed' | 'cancelled';
type InstallmentStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'cancelled';

interface SubscriptionView {
  id: number;
  payRequestId: number;
  type: 'STATIC' | 'DYNAMIC';
  status: SubscriptionStatus;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  currency: string;
  firstAmount: string;
  installmentAmount: string | null;
  totalPeriods: number | null;
  dayOfMonth: number | null;
  monthForSecondInstallment: number | null;
  createTime: string;
  activateTime: string | null;
  endTime: string | null;
}
interface InstallmentView {
  installmentId: number;
  number: number;
  paymentDate: string;
  amount: string;
  status: InstallmentStatus;
  invoiceNumber: string | null;
}
interface Attempt {
  attempt: number;
  requested_at: string;
  amount: number;
  currency: string;
  processor: string | null;
  status: 'requested' | 'succeeded' | 'failed';
  settled_at: string | null;
  decline_code: string | null;
  category: string | null;
  next_attempt_on: string | null;
}
interface Attempts {
  installment_id: number;
  status: InstallmentStatus;
  next_attempt_on: string | null;
  attempts: Attempt[];
}

const SUBSCRIPTION_TONE: Record<SubscriptionStatus, Tone> = {
  pending: 'info',
  active: 'good',
  past_due: 'bad',
  completed: undefined,
  cancelled: undefined,
};
const INSTALLMENT_TONE: Record<InstallmentStatus, Tone> = {
  pending: 'info',
  processing: 'warn',
  paid: 'good',
  failed: 'bad',
  cancelled: undefined,
};

const FILTERS = ['status', 'customIdentifier', 'customIdentifier2', 'payRequestId'] as const;

/** The link of each subscription (its customer), read in parallel for one page of the list. */
async function linksOf(c: Ctx, ids: number[]): Promise<Map<number, PaymentLinkDetails>> {
  const answers = await Promise.all(
    [...new Set(ids)].map((id) =>
      callApi<PaymentLinkDetails>(c, { method: 'GET', path: `/api/payrequests/${id}` }),
    ),
  );
  const found = new Map<number, PaymentLinkDetails>();
  for (const answer of answers) if (answer.ok) found.set(answer.body.id, answer.body);
  return found;
}

export function subscriptionsPages(console: Hono<ConsoleEnv>) {
  console.get('/subscriptions', async (c) => {
    const text = t(c);
    const { filters, cursor, answer } = await readListPage<
      { subscriptions: SubscriptionView[]; nextCursor: string | null },
      (typeof FILTERS)[number]
    >(c, '/api/subscriptions', FILTERS, 20);
    const links = answer.ok
      ? await linksOf(
          c,
          answer.body.subscriptions.map((s) => s.payRequestId),
        )
      : new Map<number, PaymentLinkDetails>();
    return page(
      c,
      {
        title: text.nav.subscriptions,
        section: 'subscriptions',
        status: answer.ok ? 200 : problemStatus(answer.problem),
      },
      <>
        <h1>{text.subscriptions.title}</h1>
        <FilterForm action="/console/subscriptions" t={text}>
          <FilterSelect
            label={text.subscriptions.status}
            name="status"
            value={filters.status}
            all={text.all}
            options={choices(
              ['pending', 'active', 'past_due', 'completed', 'cancelled'] as const,
              text.subscriptionStatus,
            )}
          />
          <Field
            label={text.fields.customIdentifier}
            name="customIdentifier"
            value={filters.customIdentifier}
          />
          <Field
            label={text.fields.customIdentifier2}
            name="customIdentifier2"
            value={filters.customIdentifier2}
          />
          <Field
            label={text.subscriptions.linkId}
            name="payRequestId"
            type="number"
            min={1}
            value={filters.payRequestId}
          />
        </FilterForm>
        <ListAnswer
          answer={answer}
          t={text}
          labels={text.fields}
          pager={{ path: '/console/subscriptions', filters, cursor }}
          list={(body) => (
            <DataTable
              rows={body.subscriptions}
              empty={text.subscriptions.none}
              caption={text.subscriptions.title}
              row={(subscription) => ({
                'data-testid': 'subscription-row',
                'data-id': String(subscription.id),
              })}
              columns={[
                {
                  label: text.subscriptions.id,
                  cell: (subscription) => (
                    <>
                      <a href={`/console/subscriptions/${subscription.id}`}>#{subscription.id}</a>
                      <span class="hint">{links.get(subscription.payRequestId)?.label ?? ''}</span>
                    </>
                  ),
                },
                {
                  label: text.links.customer,
                  cell: (subscription) => {
                    const link = links.get(subscription.payRequestId);
                    return link ? (
                      <>
                        {link.handleLabel}
                        <span class="hint">{link.handleValue}</span>
                      </>
                    ) : (
                      '—'
                    );
                  },
                },
                {
                  label: text.links.identifiers,
                  cell: (subscription) =>
                    [subscription.customIdentifier, subscription.customIdentifier2]
                      .filter(Boolean)
                      .join(' · ') || '—',
                },
                {
                  label: text.subscriptions.plan,
                  cell: (subscription) => <PlanSummary subscription={subscription} c={c} />,
                },
                {
                  label: text.subscriptions.status,
                  cell: (subscription) => (
                    <Badge
                      tone={SUBSCRIPTION_TONE[subscription.status]}
                      status={subscription.status}
                      testid="subscription-status"
                    >
                      {text.subscriptionStatus[subscription.status]}
                    </Badge>
                  ),
                },
                {
                  label: text.links.created,
                  cell: (subscription) =>
                    when(subscription.createTime, c.var.merchantProfile.timezone, c.var.lang),
                },
              ]}
            />
          )}
        />
      </>,
    );
  });

  console.get('/subscriptions/:id{[0-9]+}', (c) => subscriptionPage(c));

  // Each action: the API call, then back to the subscription (303) saying what was done, or the page
  // again with the refusal.
  const act = (
    path: string,
    request: (
      form: Record<string, string>,
      subscription: { id: string; payRequestId: number; installment: string },
    ) => {
      method: string;
      path: string;
      body?: unknown;
    },
    done: string,
    refused: (c: Ctx, problem: Problem, form: Record<string, string>) => Promise<Response> = subscriptionPage,
  ) =>
    console.post(path, async (c) => {
      const form = await formOf(c);
      const id = c.req.param('id') ?? '';
      const subscription = await read<SubscriptionView & { installments: InstallmentView[] }>(
        c,
        `/api/subscriptions/${id}`,
      );
      if (path.endsWith('/cancel-all') && !confirmed(form)) return refused(c, confirmationProblem(c), form);
      const installment = c.req.param('installment') ?? '';
      if (installment && !subscription.installments.some((one) => String(one.installmentId) === installment))
        throw new NotFoundInstallment();
      const call = request(form, { id, payRequestId: subscription.payRequestId, installment });
      const answer = await callApi(c, { ...call, idempotencyKey: idempotencyKeyOf(form) });
      if (!answer.ok) return refused(c, answer.problem, form);
      return c.redirect(`/console/subscriptions/${id}?done=${done}`, 303);
    });

  const numberOr = (value: string | undefined) =>
    value && /^\d{1,9}$/.test(value.trim()) ? Number(value) : value;
  const blankless = (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined && value !== ''));

  act(
    '/subscriptions/:id{[0-9]+}/installments/:installment{[0-9]+}/modify',
    (form, { installment }) => ({
      method: 'PATCH',
      path: `/api/subscriptions/installments/${installment}`,
      body: blankless({ amount: form.amount?.trim(), payment_date: form.payment_date?.trim() }),
    }),
    'modified',
    installmentPage,
  );
  act(
    '/subscriptions/:id{[0-9]+}/installments/:installment{[0-9]+}/cancel',
    (_form, { installment }) => ({
      method: 'POST',
      path: `/api/subscriptions/installments/${installment}/cancel`,
    }),
    'installment-cancelled',
  );
  act(
    '/subscriptions/:id{[0-9]+}/installments/:installment{[0-9]+}/transfer',
    (form, { installment }) => ({
      method: 'POST',
      path: '/api/bank-notification/add',
      body: blankless({
        installmentId: Number(installment),
        amount: form.amount?.trim(),
        bankName: form.bankName,
        reference: form.reference,
        transferDate: form.transferDate,
        note: form.note?.trim() || undefined,
      }),
    }),
    'transfer',
    installmentPage,
  );
  act(
    '/subscriptions/:id{[0-9]+}/modify-all',
    (form, subscription) => ({
      method: 'PUT',
      path: '/api/subscriptions/modify-all',
      body: { payRequestId: subscription.payRequestId, newAmount: form.newAmount?.trim() },
    }),
    'modified-all',
  );
  act(
    '/subscriptions/:id{[0-9]+}/modify-dates',
    (form, subscription) => ({
      method: 'PUT',
      path: '/api/subscriptions/modify-dates',
      body: { payRequestId: subscription.payRequestId, dayOfMonth: numberOr(form.dayOfMonth) },
    }),
    'day-changed',
  );
  act(
    '/subscriptions/:id{[0-9]+}/add-installments',
    (form, subscription) => ({
      method: 'POST',
      path: '/api/subscriptions/installments',
      body: {
        pay_request_id: subscription.payRequestId,
        installments: [
          blankless({
            payment_date: form.payment_date,
            amount: form.amount?.trim(),
            invoice_number: form.invoice_number?.trim(),
          }),
        ],
      },
    }),
    'added',
  );
  act(
    '/subscriptions/:id{[0-9]+}/cancel-all',
    (_form, subscription) => ({
      method: 'POST',
      path: '/api/subscriptions/cancel-all',
      body: { payRequestId: subscription.payRequestId },
    }),
    'cancelled',
  );

  console.get('/subscriptions/:id{[0-9]+}/installments/:installment{[0-9]+}', (c) => installmentPage(c));
}

function PlanSummary(props: { subscription: SubscriptionView; c: Ctx }) {
  const text = t(props.c);
  const s = props.subscription;
  const lang = props.c.var.lang;
  if (s.type === 'DYNAMIC') return <span>{text.subscriptions.dynamicPlan}</span>;
  return (
    <span>
      <Money amount={s.installmentAmount} currency={s.currency} lang={lang} /> ×{' '}
      {s.totalPeriods === null ? '∞' : s.totalPeriods - 1} · {text.subscriptions.dayShort} {s.dayOfMonth}
    </span>
  );
}

/** Where an installment stands in the automatic debit: its attempts, or the last one and the retry. */
interface AttemptsOf {
  count: number | null;
  last: Attempt | null;
  nextAttemptOn: string | null;
}

/**
 * The attempts of each installment, for the schedule: one call for the pending ones (their last attempt and
 * retry day), and the attempts of each one charged or being charged (from the 2nd on: the 1st is the link's).
 */
async function attemptsOfSchedule(
  c: Ctx,
  subscription: SubscriptionView & { installments: InstallmentView[] },
): Promise<Map<number, AttemptsOf>> {
  const found = new Map<number, AttemptsOf>();
  const charged = subscription.installments.filter(
    (installment) => installment.number > 1 && ['processing', 'paid', 'failed'].includes(installment.status),
  );
  const open = ['pending', 'active', 'past_due'].includes(subscription.status);
  const [pending, ...each] = await Promise.all([
    open
      ? callApi<{
          installments: Array<{
            installment_id: number;
            last_attempt: Attempt | null;
            next_attempt_on: string | null;
          }>;
        }>(c, {
          method: 'GET',
          path: withQuery('/api/subscriptions/installments', { pay_request_id: subscription.payRequestId }),
        })
      : Promise.resolve(undefined),
    ...charged.map((installment) =>
      callApi<Attempts>(c, {
        method: 'GET',
        path: `/api/subscriptions/installments/${installment.installmentId}/attempts`,
      }),
    ),
  ]);
  if (pending?.ok) {
    for (const installment of pending.body.installments) {
      if (installment.last_attempt)
        found.set(installment.installment_id, {
          count: null,
          last: installment.last_attempt,
          nextAttemptOn: installment.next_attempt_on,
        });
    }
  }
  for (const answer of each) {
    if (!answer.ok || answer.body.attempts.length === 0) continue;
    found.set(answer.body.installment_id, {
      count: answer.body.attempts.length,
      last: answer.body.attempts.at(-1) ?? null,
      nextAttemptOn: answer.body.next_attempt_on,
    });
  }
  return found;
}

async function subscriptionPage(c: Ctx, problem?: Problem, form: Record<string, string> = {}) {
  const text = t(c);
  const lang = c.var.lang;
  const id = c.req.param('id') ?? '';
  const subscription = await read<SubscriptionView & { installments: InstallmentView[] }>(
    c,
    `/api/subscriptions/${id}`,
  );
  const tz = c.var.merchantProfile.timezone;
  const today = todayIn(tz, new Date());
  const [link, attemptsOf] = await Promise.all([
    callApi<PaymentLinkDetails>(c, { method: 'GET', path: `/api/payrequests/${subscription.payRequestId}` }),
    attemptsOfSchedule(c, subscription),
  ]);
  const open =
    subscription.status === 'active' ||
    subscription.status === 'past_due' ||
    subscription.status === 'pending';
  const canChange = open && mayWrite(c.var.consoleUser, 'subscriptions');
  const done = c.req.query('done') as keyof typeof text.subscriptions.done | undefined;
  const csrf = c.var.csrfToken;
  const base = `/console/subscriptions/${subscription.id}`;
  return page(
    c,
    {
      title: `${text.subscriptions.subscription} #${subscription.id}`,
      section: 'subscriptions',
      status: problem ? problemStatus(problem) : 200,
    },
    <>
      <p>
        <a href="/console/subscriptions">← {text.subscriptions.title}</a>
      </p>
      <PageHead
        title={
          <>
            {text.subscriptions.subscription} #{subscription.id}
            {link.ok ? ` · ${link.body.label}` : ''}
          </>
        }
      >
        <Badge
          tone={SUBSCRIPTION_TONE[subscription.status]}
          status={subscription.status}
          testid="subscription-status"
        >
          {text.subscriptionStatus[subscription.status]}
        </Badge>
      </PageHead>
      <DoneNotice text={done ? text.subscriptions.done[done] : undefined} />
      <ProblemNotice problem={problem} t={text} labels={text.fields} />
      <section class="card" aria-labelledby="h-terms">
        <h2 id="h-terms">{text.subscriptions.terms}</h2>
        <dl class="facts">
          <dt>{text.links.customer}</dt>
          <dd>{link.ok ? `${link.body.handleLabel} · ${link.body.handleValue}` : '—'}</dd>
          <dt>{text.links.identifiers}</dt>
          <dd>
            {[subscription.customIdentifier, subscription.customIdentifier2].filter(Boolean).join(' · ') ||
              '—'}
          </dd>
          <dt>{text.subscriptions.link}</dt>
          <dd>
            <a href={`/console/links/${subscription.payRequestId}`}>#{subscription.payRequestId}</a>
          </dd>
          <dt>{text.fields.recurrentPaymentType}</dt>
          <dd>{subscription.type === 'STATIC' ? text.links.static : text.links.dynamic}</dd>
          <dt>{text.subscriptions.firstAmount}</dt>
          <dd>
            <Money amount={subscription.firstAmount} currency={subscription.currency} lang={lang} />
          </dd>
          {subscription.type === 'STATIC' ? (
            <>
              <dt>{text.fields.installmentAmount}</dt>
              <dd>
                <Money amount={subscription.installmentAmount} currency={subscription.currency} lang={lang} />
              </dd>
              <dt>{text.fields.totalPeriods}</dt>
              <dd>{subscription.totalPeriods ?? text.links.openEnded}</dd>
              <dt>{text.fields.dayOfMonth}</dt>
              <dd>{subscription.dayOfMonth}</dd>
            </>
          ) : null}
          <dt>{text.links.created}</dt>
          <dd>{when(subscription.createTime, tz, c.var.lang)}</dd>
          <dt>{text.subscriptions.activated}</dt>
          <dd>{when(subscription.activateTime, tz, c.var.lang)}</dd>
          {subscription.endTime ? (
            <>
              <dt>{text.subscriptions.ended}</dt>
              <dd>{when(subscription.endTime, tz, c.var.lang)}</dd>
            </>
          ) : null}
        </dl>
      </section>
      <section aria-labelledby="h-schedule">
        <h2 id="h-schedule">{text.subscriptions.schedule}</h2>
        <DataTable
          rows={subscription.installments}
          caption={text.subscriptions.scheduleCaption}
          captionClass="muted"
          row={(installment) => ({
            'data-testid': 'installment-row',
            'data-id': String(installment.installmentId),
            'data-status': installment.status,
          })}
          columns={[
            {
              label: text.subscriptions.number,
              cell: (installment) => (
                <>
                  {installment.number}
                  {installment.invoiceNumber ? <span class="hint">{installment.invoiceNumber}</span> : null}
                </>
              ),
            },
            { label: text.subscriptions.date, cell: (installment) => day(installment.paymentDate, lang) },
            {
              label: text.fields.amount,
              num: true,
              cell: (installment) => (
                <Money amount={installment.amount} currency={subscription.currency} lang={lang} />
              ),
            },
            {
              label: text.subscriptions.status,
              cell: (installment) => (
                <Badge tone={INSTALLMENT_TONE[installment.status]} status={installment.status}>
                  {text.installmentStatus[installment.status]}
                </Badge>
              ),
            },
            {
              label: text.subscriptions.attempts,
              cell: (installment) => (
                <AttemptsSummary attempts={attemptsOf.get(installment.installmentId)} c={c} />
              ),
            },
            {
              label: text.subscriptions.actions,
              cell: (installment) => {
                const changeable = canChange && installment.status === 'pending' && installment.number > 1;
                return (
                  <div class="actions">
                    <a
                      href={`${base}/installments/${installment.installmentId}`}
                      data-testid="installment-open"
                    >
                      {changeable ? text.subscriptions.change : text.subscriptions.view}
                    </a>
                    {changeable ? (
                      <ActionButton
                        action={`${base}/installments/${installment.installmentId}/cancel`}
                        csrf={csrf}
                        label={text.subscriptions.cancelOne}
                        small
                        tone="secondary"
                        testid="installment-cancel"
                        hidden={{ installmentId: String(installment.installmentId) }}
                      />
                    ) : null}
                  </div>
                );
              },
            },
          ]}
        />
      </section>
      {canChange ? (
        <section class="card" aria-labelledby="h-all">
          <h2 id="h-all">{text.subscriptions.changeAll}</h2>
          <div class="grid2">
            {subscription.type === 'STATIC' ? (
              <form method="post" action={`${base}/modify-all`} data-testid="modify-all-form">
                <FormSecrets csrf={csrf} />
                <Field
                  label={text.subscriptions.newAmount}
                  name="newAmount"
                  inputmode="decimal"
                  value={form.newAmount}
                  required
                  hint={text.subscriptions.newAmountHint}
                />
                <button type="submit" class="secondary">
                  {text.subscriptions.modifyAll}
                </button>
              </form>
            ) : null}
            <form method="post" action={`${base}/modify-dates`} data-testid="modify-dates-form">
              <FormSecrets csrf={csrf} />
              <Field
                label={text.fields.dayOfMonth}
                name="dayOfMonth"
                type="number"
                min={1}
                max={28}
                value={form.dayOfMonth ?? subscription.dayOfMonth}
                required
                hint={text.subscriptions.dayHint}
              />
              <button type="submit" class="secondary">
                {text.subscriptions.changeDay}
              </button>
            </form>
          </div>
          {subscription.type === 'DYNAMIC' && subscription.status !== 'pending' ? (
            <form method="post" action={`${base}/add-installments`} data-testid="add-installments-form">
              <FormSecrets csrf={csrf} />
              <h3>{text.subscriptions.addInstallment}</h3>
              <div class="grid2">
                <Field
                  label={text.subscriptions.date}
                  name="payment_date"
                  type="date"
                  min={today}
                  value={form.payment_date}
                  required
                />
                <Field
                  label={text.fields.amount}
                  name="amount"
                  inputmode="decimal"
                  value={form.amount}
                  required
                />
                <Field
                  label={text.subscriptions.invoice}
                  name="invoice_number"
                  value={form.invoice_number}
                  required
                />
              </div>
              <button type="submit" class="secondary">
                {text.subscriptions.add}
              </button>
            </form>
          ) : null}
          <h3>{text.subscriptions.cancelAllTitle}</h3>
          <p>{text.subscriptions.cancelAllHint}</p>
          <ActionButton
            action={`${base}/cancel-all`}
            csrf={csrf}
            label={text.subscriptions.cancelAll}
            tone="danger"
            testid="subscription-cancel-all"
            confirm={text.subscriptions.cancelAllConfirm}
          />
        </section>
      ) : null}
    </>,
  );
}

function AttemptsSummary(props: { attempts: AttemptsOf | undefined; c: Ctx }) {
  const text = t(props.c);
  const found = props.attempts;
  if (!found?.last) return <span class="muted">—</span>;
  const last = found.last;
  return (
    <span
      data-testid="installment-attempts"
      data-count={found.count === null ? undefined : String(found.count)}
    >
      {found.count === null ? text.subscriptions.lastAttempt : text.subscriptions.attemptCount(found.count)}
      <span class="hint">
        {text.attemptStatus[last.status]}
        {last.decline_code ? ` (${last.decline_code})` : ''}
        {found.nextAttemptOn
          ? ` · ${text.subscriptions.retryOn} ${day(found.nextAttemptOn, props.c.var.lang)}`
          : ''}
      </span>
    </span>
  );
}

async function installmentPage(c: Ctx, problem?: Problem, form: Record<string, string> = {}) {
  const text = t(c);
  const lang = c.var.lang;
  const id = c.req.param('id') ?? '';
  const installmentId = Number(c.req.param('installment'));
  const subscription = await read<SubscriptionView & { installments: InstallmentView[] }>(
    c,
    `/api/subscriptions/${id}`,
  );
  const installment = subscription.installments.find(
    (candidate) => candidate.installmentId === installmentId,
  );
  if (!installment) throw new NotFoundInstallment();
  const attempts = await callApi<Attempts>(c, {
    method: 'GET',
    path: `/api/subscriptions/installments/${installmentId}/attempts`,
  });
  const tz = c.var.merchantProfile.timezone;
  const today = todayIn(tz, new Date());
  const open =
    subscription.status === 'active' ||
    subscription.status === 'past_due' ||
    subscription.status === 'pending';
  const changeable = open && installment.status === 'pending' && installment.number > 1;
  const base = `/console/subscriptions/${subscription.id}/installments/${installmentId}`;
  const csrf = c.var.csrfToken;
  return page(
    c,
    {
      title: `${text.subscriptions.installment} ${installment.number}`,
      section: 'subscriptions',
      status: problem ? problemStatus(problem) : 200,
    },
    <>
      <p>
        <a href={`/console/subscriptions/${subscription.id}`}>
          ← {text.subscriptions.subscription} #{subscription.id}
        </a>
      </p>
      <PageHead
        title={
          <>
            {text.subscriptions.installment} {installment.number} · {day(installment.paymentDate, lang)}
          </>
        }
      >
        <Badge
          tone={INSTALLMENT_TONE[installment.status]}
          status={installment.status}
          testid="installment-status"
        >
          {text.installmentStatus[installment.status]}
        </Badge>
      </PageHead>
      <ProblemNotice problem={problem} t={text} labels={text.fields} />
      <section class="card" aria-labelledby="h-attempts">
        <h2 id="h-attempts">{text.subscriptions.attempts}</h2>
        {attempts.ok && attempts.body.attempts.length > 0 ? (
          <DataTable
            rows={attempts.body.attempts}
            row={(attempt) => ({ 'data-testid': 'attempt-row', 'data-status': attempt.status })}
            columns={[
              { label: '#', cell: (attempt) => attempt.attempt },
              {
                label: text.subscriptions.requested,
                cell: (attempt) => when(attempt.requested_at, tz, c.var.lang),
              },
              {
                label: text.fields.amount,
                num: true,
                cell: (attempt) => <Money amount={attempt.amount} currency={attempt.currency} lang={lang} />,
              },
              {
                label: text.subscriptions.processor,
                cell: (attempt) =>
                  attempt.processor
                    ? (text.processors[attempt.processor as 'PARAGUAY.PROCESSOR_A'] ?? attempt.processor)
                    : '—',
              },
              {
                label: text.subscriptions.outcome,
                cell: (attempt) => (
                  <>
                    {text.attemptStatus[attempt.status]}
                    {attempt.decline_code ? ` · ${attempt.decline_code}` : ''}
                    {attempt.category ? (
                      <span class="hint">
                        {text.declineCategory[attempt.category as 'soft'] ?? attempt.category}
                      </span>
                    ) : null}
                  </>
                ),
              },
              {
                label: text.subscriptions.nextAttempt,
                cell: (attempt) => day(attempt.next_attempt_on, lang),
              },
            ]}
          />
        ) : (
          <p class="muted">{text.subscriptions.noAttempts}</p>
        )}
      </section>
      {changeable && mayWrite(c.var.consoleUser, 'subscriptions') ? (
        <section class="card" aria-labelledby="h-modify">
          <h2 id="h-modify">{text.subscriptions.modifyOne}</h2>
          <form method="post" action={`${base}/modify`} data-testid="installment-modify-form">
            <FormSecrets csrf={csrf} />
            <input type="hidden" name="installmentId" value={String(installmentId)} />
            <div class="grid2">
              <Field
                label={text.fields.amount}
                name="amount"
                inputmode="decimal"
                value={form.amount ?? installment.amount}
              />
              <Field
                label={text.subscriptions.date}
                name="payment_date"
                type="date"
                min={today}
                value={form.payment_date ?? installment.paymentDate}
              />
            </div>
            <button type="submit">{text.save}</button>
          </form>
          <h3>{text.subscriptions.cancelOneTitle}</h3>
          <p>{text.subscriptions.cancelOneHint}</p>
          <ActionButton
            action={`${base}/cancel`}
            csrf={csrf}
            label={text.subscriptions.cancelOne}
            tone="danger"
            testid="installment-cancel"
            hidden={{ installmentId: String(installmentId) }}
          />
        </section>
      ) : null}
      {changeable && installment.paymentDate && mayWrite(c.var.consoleUser, 'transfers') ? (
        <section class="card" aria-labelledby="h-transfer">
          <h2 id="h-transfer">{text.subscriptions.transferTitle}</h2>
          <p>{text.subscriptions.transferHint}</p>
          <form method="post" action={`${base}/transfer`} data-testid="transfer-form">
            <FormSecrets csrf={csrf} />
            <input type="hidden" name="installmentId" value={String(installmentId)} />
            <div class="grid2">
              <Field
                label={text.fields.amount}
                name="amount"
                inputmode="decimal"
                value={form.amount ?? installment.amount}
                required
              />
              <Field
                label={text.subscriptions.transferDate}
                name="transferDate"
                type="date"
                max={today}
                value={form.transferDate ?? today}
                required
              />
              <Field label={text.subscriptions.bankName} name="bankName" value={form.bankName} required />
              <Field label={text.subscriptions.reference} name="reference" value={form.reference} required />
            </div>
            <Field label={text.subscriptions.note} name="note" value={form.note} hint={text.optional} />
            <button type="submit">{text.subscriptions.registerTransfer}</button>
          </form>
        </section>
      ) : null}
    </>,
  );
}

/** An installment id that is not one of this subscription's: the page is 404. */
export class NotFoundInstallment extends Error {}
