/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { WEBHOOK_EVENT_KINDS, WEBHOOK_TEST_KIND } from '@payrail/contracts';
import { instantOfLocalDateTime } from '@payrail/time';
import type { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import {
  ActionButton,
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
  Pager,
  type Problem,
  ProblemNotice,
  PageHead,
  page,
  problemStatus,
  read,
  Select,
  Tabs,
  t,
  type Tone,
  when,
  withQuery,
} from './kit';
import { DataTable, FilterForm, FilterSelect, ListAnswer, readListPage, choices } from './list-page';
import { mayWrite } from './permissions';

interface Endpoint {
  id: string;
  url: string;
  method: 'POST' | 'PUT';
  auth: { type: 'basic'; username: string } | { type: 'header'; name: string } | null;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabledAt: string | null;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  origin: 'event' | 'test' | 'retry' | 'replay';
  attempts: Array<{
    attemptedAt: string;
    statusCode: number | null;
    durationMs: number;
    response: string | null;
    error: string | null;
  }>;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
interface EventEnvelope {
  id: string;
  event: string;
  createdAt: string;
  data: Record<string, unknown>;
}
/** `GET /api/api-tokens`: the merchant's scoped tokens (libs/contracts `apiTokenView`). */
interface ApiTokenView {
  id: string;
  /** Null for the tokens the operator issued. */
  name: string | null;
  scope: 'full' | 'read-only';
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const DELIVERY_TONE: Record<Delivery['status'], Tone> = { pending: 'warn', delivered: 'good', failed: 'bad' };

/** A delivery's last attempt, its answer and every attempt before it behind a disclosure. */
function Attempts(props: { delivery: Delivery; c: Ctx }) {
  const words = t(props.c);
  const { delivery } = props;
  const tz = props.c.var.merchantProfile.timezone;
  const last = delivery.attempts[delivery.attempts.length - 1];
  if (!last) return <span class="muted">{words.developers.notYet}</span>;
  return (
    <details>
      <summary>
        {last.statusCode ?? words.developers.noAnswer} · {last.durationMs} ms ·{' '}
        {words.developers.attemptsCount(delivery.attempts.length)}
      </summary>
      {delivery.attempts.map((attempt) => (
        <div>
          <p class="hint">
            {when(attempt.attemptedAt, tz, props.c.var.lang)} ·{' '}
            {attempt.statusCode ?? words.developers.noAnswer}
            {attempt.error ? ` · ${attempt.error}` : ''}
          </p>
          {attempt.response ? <pre data-testid="delivery-response">{attempt.response}</pre> : null}
        </div>
      ))}
    </details>
  );
}

type Tab = 'webhooks' | 'deliveries' | 'events' | 'tokens';

const TAB_PATHS: Record<Tab, string> = {
  webhooks: '/console/developers',
  deliveries: '/console/developers/deliveries',
  events: '/console/developers/events',
  tokens: '/console/developers/tokens',
};

function devPage(
  c: Ctx,
  tab: Tab,
  title: string,
  body: Child,
  status: Parameters<typeof page>[1]['status'] = 200,
) {
  return page(
    c,
    { title, section: 'developers', status },
    <>
      <h1>{t(c).nav.developers}</h1>
      <Tabs
        label={t(c).nav.developers}
        tabs={(Object.keys(TAB_PATHS) as Tab[]).map((each) => ({
          href: TAB_PATHS[each],
          label: t(c).developers.tabs[each],
          testid: `developers-${each}`,
          current: each === tab,
        }))}
      />
      {body}
    </>,
  );
}

/** The event kinds an endpoint may take, checkboxes named `events` (`*`: every kind). */
function EventChoice(props: { c: Ctx; chosen: string[] }) {
  const text = t(props.c);
  const all = props.chosen.includes('*');
  return (
    <fieldset>
      <legend>{text.developers.events}</legend>
      <p class="hint">{text.developers.eventsHint}</p>
      <label class="check">
        <input type="checkbox" name="events" value="*" checked={all} />
        <span>{text.developers.allEvents}</span>
      </label>
      {WEBHOOK_EVENT_KINDS.map((kind) => (
        <label class="check">
          <input type="checkbox" name="events" value={kind} checked={!all && props.chosen.includes(kind)} />
          <span class="mono">{kind}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** Every value of a repeated form field (`events`). */
async function repeated(c: Ctx, name: string): Promise<string[]> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  const value = (body as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

function endpointRequestOf(
  form: Record<string, string>,
  events: string[],
  creating: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    url: form.url?.trim() ?? '',
    method: form.method === 'PUT' ? 'PUT' : 'POST',
    description: form.description?.trim() || null,
    events: events.length > 0 ? events : null,
  };
  if (form.authType === 'basic')
    body.auth = { type: 'basic', username: form.authName ?? '', password: form.authSecret ?? '' };
  else if (form.authType === 'header')
    body.auth = { type: 'header', name: form.authName ?? '', value: form.authSecret ?? '' };
  else if (form.authType === 'none') body.auth = null;
  // Editing: an empty credential keeps the one stored (its secret is never shown again).
  if (!creating && form.authType !== 'none' && !form.authSecret) delete body.auth;
  return body;
}

function EndpointFields(props: {
  c: Ctx;
  form: Record<string, string>;
  endpoint?: Endpoint;
  events: string[];
}) {
  const text = t(props.c);
  const endpoint = props.endpoint;
  return (
    <>
      <Field
        label={text.developers.url}
        name="url"
        type="url"
        value={props.form.url ?? endpoint?.url}
        required
        hint={text.developers.urlHint}
      />
      <div class="grid2">
        <Select
          label={text.developers.method}
          name="method"
          value={props.form.method ?? endpoint?.method ?? 'POST'}
          options={[
            { value: 'POST', label: 'POST' },
            { value: 'PUT', label: 'PUT' },
          ]}
        />
        <Field
          label={text.developers.description}
          name="description"
          value={props.form.description ?? endpoint?.description}
          hint={text.optional}
        />
        <Select
          label={text.developers.auth}
          name="authType"
          value={props.form.authType ?? endpoint?.auth?.type ?? 'none'}
          options={[
            { value: 'none', label: text.developers.authNone },
            { value: 'basic', label: text.developers.authBasic },
            { value: 'header', label: text.developers.authHeader },
          ]}
        />
        <Field
          label={text.developers.authName}
          name="authName"
          value={
            props.form.authName ??
            (endpoint?.auth
              ? endpoint.auth.type === 'basic'
                ? endpoint.auth.username
                : endpoint.auth.name
              : '')
          }
          hint={text.developers.authNameHint}
        />
        <Field
          label={text.developers.authSecret}
          name="authSecret"
          type="password"
          value=""
          hint={endpoint ? text.developers.authSecretKeep : text.developers.authSecretHint}
          autocomplete="new-password"
        />
      </div>
      <EventChoice c={props.c} chosen={props.events} />
    </>
  );
}

function SecretOnce(props: { c: Ctx; secret: string; testid: string }) {
  const text = t(props.c);
  return (
    <div class="notice ok" role="status">
      <strong>{text.developers.secretOnce}</strong>
      <div class="copy">
        <code id="secret-value" data-testid={props.testid}>
          {props.secret}
        </code>
        <button type="button" class="secondary" data-copy="secret-value" data-copied={text.copied} hidden>
          {text.copy}
        </button>
      </div>
    </div>
  );
}

export function developersPages(console: Hono<ConsoleEnv>) {
  // ---- Webhook endpoints
  console.get('/developers', async (c) => {
    const text = t(c);
    const { endpoints } = await read<{ endpoints: Endpoint[] }>(c, '/api/webhook-endpoints');
    const tz = c.var.merchantProfile.timezone;
    return devPage(
      c,
      'webhooks',
      text.developers.tabs.webhooks,
      <>
        <PageHead title={text.developers.endpoints} level={2}>
          {mayWrite(c.var.consoleUser, 'webhooks') ? (
            <a class="button" href="/console/developers/webhooks/new" data-testid="webhook-new">
              {text.developers.newEndpoint}
            </a>
          ) : null}
        </PageHead>
        <DoneNotice text={c.req.query('done') === 'deleted' ? text.developers.deleted : undefined} />
        <DataTable
          rows={endpoints}
          empty={text.developers.noEndpoints}
          row={(endpoint) => ({ 'data-testid': 'webhook-row', 'data-id': endpoint.id })}
          columns={[
            {
              label: text.developers.url,
              cell: (endpoint) => (
                <>
                  <a class="mono" href={`/console/developers/webhooks/${endpoint.id}`}>
                    {endpoint.url}
                  </a>
                  {endpoint.description ? <span class="hint">{endpoint.description}</span> : null}
                </>
              ),
            },
            {
              label: text.developers.events,
              cell: (endpoint) => <span class="mono">{endpoint.events.join(', ')}</span>,
            },
            {
              label: text.developers.status,
              cell: (endpoint) => <EndpointStatus c={c} endpoint={endpoint} />,
            },
            { label: text.links.created, cell: (endpoint) => when(endpoint.createdAt, tz, c.var.lang) },
          ]}
        />
      </>,
    );
  });

  const newEndpointPage = (c: Ctx, form: Record<string, string>, events: string[], problem?: Problem) => {
    const text = t(c);
    return devPage(
      c,
      'webhooks',
      text.developers.newEndpoint,
      <>
        <h2>{text.developers.newEndpoint}</h2>
        <ProblemNotice problem={problem} t={text} labels={text.developers.fieldLabels} />
        <form method="post" action="/console/developers/webhooks" class="card" data-testid="webhook-form">
          <FormSecrets csrf={c.var.csrfToken} />
          <EndpointFields c={c} form={form} events={events} />
          <div class="actions">
            <button type="submit" data-testid="webhook-submit">
              {text.developers.create}
            </button>
            <a href="/console/developers">{text.cancel}</a>
          </div>
        </form>
      </>,
      problem ? problemStatus(problem) : 200,
    );
  };

  console.get('/developers/webhooks/new', (c) =>
    newEndpointPage(c, {}, ['PAYMENT_SUCCESS', 'PAYMENT_FAILED']),
  );

  console.post('/developers/webhooks', async (c) => {
    const form = await formOf(c);
    const events = await repeated(c, 'events');
    const answer = await callApi<Endpoint & { secret: string }>(c, {
      method: 'POST',
      path: '/api/webhook-endpoints',
      body: endpointRequestOf(form, events, true),
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return newEndpointPage(c, form, events, answer.problem);
    // The secret is in this answer only: shown here, never again.
    return endpointPage(c, answer.body.id, { secret: answer.body.secret, done: t(c).developers.created });
  });

  const endpointPage = async (
    c: Ctx,
    id: string,
    extra: {
      secret?: string;
      done?: string;
      problem?: Problem;
      form?: Record<string, string>;
      events?: string[];
    } = {},
  ) => {
    const words = t(c);
    const endpoint = await read<Endpoint>(c, `/api/webhook-endpoints/${encodeURIComponent(id)}`);
    const tz = c.var.merchantProfile.timezone;
    const csrf = c.var.csrfToken;
    const base = `/console/developers/webhooks/${endpoint.id}`;
    const canWrite = mayWrite(c.var.consoleUser, 'webhooks');
    const done =
      extra.done ?? (c.req.query('done') ? words.developers.done[c.req.query('done') as 'saved'] : undefined);
    return devPage(
      c,
      'webhooks',
      endpoint.url,
      <>
        <p>
          <a href="/console/developers">← {words.developers.endpoints}</a>
        </p>
        <PageHead title={endpoint.url} level={2} mono>
          <EndpointStatus c={c} endpoint={endpoint} />
        </PageHead>
        <DoneNotice text={done} />
        {extra.secret ? <SecretOnce c={c} secret={extra.secret} testid="webhook-secret" /> : null}
        <ProblemNotice problem={extra.problem} t={words} labels={words.developers.fieldLabels} />
        <section class="card">
          <dl class="facts">
            <dt>{words.developers.method}</dt>
            <dd>{endpoint.method}</dd>
            <dt>{words.developers.events}</dt>
            <dd class="mono">{endpoint.events.join(', ')}</dd>
            <dt>{words.developers.auth}</dt>
            <dd>
              {endpoint.auth === null
                ? words.developers.authNone
                : endpoint.auth.type === 'basic'
                  ? `${words.developers.authBasic}: ${endpoint.auth.username}`
                  : `${words.developers.authHeader}: ${endpoint.auth.name}`}
            </dd>
            <dt>{words.developers.secretRotated}</dt>
            <dd>
              {endpoint.previousSecretExpiresAt
                ? `${words.developers.previousUntil} ${when(endpoint.previousSecretExpiresAt, tz, c.var.lang)}`
                : '—'}
            </dd>
            <dt>{words.links.created}</dt>
            <dd>{when(endpoint.createdAt, tz, c.var.lang)}</dd>
          </dl>
          <div class="actions">
            <a
              class="button secondary"
              href={withQuery('/console/developers/deliveries', { endpointId: endpoint.id })}
            >
              {words.developers.deliveriesOf}
            </a>
            {canWrite ? (
              <>
                <ActionButton
                  action={`${base}/test`}
                  csrf={csrf}
                  label={words.developers.sendTest}
                  testid="webhook-test"
                />
                <ActionButton
                  action={`${base}/rotate-secret`}
                  csrf={csrf}
                  label={words.developers.rotate}
                  tone="secondary"
                  testid="webhook-rotate"
                />
                <ActionButton
                  action={`${base}/enabled`}
                  csrf={csrf}
                  label={endpoint.status === 'enabled' ? words.developers.disable : words.developers.enable}
                  tone="secondary"
                  testid="webhook-toggle"
                  hidden={{ enabled: endpoint.status === 'enabled' ? 'false' : 'true' }}
                />
              </>
            ) : null}
          </div>
        </section>
        {canWrite ? (
          <>
            <section class="card" aria-labelledby="h-edit">
              <h2 id="h-edit">{words.developers.edit}</h2>
              <form method="post" action={`${base}/edit`} data-testid="webhook-edit-form">
                <FormSecrets csrf={csrf} />
                <EndpointFields
                  c={c}
                  form={extra.form ?? {}}
                  endpoint={endpoint}
                  events={extra.events ?? endpoint.events}
                />
                <button type="submit">{words.save}</button>
              </form>
            </section>
            <section class="card" aria-labelledby="h-replay">
              <h2 id="h-replay">{words.developers.replay}</h2>
              <p>{words.developers.replayHint}</p>
              <form method="post" action={`${base}/replay`} data-testid="webhook-replay-form">
                <FormSecrets csrf={csrf} />
                <div class="grid2">
                  <Field
                    label={words.developers.from}
                    name="from"
                    type="datetime-local"
                    value={extra.form?.from}
                    required
                  />
                  <Field
                    label={words.developers.to}
                    name="to"
                    type="datetime-local"
                    value={extra.form?.to}
                    required
                  />
                </div>
                <button type="submit" class="secondary">
                  {words.developers.replaySubmit}
                </button>
              </form>
            </section>
            <section class="card" aria-labelledby="h-delete">
              <h2 id="h-delete">{words.developers.deleteTitle}</h2>
              <ActionButton
                action={`${base}/delete`}
                csrf={csrf}
                label={words.developers.delete}
                tone="danger"
                testid="webhook-delete"
                confirm={words.developers.deleteConfirm}
              />
            </section>
          </>
        ) : null}
      </>,
      extra.problem ? problemStatus(extra.problem) : 200,
    );
  };

  const ENDPOINT = '/developers/webhooks/:id{[0-9a-fA-F-]{36}}';
  console.get(ENDPOINT, (c) => endpointPage(c, c.req.param('id')));

  console.post(`${ENDPOINT}/edit`, async (c) => {
    const form = await formOf(c);
    const events = await repeated(c, 'events');
    const id = c.req.param('id');
    const answer = await callApi(c, {
      method: 'PATCH',
      path: `/api/webhook-endpoints/${id}`,
      body: endpointRequestOf(form, events, false),
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return endpointPage(c, id, { problem: answer.problem, form, events });
    return c.redirect(`/console/developers/webhooks/${id}?done=saved`, 303);
  });

  console.post(`${ENDPOINT}/enabled`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    const answer = await callApi(c, {
      method: 'PATCH',
      path: `/api/webhook-endpoints/${id}`,
      body: { enabled: form.enabled === 'true' },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return endpointPage(c, id, { problem: answer.problem });
    return c.redirect(
      `/console/developers/webhooks/${id}?done=${form.enabled === 'true' ? 'enabled' : 'disabled'}`,
      303,
    );
  });

  console.post(`${ENDPOINT}/rotate-secret`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    const answer = await callApi<{ secret: string }>(c, {
      method: 'POST',
      path: `/api/webhook-endpoints/${id}/rotate-secret`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return endpointPage(c, id, { problem: answer.problem });
    return endpointPage(c, id, { secret: answer.body.secret, done: t(c).developers.rotated });
  });

  console.post(`${ENDPOINT}/test`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    const answer = await callApi(c, {
      method: 'POST',
      path: `/api/webhook-endpoints/${id}/test`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return endpointPage(c, id, { problem: answer.problem });
    return c.redirect(withQuery('/console/developers/deliveries', { endpointId: id, done: 'test' }), 303);
  });

  console.post(`${ENDPOINT}/replay`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    const tz = c.var.merchantProfile.timezone;
    const instant = (value: string | undefined) => {
      const found = value ? instantOfLocalDateTime(value, tz) : undefined;
      return found ? found.toISOString() : (value ?? '');
    };
    const answer = await callApi<{ replayed: number }>(c, {
      method: 'POST',
      path: `/api/webhook-endpoints/${id}/replay`,
      body: { from: instant(form.from), to: instant(form.to) },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return endpointPage(c, id, { problem: answer.problem, form });
    return endpointPage(c, id, { done: t(c).developers.replayed(answer.body.replayed) });
  });

  console.post(`${ENDPOINT}/delete`, async (c) => {
    const form = await formOf(c);
    const id = c.req.param('id');
    if (!confirmed(form)) return endpointPage(c, id, { problem: confirmationProblem(c) });
    const answer = await callApi(c, {
      method: 'DELETE',
      path: `/api/webhook-endpoints/${id}`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return endpointPage(c, id, { problem: answer.problem });
    return c.redirect('/console/developers?done=deleted', 303);
  });

  // ---- The delivery log
  const DELIVERY_FILTERS = ['endpointId', 'status', 'event'] as const;
  const deliveriesPage = async (c: Ctx, problem?: Problem, done?: string) => {
    const words = t(c);
    const [{ filters, cursor, answer }, endpoints] = await Promise.all([
      readListPage<{ deliveries: Delivery[]; nextCursor: string | null }, (typeof DELIVERY_FILTERS)[number]>(
        c,
        '/api/webhook-deliveries',
        DELIVERY_FILTERS,
        25,
      ),
      read<{ endpoints: Endpoint[] }>(c, '/api/webhook-endpoints'),
    ]);
    const urlOf = new Map(endpoints.endpoints.map((endpoint) => [endpoint.id, endpoint.url]));
    const tz = c.var.merchantProfile.timezone;
    const canRetry = mayWrite(c.var.consoleUser, 'webhooks');
    const doneText =
      done ??
      (c.req.query('done') === 'test'
        ? words.developers.testSent
        : c.req.query('done') === 'retry'
          ? words.developers.retried
          : undefined);
    return devPage(
      c,
      'deliveries',
      words.developers.tabs.deliveries,
      <>
        <DoneNotice text={doneText} />
        <ProblemNotice problem={problem ?? (answer.ok ? undefined : answer.problem)} t={words} />
        <FilterForm action="/console/developers/deliveries" t={words}>
          <FilterSelect
            label={words.developers.endpoint}
            name="endpointId"
            value={filters.endpointId}
            all={words.all}
            options={endpoints.endpoints.map((endpoint) => ({ value: endpoint.id, label: endpoint.url }))}
          />
          <FilterSelect
            label={words.developers.status}
            name="status"
            value={filters.status}
            all={words.all}
            options={choices(['pending', 'delivered', 'failed'] as const, words.deliveryStatus)}
          />
          <FilterSelect
            label={words.developers.event}
            name="event"
            value={filters.event}
            all={words.all}
            options={choices([...WEBHOOK_EVENT_KINDS, WEBHOOK_TEST_KIND])}
          />
        </FilterForm>
        <ListAnswer
          answer={answer}
          t={words}
          refusalSaidAbove
          pager={{ path: '/console/developers/deliveries', filters, cursor }}
          list={(body) => (
            <DataTable
              rows={body.deliveries}
              empty={words.developers.noDeliveries}
              row={(delivery) => ({
                'data-testid': 'delivery-row',
                'data-id': delivery.id,
                'data-status': delivery.status,
                'data-event': delivery.event,
              })}
              columns={[
                {
                  label: words.developers.event,
                  cell: (delivery) => (
                    <>
                      <span class="mono">{delivery.event}</span>
                      <span class="hint">
                        {words.developers.origin[delivery.origin]} ·{' '}
                        {when(delivery.createdAt, tz, c.var.lang)}
                      </span>
                    </>
                  ),
                },
                {
                  label: words.developers.endpoint,
                  cell: (delivery) => (
                    <span class="mono">{urlOf.get(delivery.endpointId) ?? delivery.endpointId}</span>
                  ),
                },
                {
                  label: words.developers.status,
                  cell: (delivery) => (
                    <>
                      <Badge tone={DELIVERY_TONE[delivery.status]} status={delivery.status}>
                        {words.deliveryStatus[delivery.status]}
                      </Badge>
                      {delivery.nextAttemptAt ? (
                        <span class="hint">
                          {words.developers.nextAt} {when(delivery.nextAttemptAt, tz, c.var.lang)}
                        </span>
                      ) : null}
                    </>
                  ),
                },
                {
                  label: words.developers.lastAttempt,
                  cell: (delivery) => <Attempts delivery={delivery} c={c} />,
                },
                {
                  label: words.subscriptions.actions,
                  cell: (delivery) =>
                    canRetry ? (
                      <ActionButton
                        action={`/console/developers/deliveries/${delivery.id}/retry`}
                        csrf={c.var.csrfToken}
                        label={words.developers.retry}
                        small
                        tone="secondary"
                        testid="delivery-retry"
                        hidden={{
                          back: withQuery('/console/developers/deliveries', { ...filters, cursor }),
                        }}
                      />
                    ) : null,
                },
              ]}
            />
          )}
        />
      </>,
      problem ? problemStatus(problem) : answer.ok ? 200 : problemStatus(answer.problem),
    );
  };

  console.get('/developers/deliveries', (c) => deliveriesPage(c));

  console.post('/developers/deliveries/:id{[0-9a-fA-F-]{36}}/retry', async (c) => {
    const form = await formOf(c);
    const answer = await callApi(c, {
      method: 'POST',
      path: `/api/webhook-deliveries/${c.req.param('id')}/retry`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return deliveriesPage(c, answer.problem);
    const back = form.back?.startsWith('/console/developers/deliveries')
      ? form.back
      : '/console/developers/deliveries';
    return c.redirect(`${back}${back.includes('?') ? '&' : '?'}done=retry`, 303);
  });

  // ---- The event log
  console.get('/developers/events', async (c) => {
    const words = t(c);
    const type = c.req.query('type') || undefined;
    const after = c.req.query('after') || undefined;
    const answer = await callApi<{ events: EventEnvelope[]; nextCursor: string | null; hasMore: boolean }>(
      c,
      {
        method: 'GET',
        path: withQuery('/api/events', { type, after, limit: 25 }),
      },
    );
    const tz = c.var.merchantProfile.timezone;
    return devPage(
      c,
      'events',
      words.developers.tabs.events,
      <>
        <p class="muted">{words.developers.eventsIntro}</p>
        <FilterForm action="/console/developers/events" t={words}>
          <FilterSelect
            label={words.developers.event}
            name="type"
            value={type}
            all={words.all}
            options={choices(WEBHOOK_EVENT_KINDS)}
          />
        </FilterForm>
        {answer.ok ? (
          <DataTable
            rows={answer.body.events}
            empty={words.developers.noEvents}
            row={(event) => ({ 'data-testid': 'event-row', 'data-id': event.id, 'data-event': event.event })}
            columns={[
              {
                label: words.developers.event,
                cell: (event) => (
                  <>
                    <span class="mono">{event.event}</span>
                    <span class="hint mono">{event.id}</span>
                  </>
                ),
              },
              { label: words.developers.when, cell: (event) => when(event.createdAt, tz, c.var.lang) },
              {
                label: words.developers.about,
                cell: (event) => (
                  <>
                    {typeof event.data.payRequestId === 'number' ? (
                      <a href={`/console/links/${event.data.payRequestId}`}>
                        {words.links.link} #{event.data.payRequestId}
                      </a>
                    ) : null}
                    {typeof event.data.subscriptionId === 'number' ? (
                      <a class="hint" href={`/console/subscriptions/${event.data.subscriptionId}`}>
                        {words.subscriptions.subscription} #{event.data.subscriptionId}
                      </a>
                    ) : null}
                  </>
                ),
              },
              {
                label: words.developers.payload,
                cell: (event) => (
                  <details>
                    <summary>{words.developers.show}</summary>
                    <pre>{JSON.stringify(event.data, null, 2)}</pre>
                  </details>
                ),
              },
            ]}
          />
        ) : (
          <ProblemNotice problem={answer.problem} t={words} />
        )}
        {answer.ok && answer.body.hasMore ? (
          <Pager
            path="/console/developers/events"
            filters={{ type }}
            cursorName="after"
            next={answer.body.nextCursor}
            t={words}
            first={!after}
          />
        ) : null}
      </>,
      answer.ok ? 200 : problemStatus(answer.problem),
    );
  });

  // ---- API tokens (`/api/api-tokens`)
  const tokensPage = async (
    c: Ctx,
    extra: {
      created?: ApiTokenView & { apiToken: string };
      problem?: Problem;
      form?: Record<string, string>;
    } = {},
  ) => {
    const words = t(c);
    const answer = await callApi<{ tokens: ApiTokenView[] }>(c, { method: 'GET', path: '/api/api-tokens' });
    const tz = c.var.merchantProfile.timezone;
    const canWrite = mayWrite(c.var.consoleUser, 'tokens');
    const done = c.req.query('done') === 'revoked' ? words.developers.revoked : undefined;
    return devPage(
      c,
      'tokens',
      words.developers.tabs.tokens,
      <>
        <p class="muted">{words.developers.tokensIntro}</p>
        <DoneNotice text={done} />
        {extra.created ? (
          <div class="notice ok" role="status">
            <strong>{words.developers.tokenOnce}</strong>
            <div class="copy">
              <code id="token-value" data-testid="token-value">
                {extra.created.apiToken}
              </code>
              <button
                type="button"
                class="secondary"
                data-copy="token-value"
                data-copied={words.copied}
                hidden
              >
                {words.copy}
              </button>
            </div>
          </div>
        ) : null}
        <ProblemNotice problem={extra.problem ?? (answer.ok ? undefined : answer.problem)} t={words} />
        {canWrite ? (
          <form method="post" action="/console/developers/tokens" class="card" data-testid="token-form">
            <FormSecrets csrf={c.var.csrfToken} />
            <h2>{words.developers.newToken}</h2>
            <div class="grid2">
              <Field label={words.developers.tokenName} name="name" value={extra.form?.name} required />
              <Select
                label={words.developers.scope}
                name="scope"
                testid="token-scope"
                value={extra.form?.scope ?? 'read-only'}
                options={[
                  { value: 'read-only', label: words.developers.scopes['read-only'] },
                  { value: 'full', label: words.developers.scopes.full },
                ]}
              />
            </div>
            <button type="submit" data-testid="token-new">
              {words.developers.createToken}
            </button>
          </form>
        ) : null}
        {answer.ok ? (
          <DataTable
            rows={answer.body.tokens}
            empty={words.developers.noTokens}
            row={(token) => ({ 'data-testid': 'token-row', 'data-id': token.id })}
            columns={[
              {
                label: words.developers.tokenName,
                cell: (token) => token.name ?? <span class="muted">{words.developers.operatorToken}</span>,
              },
              {
                label: words.developers.scope,
                cell: (token) => words.developers.scopes[token.scope as 'full'] ?? token.scope,
              },
              { label: words.links.created, cell: (token) => when(token.createdAt, tz, c.var.lang) },
              {
                label: words.developers.lastUsed,
                cell: (token) =>
                  token.lastUsedAt ? when(token.lastUsedAt, tz, c.var.lang) : words.developers.never,
              },
              {
                label: words.subscriptions.actions,
                cell: (token) =>
                  token.revokedAt ? (
                    <Badge>{words.developers.revokedBadge}</Badge>
                  ) : canWrite ? (
                    <ActionButton
                      action={`/console/developers/tokens/${token.id}/revoke`}
                      csrf={c.var.csrfToken}
                      label={words.developers.revoke}
                      small
                      tone="danger"
                      testid="token-revoke"
                    />
                  ) : null,
              },
            ]}
          />
        ) : null}
      </>,
      extra.problem ? problemStatus(extra.problem) : answer.ok ? 200 : problemStatus(answer.problem),
    );
  };

  console.get('/developers/tokens', (c) => tokensPage(c));

  console.post('/developers/tokens', async (c) => {
    const form = await formOf(c);
    const answer = await callApi<ApiTokenView & { apiToken: string }>(c, {
      method: 'POST',
      path: '/api/api-tokens',
      body: { name: form.name?.trim() ?? '', scope: form.scope === 'full' ? 'full' : 'read-only' },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return tokensPage(c, { problem: answer.problem, form });
    return tokensPage(c, { created: answer.body });
  });

  console.post('/developers/tokens/:id{[0-9a-fA-F-]{36}}/revoke', async (c) => {
    const form = await formOf(c);
    const answer = await callApi(c, {
      method: 'DELETE',
      path: `/api/api-tokens/${c.req.param('id')}`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return tokensPage(c, { problem: answer.problem });
    return c.redirect('/console/developers/tokens?done=revoked', 303);
  });
}

function EndpointStatus(props: { c: Ctx; endpoint: Endpoint }) {
  const words = t(props.c);
  const endpoint = props.endpoint;
  return (
    <Badge
      tone={endpoint.status === 'enabled' ? 'good' : 'bad'}
      status={endpoint.status}
      testid="webhook-status"
    >
      {endpoint.status === 'enabled'
        ? words.developers.enabled
        : `${words.developers.disabled}${endpoint.disabledReason === 'failing' ? ` (${words.developers.failing})` : ''}`}
    </Badge>
  );
}
