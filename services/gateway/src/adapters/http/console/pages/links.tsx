/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PaymentLinkDetails } from '@payrail/contracts';
import type { Hono } from 'hono';
import {
  ActionButton,
  Badge,
  type ConsoleEnv,
  type Ctx,
  DoneNotice,
  Field,
  FormSecrets,
  formOf,
  callApi,
  confirmationProblem,
  confirmed,
  idempotencyKeyOf,
  Money,
  type Problem,
  ProblemNotice,
  PageHead,
  page,
  problemStatus,
  read,
  Select,
  t,
  type Tone,
  when,
  withQuery,
} from './kit';
import { DataTable, FilterForm, FilterSelect, ListAnswer, readListPage, choices } from './list-page';
import { mayWrite } from './permissions';
import { QrCode } from './qr';

const STATUS_OF_ID: Record<number, 'pending' | 'rejected' | 'expired' | 'cancelled' | 'paid'> = {
  1: 'pending',
  5: 'rejected',
  6: 'expired',
  7: 'cancelled',
  200: 'paid',
};
const TONE: Record<string, Tone> = {
  paid: 'good',
  rejected: 'bad',
  pending: 'info',
  expired: undefined,
  cancelled: undefined,
};

export function LinkStatusBadge(props: { statusId: number; c: Ctx; testid?: string }) {
  const status = STATUS_OF_ID[props.statusId] ?? 'pending';
  return (
    <Badge tone={TONE[status]} testid={props.testid ?? 'link-status'} status={status}>
      {t(props.c).linkStatus[status]}
    </Badge>
  );
}

const FILTERS = ['status', 'q', 'customIdentifier', 'createdFrom', 'createdTo'] as const;

/** The fields of spec 2.1 the form sends, with their kind (text as typed, a whole number, a checkbox). */
const TEXT_FIELDS = [
  'label',
  'amount',
  'handleValue',
  'handleLabel',
  'customIdentifier',
  'customIdentifier2',
  'installmentAmount',
  'redirectUrl',
  'documentNumber',
  'currency',
] as const;
const INTEGER_FIELDS = ['totalPeriods', 'dayOfMonth', 'monthForSecondInstallment', 'payWaitHours'] as const;
const BOOLEAN_FIELDS = [
  'singlePayment',
  'creditAndDebitCard',
  'recurrentPayment',
  'noLoginRequired',
] as const;

/**
 * The request of `POST /api/saleitems/add` from the form: blank fields absent, whole numbers as numbers
 * (anything else as typed, so the API names the field), checkboxes as booleans. No `paymentMethods`: a
 * link made in the console enables every processor of the merchant (spec 1.8).
 */
export function linkRequestOf(form: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of TEXT_FIELDS) {
    const value = form[name]?.trim();
    if (value) body[name] = value;
  }
  for (const name of INTEGER_FIELDS) {
    const value = form[name]?.trim();
    if (value) body[name] = /^-?\d{1,9}$/.test(value) ? Number(value) : value;
  }
  for (const name of BOOLEAN_FIELDS) body[name] = form[name] === 'true';
  if (body.recurrentPayment) {
    body.recurrentPaymentType = form.recurrentPaymentType === 'DYNAMIC' ? 'DYNAMIC' : 'STATIC';
    // An open-ended plan is `totalPeriods: null`, sent as such.
    if (form.openEnded === 'true' && body.recurrentPaymentType === 'STATIC') body.totalPeriods = null;
  } else {
    for (const name of ['installmentAmount', 'totalPeriods', 'dayOfMonth', 'monthForSecondInstallment'])
      delete body[name];
  }
  if (!body.noLoginRequired) delete body.documentNumber;
  return body;
}

