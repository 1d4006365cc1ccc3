/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { DEFAULT_TIMEZONE, PROCESSORS } from '@payrail/contracts';
import type { Hono } from 'hono';
import {
  Badge,
  type ConsoleEnv,
  type Ctx,
  callApi,
  DoneNotice,
  day,
  Field,
  FormSecrets,
  formOf,
  idempotencyKeyOf,
  type Problem,
  ProblemNotice,
  PageHead,
  page,
  problemStatus,
  read,
  Select,
  t,
  when,
  withQuery,
} from './kit';
import { DataTable, ListAnswer, readListPage } from './list-page';

interface MerchantView {
  id: string;
  name: string;
  instance: 'NATIONAL' | 'INTERNATIONAL';
  currency: string;
  saasContract: boolean;
  noLoginEnabled: boolean;
  callbackUrl: string | null;
  timezone: string;
  processors: string[];
  createdAt: string;
  updatedAt: string;
}
interface DunningPolicy {
  retryOffsetDays: number[];
  cancelAfterFailedInstallments: number | null;
  isDefault: boolean;
  updatedAt: string | null;
}
interface BillingRun {
  id: string;
  trigger: 'schedule' | 'operator';
  asOf: string | null;
  merchantId: string | null;
  status: 'claiming' | 'charging' | 'completed';
  due: number;
  requested: number;
  succeeded: number;
  failed: number;
  skipped: number;
  startedAt: string;
  claimedAt: string | null;
}

/** The operator has no merchant: times are shown in the default zone of a new merchant. */
const OPERATOR_ZONE = DEFAULT_TIMEZONE;

/** The merchant's settings from the form (`PATCH /admin/merchants/{id}` or the creation). */
function settingsOf(form: Record<string, string>, processors: string[]): Record<string, unknown> {
  return {
    name: form.name?.trim() ?? '',
    instance: form.instance === 'INTERNATIONAL' ? 'INTERNATIONAL' : 'NATIONAL',
    currency: form.currency || undefined,
    saasContract: form.saasContract === 'true',
    noLoginEnabled: form.noLoginEnabled === 'true',
    callbackUrl: form.callbackUrl?.trim() ? form.callbackUrl.trim() : null,
    timezone: form.timezone?.trim() || DEFAULT_TIMEZONE,
    processors,
  };
}

async function processorsOf(c: Ctx): Promise<string[]> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  const value = (body as Record<string, unknown>).processors;
  return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
}

function MerchantFields(props: {
  c: Ctx;
  form: Record<string, string>;
  merchant?: MerchantView;
  processors?: string[];
}) {
  const text = t(props.c);
  const m = props.merchant;
  const form = props.form;
  const fresh = Object.keys(form).length === 0;
  const flag = (name: 'saasContract' | 'noLoginEnabled') =>
    fresh ? Boolean(m?.[name]) : form[name] === 'true';
  const processors = props.processors ?? m?.processors ?? [...PROCESSORS];
  return (
    <>
      <div class="grid2">
        <Field label={text.settings.name} name="name" value={form.name ?? m?.name} required />
        <Select
          label={text.settings.instance}
          name="instance"
          value={form.instance ?? m?.instance ?? 'NATIONAL'}
          options={[
            { value: 'NATIONAL', label: text.settings.instances.NATIONAL },
            { value: 'INTERNATIONAL', label: text.settings.instances.INTERNATIONAL },
          ]}
        />
        <Select
          label={text.fields.currency}
          name="currency"
          value={form.currency ?? m?.currency ?? ''}
          options={[
            { value: '', label: text.operator.defaultCurrency },
            { value: 'PYG', label: 'PYG' },
            { value: 'USD', label: 'USD' },
            { value: 'EUR', label: 'EUR' },
          ]}
        />
        <Field
          label={text.settings.timezone}
          name="timezone"
          value={form.timezone ?? m?.timezone ?? DEFAULT_TIMEZONE}
          required
        />
        <Field
          label={text.settings.callbackUrl}
          name="callbackUrl"
          type="url"
          value={form.callbackUrl ?? m?.callbackUrl}
          hint={text.optional}
        />
      </div>
      <fieldset>
        <legend>{text.operator.options}</legend>
        <label class="check">
          <input type="checkbox" name="saasContract" value="true" checked={flag('saasContract')} />
          <span>{text.settings.saas}</span>
        </label>
        <label class="check">
          <input type="checkbox" name="noLoginEnabled" value="true" checked={flag('noLoginEnabled')} />
          <span>{text.settings.noLogin}</span>
        </label>
      </fieldset>
      <fieldset>
        <legend>{text.links.processors}</legend>
        {PROCESSORS.map((processor) => (
          <label class="check">
            <input
              type="checkbox"
              name="processors"
              value={processor}
              checked={processors.includes(processor)}
            />
            <span>{text.processors[processor]}</span>
          </label>
        ))}
      </fieldset>
    </>
  );
}