export function linksPages(console: Hono<ConsoleEnv>) {
  console.get('/links', async (c) => {
    const text = t(c);
    const { filters, cursor, answer } = await readListPage<
      { payRequests: PaymentLinkDetails[]; nextCursor: string | null },
      (typeof FILTERS)[number]
    >(c, '/api/payrequests', FILTERS, 20);
    const tz = c.var.merchantProfile.timezone;
    return page(
      c,
      { title: text.nav.links, section: 'links', status: answer.ok ? 200 : problemStatus(answer.problem) },
      <>
        <PageHead title={text.links.title}>
          {mayWrite(c.var.consoleUser, 'links') ? (
            <a class="button" href="/console/links/new" data-testid="link-new">
              {text.links.create}
            </a>
          ) : null}
        </PageHead>
        <FilterForm action="/console/links" t={text}>
          <FilterSelect
            label={text.links.status}
            name="status"
            value={filters.status}
            all={text.all}
            options={choices(
              ['pending', 'rejected', 'paid', 'expired', 'cancelled'] as const,
              text.linkStatus,
            )}
          />
          <Field
            label={text.links.search}
            name="q"
            type="search"
            value={filters.q}
            hint={text.links.searchHint}
          />
          <Field
            label={text.fields.customIdentifier}
            name="customIdentifier"
            value={filters.customIdentifier}
          />
          <Field label={text.links.createdFrom} name="createdFrom" type="date" value={filters.createdFrom} />
          <Field label={text.links.createdTo} name="createdTo" type="date" value={filters.createdTo} />
        </FilterForm>
        <ListAnswer
          answer={answer}
          t={text}
          labels={text.fields}
          pager={{ path: '/console/links', filters, cursor }}
          list={(body) => (
            <DataTable
              rows={body.payRequests}
              empty={text.links.none}
              caption={text.links.title}
              row={(link) => ({ 'data-testid': 'link-row', 'data-id': String(link.id) })}
              columns={[
                {
                  label: text.links.id,
                  cell: (link) => <a href={`/console/links/${link.id}`}>#{link.id}</a>,
                },
                {
                  label: text.fields.label,
                  cell: (link) => (
                    <>
                      {link.label}
                      {link.recurrentPayment ? <span class="hint">{text.links.subscription}</span> : null}
                    </>
                  ),
                },
                {
                  label: text.links.customer,
                  cell: (link) => (
                    <>
                      {link.handleLabel}
                      <span class="hint">{link.handleValue}</span>
                    </>
                  ),
                },
                {
                  label: text.links.identifiers,
                  cell: (link) =>
                    [link.customIdentifier, link.customIdentifier2].filter(Boolean).join(' · ') || '—',
                },
                {
                  label: text.fields.amount,
                  num: true,
                  cell: (link) => <Money amount={link.amount} currency={link.currency} lang={c.var.lang} />,
                },
                {
                  label: text.links.status,
                  cell: (link) => <LinkStatusBadge statusId={link.statusId} c={c} />,
                },
                { label: text.links.created, cell: (link) => when(link.createTime, tz, c.var.lang) },
              ]}
            />
          )}
        />
      </>,
    );
  });

  const newLinkPage = (c: Ctx, form: Record<string, string>, problem?: Problem) => {
    const text = t(c);
    const merchant = c.var.merchantProfile;
    const checked = (name: string, byDefault: boolean) =>
      Object.keys(form).length === 0 ? byDefault : form[name] === 'true';
    const check = (name: string, label: string, byDefault: boolean, hint?: string) => (
      <label class="check">
        <input type="checkbox" name={name} value="true" checked={checked(name, byDefault)} />
        <span>
          {label}
          {hint ? <span class="hint">{hint}</span> : null}
        </span>
      </label>
    );
    return page(
      c,
      { title: text.links.create, section: 'links', status: problem ? problemStatus(problem) : 200 },
      <>
        <h1>{text.links.create}</h1>
        <ProblemNotice problem={problem} t={text} labels={text.fields} />
        <form method="post" action="/console/links" class="card" data-testid="link-form">
          <FormSecrets csrf={c.var.csrfToken} />
          <fieldset>
            <legend>{text.links.whatAndWho}</legend>
            <div class="grid2">
              <Field
                label={text.fields.label}
                name="label"
                value={form.label}
                required
                hint={text.links.labelHint}
              />
              <Field
                label={text.fields.amount}
                name="amount"
                value={form.amount}
                required
                inputmode="decimal"
                hint={text.links.amountHint(merchant.currency)}
              />
              <Field label={text.fields.handleLabel} name="handleLabel" value={form.handleLabel} required />
              <Field
                label={text.fields.handleValue}
                name="handleValue"
                value={form.handleValue}
                required
                hint={text.links.handleValueHint}
              />
              <Field
                label={text.fields.customIdentifier}
                name="customIdentifier"
                value={form.customIdentifier}
                hint={text.optional}
              />
              <Field
                label={text.fields.customIdentifier2}
                name="customIdentifier2"
                value={form.customIdentifier2}
                hint={text.optional}
              />
              {merchant.instance === 'INTERNATIONAL' ? (
                <Select
                  label={text.fields.currency}
                  name="currency"
                  value={form.currency ?? merchant.currency}
                  options={['USD', 'EUR'].map((currency) => ({ value: currency, label: currency }))}
                />
              ) : null}
              <Field
                label={text.fields.payWaitHours}
                name="payWaitHours"
                type="number"
                min={0}
                value={form.payWaitHours}
                hint={text.links.payWaitHoursHint}
              />
            </div>
          </fieldset>
          <fieldset>
            <legend>{text.links.howToPay}</legend>
            {check('singlePayment', text.fields.singlePayment, true, text.links.singlePaymentHint)}
            {check('creditAndDebitCard', text.fields.creditAndDebitCard, true)}
            {check('recurrentPayment', text.fields.recurrentPayment, false, text.links.recurrentPaymentHint)}
            <p class="hint">
              {text.links.processors}:{' '}
              {merchant.processors
                .map((processor) => text.processors[processor as 'PARAGUAY.PROCESSOR_A'] ?? processor)
                .join(', ')}
            </p>
          </fieldset>
          <fieldset>
            <legend>{text.links.subscriptionTerms}</legend>
            <p class="hint">{text.links.subscriptionTermsHint}</p>
            {merchant.saasContract ? (
              <Select
                label={text.fields.recurrentPaymentType}
                name="recurrentPaymentType"
                value={form.recurrentPaymentType ?? 'STATIC'}
                options={[
                  { value: 'STATIC', label: text.links.static },
                  { value: 'DYNAMIC', label: text.links.dynamic },
                ]}
              />
            ) : (
              <input type="hidden" name="recurrentPaymentType" value="STATIC" />
            )}
            <div class="grid2">
              <Field
                label={text.fields.installmentAmount}
                name="installmentAmount"
                value={form.installmentAmount}
                inputmode="decimal"
                hint={text.links.installmentAmountHint}
              />
              <Field
                label={text.fields.totalPeriods}
                name="totalPeriods"
                type="number"
                min={1}
                value={form.totalPeriods}
                hint={text.links.totalPeriodsHint}
              />
              <Field
                label={text.fields.dayOfMonth}
                name="dayOfMonth"
                type="number"
                min={1}
                max={28}
                value={form.dayOfMonth}
                hint={text.links.dayOfMonthHint}
              />
              <Field
                label={text.fields.monthForSecondInstallment}
                name="monthForSecondInstallment"
                type="number"
                min={0}
                value={form.monthForSecondInstallment}
                hint={text.links.monthForSecondInstallmentHint}
              />
            </div>
            {check('openEnded', text.links.openEnded, false, text.links.openEndedHint)}
          </fieldset>
          {merchant.callbackUrl || merchant.noLoginEnabled ? (
            <fieldset>
              <legend>{text.links.more}</legend>
              {merchant.callbackUrl ? (
                <Field
                  label={text.fields.redirectUrl}
                  name="redirectUrl"
                  type="url"
                  value={form.redirectUrl}
                  hint={text.links.redirectUrlHint(new URL(merchant.callbackUrl).origin)}
                />
              ) : null}
              {merchant.noLoginEnabled ? (
                <>
                  {check('noLoginRequired', text.fields.noLoginRequired, false, text.links.noLoginHint)}
                  <Field
                    label={text.fields.documentNumber}
                    name="documentNumber"
                    value={form.documentNumber}
                    hint={text.links.documentNumberHint}
                  />
                </>
              ) : null}
            </fieldset>
          ) : null}
          <div class="actions">
            <button type="submit" data-testid="link-submit">
              {text.links.createSubmit}
            </button>
            <a href="/console/links">{text.cancel}</a>
          </div>
        </form>
      </>,
    );
  };

  console.get('/links/new', (c) => newLinkPage(c, {}));

  console.post('/links', async (c) => {
    const form = await formOf(c);
    const answer = await callApi<{ id: number }>(c, {
      method: 'POST',
      path: '/api/saleitems/add',
      body: linkRequestOf(form),
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return newLinkPage(c, form, answer.problem);
    return c.redirect(`/console/links/${answer.body.id}?done=created`, 303);
  });

  const linkPage = async (c: Ctx, problem?: Problem) => {
    const text = t(c);
    const id = c.req.param('id') ?? '';
    const link = await read<PaymentLinkDetails>(c, `/api/payrequests/${encodeURIComponent(id)}`);
    const tz = c.var.merchantProfile.timezone;
    const subscription = link.recurrentPayment
      ? await callApi<{ subscriptions: Array<{ id: number; status: string }> }>(c, {
          method: 'GET',
          path: withQuery('/api/subscriptions', { payRequestId: link.id }),
        })
      : undefined;
    const found = subscription?.ok ? subscription.body.subscriptions[0] : undefined;
    const payable = link.statusId === 1 || link.statusId === 5;
    const done = c.req.query('done');
    return page(
      c,
      {
        title: `${text.links.link} #${link.id}`,
        section: 'links',
        status: problem ? problemStatus(problem) : 200,
      },
      <>
        <p>
          <a href="/console/links">← {text.links.title}</a>
        </p>
        <PageHead
          title={
            <>
              {text.links.link} #{link.id} · {link.label}
            </>
          }
        >
          <LinkStatusBadge statusId={link.statusId} c={c} />
        </PageHead>
        <DoneNotice
          text={
            done === 'created' ? text.links.created_ : done === 'cancelled' ? text.links.cancelled : undefined
          }
        />
        <ProblemNotice problem={problem} t={text} />
        <section class="card" aria-labelledby="h-share">
          <h2 id="h-share">{text.links.share}</h2>
          <div class="copy">
            <output id="link-url" data-testid="link-url">
              {link.publicPayUrl}
            </output>
            <button type="button" class="secondary" data-copy="link-url" data-copied={text.copied} hidden>
              {text.copy}
            </button>
          </div>
          <QrCode text={link.publicPayUrl} label={text.links.qrLabel} testid="link-qr" />
        </section>
        <section class="card" aria-labelledby="h-details">
          <h2 id="h-details">{text.links.details}</h2>
          <dl class="facts">
            <dt>{text.fields.amount}</dt>
            <dd>
              <Money amount={link.amount} currency={link.currency} lang={c.var.lang} />
            </dd>
            <dt>{text.links.customer}</dt>
            <dd>
              {link.handleLabel} · {link.handleValue}
            </dd>
            <dt>{text.fields.customIdentifier}</dt>
            <dd>{link.customIdentifier ?? '—'}</dd>
            <dt>{text.fields.customIdentifier2}</dt>
            <dd>{link.customIdentifier2 ?? '—'}</dd>
            <dt>{text.links.kind}</dt>
            <dd>
              {[
                link.singlePayment ? text.fields.singlePayment : null,
                link.recurrentPayment
                  ? `${text.fields.recurrentPayment} (${link.recurrentPaymentType})`
                  : null,
              ]
                .filter(Boolean)
                .join(' · ')}
            </dd>
            {link.recurrentPayment && link.recurrentPaymentType === 'STATIC' ? (
              <>
                <dt>{text.fields.installmentAmount}</dt>
                <dd>
                  <Money amount={link.installmentAmount} currency={link.currency} lang={c.var.lang} />
                </dd>
                <dt>{text.fields.totalPeriods}</dt>
                <dd>{link.totalPeriods ?? text.links.openEnded}</dd>
                <dt>{text.fields.dayOfMonth}</dt>
                <dd>{link.dayOfMonth}</dd>
              </>
            ) : null}
            <dt>{text.links.processors}</dt>
            <dd>{link.paymentMethods.map((processor) => text.processors[processor]).join(', ')}</dd>
            <dt>{text.links.created}</dt>
            <dd>{when(link.createTime, tz, c.var.lang)}</dd>
            <dt>{text.links.expires}</dt>
            <dd>{link.expireTime ? when(link.expireTime, tz, c.var.lang) : text.links.never}</dd>
            <dt>{text.links.payments}</dt>
            <dd data-testid="link-paid" data-paid={String(link.paid)}>
              {link.paid ? text.links.paidYes : text.links.paidNo}
            </dd>
            {found ? (
              <>
                <dt>{text.links.subscription}</dt>
                <dd>
                  <a href={`/console/subscriptions/${found.id}`}>
                    {text.subscriptions.subscription} #{found.id} (
                    {text.subscriptionStatus[found.status as 'active'] ?? found.status})
                  </a>
                </dd>
              </>
            ) : null}
          </dl>
        </section>
        {payable && mayWrite(c.var.consoleUser, 'links') ? (
          <section class="card" aria-labelledby="h-cancel">
            <h2 id="h-cancel">{text.links.cancelTitle}</h2>
            <p>{text.links.cancelHint}</p>
            <ActionButton
              action={`/console/links/${link.id}/cancel`}
              csrf={c.var.csrfToken}
              label={text.links.cancelLink}
              tone="danger"
              testid="link-cancel"
              confirm={text.links.cancelConfirm}
            />
          </section>
        ) : null}
      </>,
    );
  };

  console.get('/links/:id{[0-9]+}', (c) => linkPage(c));

  console.post('/links/:id{[0-9]+}/cancel', async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    if (!confirmed(form)) return linkPage(c, confirmationProblem(c));
    const answer = await callApi(c, {
      method: 'POST',
      path: `/api/payrequests/${id}/cancel`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return linkPage(c, answer.problem);
    return c.redirect(`/console/links/${id}?done=cancelled`, 303);
  });
}