export function operatorPages(console: Hono<ConsoleEnv>) {
  console.get('/operator', async (c) => {
    const text = t(c);
    const { cursor, answer } = await readListPage<
      { merchants: MerchantView[]; nextCursor: string | null },
      never
    >(c, '/admin/merchants', [], 25);
    return page(
      c,
      {
        title: text.nav.merchants,
        section: 'merchants',
        status: answer.ok ? 200 : problemStatus(answer.problem),
      },
      <>
        <PageHead title={text.nav.merchants}>
          <a class="button" href="/console/operator/merchants/new" data-testid="merchant-new">
            {text.operator.newMerchant}
          </a>
        </PageHead>
        <ListAnswer
          answer={answer}
          t={text}
          pager={{ path: '/console/operator', filters: {}, cursor }}
          list={(body) => (
            <DataTable
              rows={body.merchants}
              row={(merchant) => ({ 'data-testid': 'merchant-row', 'data-id': merchant.id })}
              columns={[
                {
                  label: text.settings.name,
                  cell: (merchant) => (
                    <>
                      <a href={`/console/operator/merchants/${merchant.id}`}>{merchant.name}</a>
                      <span class="hint mono">{merchant.id}</span>
                    </>
                  ),
                },
                {
                  label: text.settings.instance,
                  cell: (merchant) => (
                    <>
                      {text.settings.instances[merchant.instance]} · {merchant.currency}
                    </>
                  ),
                },
                {
                  label: text.links.processors,
                  cell: (merchant) =>
                    merchant.processors
                      .map((processor) => text.processors[processor as 'PARAGUAY.PROCESSOR_A'] ?? processor)
                      .join(', '),
                },
                {
                  label: text.links.created,
                  cell: (merchant) => when(merchant.createdAt, OPERATOR_ZONE, c.var.lang),
                },
              ]}
            />
          )}
        />
      </>,
    );
  });

  const newMerchantPage = (
    c: Ctx,
    form: Record<string, string>,
    processors?: string[],
    problem?: Problem,
  ) => {
    const text = t(c);
    return page(
      c,
      {
        title: text.operator.newMerchant,
        section: 'merchants',
        status: problem ? problemStatus(problem) : 200,
      },
      <>
        <h1>{text.operator.newMerchant}</h1>
        <ProblemNotice problem={problem} t={text} />
        <form method="post" action="/console/operator/merchants" class="card" data-testid="merchant-form">
          <FormSecrets csrf={c.var.csrfToken} />
          <MerchantFields c={c} form={form} processors={processors} />
          <fieldset>
            <legend>{text.operator.firstOwner}</legend>
            <Field
              label={text.settings.email}
              name="ownerEmail"
              type="email"
              value={form.ownerEmail}
              required
              hint={text.operator.firstOwnerHint}
            />
          </fieldset>
          <div class="actions">
            <button type="submit" data-testid="merchant-submit">
              {text.operator.create}
            </button>
            <a href="/console/operator">{text.cancel}</a>
          </div>
        </form>
      </>,
    );
  };

  console.get('/operator/merchants/new', (c) => newMerchantPage(c, {}));

  console.post('/operator/merchants', async (c) => {
    const form = await formOf(c);
    const processors = await processorsOf(c);
    const settings = settingsOf(form, processors);
    const created = await callApi<MerchantView>(c, {
      method: 'POST',
      path: '/admin/merchants',
      body: settings,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!created.ok) return newMerchantPage(c, form, processors, created.problem);
    // The first owner is invited by e-mail (the sign-in's `POST /admin/merchants/{id}/users`).
    const invited = await callApi(c, {
      method: 'POST',
      path: `/admin/merchants/${created.body.id}/users`,
      body: { email: form.ownerEmail?.trim() ?? '', role: 'owner' },
    });
    if (!invited.ok)
      return merchantPage(c, created.body.id, {
        problem: invited.problem,
        done: t(c).operator.createdNoInvite,
      });
    return c.redirect(`/console/operator/merchants/${created.body.id}?done=created`, 303);
  });

  const merchantPage = async (
    c: Ctx,
    id: string,
    extra: { problem?: Problem; form?: Record<string, string>; processors?: string[]; done?: string } = {},
  ) => {
    const text = t(c);
    const [merchant, policy] = await Promise.all([
      read<MerchantView>(c, `/admin/merchants/${encodeURIComponent(id)}`),
      callApi<DunningPolicy>(c, {
        method: 'GET',
        path: `/admin/merchants/${encodeURIComponent(id)}/dunning-policy`,
      }),
    ]);
    const base = `/console/operator/merchants/${merchant.id}`;
    const done =
      extra.done ?? (c.req.query('done') ? text.operator.done[c.req.query('done') as 'saved'] : undefined);
    return page(
      c,
      {
        title: merchant.name,
        section: 'merchants',
        status: extra.problem ? problemStatus(extra.problem) : 200,
      },
      <>
        <p>
          <a href="/console/operator">← {text.nav.merchants}</a>
        </p>
        <h1>{merchant.name}</h1>
        <DoneNotice text={done} />
        <ProblemNotice problem={extra.problem} t={text} />
        <section class="card" aria-labelledby="h-settings">
          <h2 id="h-settings">{text.operator.settings}</h2>
          <form method="post" action={`${base}/settings`} data-testid="merchant-settings-form">
            <FormSecrets csrf={c.var.csrfToken} />
            <MerchantFields c={c} form={extra.form ?? {}} merchant={merchant} processors={extra.processors} />
            <button type="submit">{text.save}</button>
          </form>
        </section>
        <section class="card" aria-labelledby="h-dunning">
          <h2 id="h-dunning">{text.operator.dunning}</h2>
          {policy.ok ? (
            <form method="post" action={`${base}/dunning-policy`} data-testid="dunning-form">
              <FormSecrets csrf={c.var.csrfToken} />
              {policy.body.isDefault ? <p class="muted">{text.operator.defaultPolicy}</p> : null}
              <div class="grid2">
                <Field
                  label={text.operator.retryDays}
                  name="retryOffsetDays"
                  value={extra.form?.retryOffsetDays ?? policy.body.retryOffsetDays.join(', ')}
                  hint={text.operator.retryDaysHint}
                />
                <Field
                  label={text.operator.cancelAfter}
                  name="cancelAfterFailedInstallments"
                  type="number"
                  min={1}
                  max={60}
                  value={
                    extra.form?.cancelAfterFailedInstallments ?? policy.body.cancelAfterFailedInstallments
                  }
                  hint={text.operator.cancelAfterHint}
                />
              </div>
              <button type="submit">{text.save}</button>
            </form>
          ) : (
            <ProblemNotice problem={policy.problem} t={text} />
          )}
        </section>
        <section class="card" aria-labelledby="h-owner">
          <h2 id="h-owner">{text.operator.inviteOwner}</h2>
          <form method="post" action={`${base}/owners`} data-testid="owner-invite-form">
            <FormSecrets csrf={c.var.csrfToken} />
            <Field label={text.settings.email} name="email" type="email" required />
            <button type="submit" class="secondary">
              {text.settings.inviteSubmit}
            </button>
          </form>
        </section>
        <p>
          <a href={withQuery('/console/operator/billing-runs', { merchantId: merchant.id })}>
            {text.operator.runsOf}
          </a>
        </p>
      </>,
    );
  };

  const MERCHANT = '/operator/merchants/:id{[0-9a-fA-F-]{36}}';
  console.get(MERCHANT, (c) => merchantPage(c, c.req.param('id')));

  console.post(`${MERCHANT}/settings`, async (c) => {
    const form = await formOf(c);
    const processors = await processorsOf(c);
    const id = c.req.param('id');
    const answer = await callApi(c, {
      method: 'PATCH',
      path: `/admin/merchants/${id}`,
      body: settingsOf(form, processors),
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return merchantPage(c, id, { problem: answer.problem, form, processors });
    return c.redirect(`/console/operator/merchants/${id}?done=saved`, 303);
  });

  console.post(`${MERCHANT}/dunning-policy`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    const days = (form.retryOffsetDays ?? '')
      .split(/[\s,;]+/)
      .filter(Boolean)
      .map((value) => (/^\d{1,3}$/.test(value) ? Number(value) : value));
    const cancelAfter = form.cancelAfterFailedInstallments?.trim();
    const answer = await callApi(c, {
      method: 'PUT',
      path: `/admin/merchants/${id}/dunning-policy`,
      body: {
        retryOffsetDays: days,
        cancelAfterFailedInstallments: cancelAfter
          ? /^\d{1,3}$/.test(cancelAfter)
            ? Number(cancelAfter)
            : cancelAfter
          : null,
      },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return merchantPage(c, id, { problem: answer.problem, form });
    return c.redirect(`/console/operator/merchants/${id}?done=dunning`, 303);
  });

  console.post(`${MERCHANT}/owners`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    const answer = await callApi(c, {
      method: 'POST',
      path: `/admin/merchants/${id}/users`,
      body: { email: form.email?.trim() ?? '', role: 'owner' },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return merchantPage(c, id, { problem: answer.problem });
    return c.redirect(`/console/operator/merchants/${id}?done=invited`, 303);
  });

  // ---- Billing runs
  const runsPage = async (c: Ctx, problem?: Problem, form: Record<string, string> = {}) => {
    const text = t(c);
    const merchantId = c.req.query('merchantId') || undefined;
    const answer = await callApi<{ runs: BillingRun[] }>(c, {
      method: 'GET',
      path: withQuery('/admin/billing/runs', { merchantId, limit: 50 }),
    });
    return page(
      c,
      {
        title: text.nav.billingRuns,
        section: 'billing-runs',
        status: problem ? problemStatus(problem) : 200,
      },
      <>
        <h1>{text.nav.billingRuns}</h1>
        <p class="muted">{text.operator.runsHint}</p>
        <ProblemNotice problem={problem ?? (answer.ok ? undefined : answer.problem)} t={text} />
        <form
          method="post"
          action="/console/operator/billing-runs"
          class="card filters"
          data-testid="run-form"
        >
          <FormSecrets csrf={c.var.csrfToken} />
          <Field label={text.operator.asOf} name="asOf" type="date" value={form.asOf} required />
          <Field
            label={text.operator.merchantId}
            name="merchantId"
            value={form.merchantId ?? merchantId}
            hint={text.optional}
          />
          <div class="actions">
            <button type="submit" data-testid="run-submit">
              {text.operator.startRun}
            </button>
          </div>
        </form>
        {answer.ok ? <RunsTable c={c} runs={answer.body.runs} /> : null}
      </>,
    );
  };

  console.get('/operator/billing-runs', (c) => runsPage(c));

  console.post('/operator/billing-runs', async (c) => {
    const form = await formOf(c);
    const answer = await callApi<BillingRun>(c, {
      method: 'POST',
      path: '/admin/billing/runs',
      body: { asOf: form.asOf ?? '', merchantId: form.merchantId?.trim() || undefined },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return runsPage(c, answer.problem, form);
    return c.redirect(`/console/operator/billing-runs/${answer.body.id}`, 303);
  });

  console.get('/operator/billing-runs/:id{[0-9a-fA-F-]{36}}', async (c) => {
    const text = t(c);
    const run = await read<BillingRun>(c, `/admin/billing/runs/${c.req.param('id')}`);
    return page(
      c,
      { title: text.operator.run, section: 'billing-runs' },
      <>
        <p>
          <a href="/console/operator/billing-runs">← {text.nav.billingRuns}</a>
        </p>
        <PageHead title={text.operator.run}>
          <RunStatus c={c} run={run} />
        </PageHead>
        <div class="tiles">
          {(['due', 'requested', 'succeeded', 'failed', 'skipped'] as const).map((figure) => (
            <div class="tile" data-testid={`run-${figure}`}>
              <span class="label">{text.operator.figures[figure]}</span>
              <span class="value">{run[figure]}</span>
            </div>
          ))}
        </div>
        <section class="card">
          <dl class="facts">
            <dt>{text.operator.trigger}</dt>
            <dd>{text.operator.triggers[run.trigger]}</dd>
            <dt>{text.operator.asOf}</dt>
            <dd>{run.asOf ? day(run.asOf, c.var.lang) : text.operator.todayEach}</dd>
            <dt>{text.operator.merchantId}</dt>
            <dd class="mono">{run.merchantId ?? text.operator.allMerchants}</dd>
            <dt>{text.operator.started}</dt>
            <dd>{when(run.startedAt, OPERATOR_ZONE, c.var.lang)}</dd>
            <dt>{text.operator.claimed}</dt>
            <dd>{when(run.claimedAt, OPERATOR_ZONE, c.var.lang)}</dd>
          </dl>
          <p>
            <a href={c.req.path}>{text.operator.refresh}</a>
          </p>
        </section>
      </>,
    );
  });
}

function RunStatus(props: { c: Ctx; run: BillingRun }) {
  const text = t(props.c);
  return (
    <Badge
      tone={props.run.status === 'completed' ? 'good' : 'warn'}
      status={props.run.status}
      testid="run-status"
    >
      {text.operator.runStatus[props.run.status]}
    </Badge>
  );
}

function RunsTable(props: { c: Ctx; runs: BillingRun[] }) {
  const text = t(props.c);
  const lang = props.c.var.lang;
  return (
    <DataTable
      rows={props.runs}
      empty={text.operator.noRuns}
      row={(run) => ({ 'data-testid': 'run-row', 'data-id': run.id })}
      columns={[
        {
          label: text.operator.started,
          cell: (run) => (
            <a href={`/console/operator/billing-runs/${run.id}`}>
              {when(run.startedAt, OPERATOR_ZONE, lang)}
            </a>
          ),
        },
        {
          label: text.operator.asOf,
          cell: (run) => (run.asOf ? day(run.asOf, lang) : text.operator.todayEach),
        },
        { label: text.operator.trigger, cell: (run) => text.operator.triggers[run.trigger] },
        { label: text.developers.status, cell: (run) => <RunStatus c={props.c} run={run} /> },
        { label: text.operator.figures.due, num: true, cell: (run) => run.due },
        { label: text.operator.figures.succeeded, num: true, cell: (run) => run.succeeded },
        { label: text.operator.figures.failed, num: true, cell: (run) => run.failed },
      ]}
    />
  );
}
