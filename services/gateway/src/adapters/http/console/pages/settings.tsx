/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { OPERATION_PERMISSIONS } from '@payrail/contracts';
import { addDays, instantOfLocalDateTime } from '@payrail/time';
import { CONSOLE_AUTH_PATHS, MERCHANT_ROLES, type MerchantRole } from '../console-context';
import {
  ActionButton,
  Badge,
  type ConsoleEnv,
  type Ctx,
  callApi,
  DoneNotice,
  Field,
  FormSecrets,
  formOf,
  idempotencyKeyOf,
  type Problem,
  ProblemNotice,
  page,
  problemStatus,
  queryOf,
  Select,
  Tabs,
  t,
  when,
  withQuery,
} from './kit';
import { DataTable, FilterForm, FilterSelect, ListAnswer, choices } from './list-page';
import { mayWrite } from './permissions';

/** `GET /api/users`: the merchant's console users (libs/contracts `userView`). */
interface UserView {
  id: string;
  email: string;
  name: string | null;
  role: MerchantRole;
  status: 'invited' | 'active';
  twoFactor: boolean;
  createdAt: string;
  lastLoginAt: string | null;
  invitationExpiresAt: string | null;
}
/** `GET /api/api-tokens`, for the audit log's "who" filter. */
interface TokenView {
  id: string;
  name: string | null;
  scope: string;
  revokedAt: string | null;
}
/** `GET /api/audit-log` (libs/contracts `auditEntry`). */
interface AuditEntry {
  id: string;
  at: string;
  actor: { type: 'user' | 'token' | 'operator'; id: string | null; label: string | null };
  operationId: string;
  method: string;
  path: string;
  target: string | null;
  status: number;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

/** The writes of the API, the audit log's "what" filter. */
const WRITE_OPERATIONS = Object.entries(OPERATION_PERMISSIONS)
  .filter(([, permission]) => permission.access === 'write')
  .map(([operationId]) => operationId)
  .sort();

/** Who made an audit log entry: a user's e-mail, a token's name (the operator's have none), the operator. */
function ActorOf(props: { entry: AuditEntry; c: Ctx }) {
  const text = t(props.c);
  const { type, id, label } = props.entry.actor;
  const kind = text.settings.actorKind[type] ?? type;
  if (type === 'operator') return <>{label ? `${kind}: ${label}` : kind}</>;
  if (label) return <>{`${kind}: ${label}`}</>;
  if (type === 'token')
    return (
      <>
        {`${kind}: ${text.developers.operatorToken}`}
        {id ? <span class="hint mono">{id.slice(0, 8)}</span> : null}
      </>
    );
  return <>{`${kind}: ${id ?? '—'}`}</>;
}

type Tab = 'profile' | 'users' | 'audit' | 'account';

/** The settings' tabs for this user: users and roles for owners only. */
function tabsOf(c: Ctx): Array<[Tab, string]> {
  const user = c.var.consoleUser;
  return [
    ['profile', '/console/settings'],
    ...(user.kind === 'merchant-user' && user.role === 'owner'
      ? ([['users', '/console/settings/users']] as Array<[Tab, string]>)
      : []),
    ['audit', '/console/settings/audit'],
    ['account', '/console/settings/account'],
  ];
}

function settingsPage(c: Ctx, tab: Tab, body: Child, status: Parameters<typeof page>[1]['status'] = 200) {
  const text = t(c);
  return page(
    c,
    { title: text.settings.tabs[tab], section: 'settings', status },
    <>
      <h1>{text.nav.settings}</h1>
      <Tabs
        label={text.nav.settings}
        tabs={tabsOf(c).map(([each, href]) => ({
          href,
          label: text.settings.tabs[each],
          testid: `settings-${each}`,
          current: each === tab,
        }))}
      />
      {body}
    </>,
  );
}

/** What an audited step changed: the object before and after it, behind a disclosure. */
function AuditChange(props: { entry: AuditEntry; c: Ctx }) {
  const text = t(props.c);
  const { entry } = props;
  if (entry.before === null && entry.after === null) return <>—</>;
  return (
    <details>
      <summary>{text.developers.show}</summary>
      {entry.before !== null ? (
        <>
          <p class="hint">{text.settings.before}</p>
          <pre>{JSON.stringify(entry.before, null, 2)}</pre>
        </>
      ) : null}
      {entry.after !== null ? (
        <>
          <p class="hint">{text.settings.after}</p>
          <pre>{JSON.stringify(entry.after, null, 2)}</pre>
        </>
      ) : null}
    </details>
  );
}

export function settingsPages(console: Hono<ConsoleEnv>) {
  console.get('/settings', (c) => {
    const text = t(c);
    const merchant = c.var.merchantProfile;
    const yesNo = (value: boolean) => (value ? text.yes : text.no);
    return settingsPage(
      c,
      'profile',
      <section class="card" aria-labelledby="h-profile">
        <h2 id="h-profile">{text.settings.profile}</h2>
        <p class="muted">{text.settings.profileHint}</p>
        <dl class="facts" data-testid="merchant-profile">
          <dt>{text.settings.name}</dt>
          <dd>{merchant.name}</dd>
          <dt>{text.settings.instance}</dt>
          <dd>{text.settings.instances[merchant.instance]}</dd>
          <dt>{text.fields.currency}</dt>
          <dd>{merchant.currency}</dd>
          <dt>{text.settings.timezone}</dt>
          <dd>{merchant.timezone}</dd>
          <dt>{text.links.processors}</dt>
          <dd>
            {merchant.processors
              .map((processor) => text.processors[processor as 'PARAGUAY.PROCESSOR_A'] ?? processor)
              .join(', ')}
          </dd>
          <dt>{text.settings.saas}</dt>
          <dd>{yesNo(merchant.saasContract)}</dd>
          <dt>{text.settings.noLogin}</dt>
          <dd>{yesNo(merchant.noLoginEnabled)}</dd>
          <dt>{text.settings.callbackUrl}</dt>
          <dd class="mono">{merchant.callbackUrl ?? '—'}</dd>
          <dt>{text.settings.merchantId}</dt>
          <dd class="mono">{merchant.id}</dd>
        </dl>
      </section>,
    );
  });

  // ---- Users and roles (owners)
  const usersPage = async (
    c: Ctx,
    extra: { problem?: Problem; form?: Record<string, string>; done?: string } = {},
  ) => {
    const text = t(c);
    const answer = await callApi<{ users: UserView[] }>(c, { method: 'GET', path: '/api/users' });
    const canWrite = mayWrite(c.var.consoleUser, 'users');
    const me = c.var.consoleUser.userId;
    const tz = c.var.merchantProfile.timezone;
    const roleOptions = MERCHANT_ROLES.map((role) => ({ value: role, label: text.roles[role] }));
    const done =
      extra.done ??
      (c.req.query('done') ? text.settings.usersDone[c.req.query('done') as 'invited'] : undefined);
    return settingsPage(
      c,
      'users',
      <>
        <DoneNotice text={done} />
        <ProblemNotice problem={extra.problem ?? (answer.ok ? undefined : answer.problem)} t={text} />
        <p class="muted">{text.settings.rolesHint}</p>
        {canWrite ? (
          <form method="post" action="/console/settings/users" class="card" data-testid="user-invite-form">
            <FormSecrets csrf={c.var.csrfToken} />
            <h2>{text.settings.invite}</h2>
            <div class="grid2">
              <Field
                label={text.settings.email}
                name="email"
                type="email"
                value={extra.form?.email}
                required
                autocomplete="off"
              />
              <Field
                label={text.settings.personName}
                name="name"
                value={extra.form?.name}
                autocomplete="off"
              />
              <Select
                label={text.settings.role}
                name="role"
                options={roleOptions}
                value={extra.form?.role ?? 'viewer'}
                testid="user-role"
                id="invite-role"
              />
            </div>
            <button type="submit" data-testid="user-invite">
              {text.settings.inviteSubmit}
            </button>
          </form>
        ) : null}
        {answer.ok ? (
          <DataTable
            rows={answer.body.users}
            row={(user) => ({ 'data-testid': 'user-row', 'data-id': user.id, 'data-role': user.role })}
            columns={[
              {
                label: text.settings.email,
                cell: (user) => (
                  <>
                    {user.email}
                    {user.name ? <span class="hint">{user.name}</span> : null}
                  </>
                ),
              },
              {
                label: text.settings.role,
                cell: (user) =>
                  canWrite && user.id !== me ? (
                    <form method="post" action={`/console/settings/users/${user.id}/role`} class="actions">
                      <FormSecrets csrf={c.var.csrfToken} />
                      <label class="muted" for={`role-${user.id}`}>
                        {text.settings.roleOf(user.email)}
                      </label>
                      <select id={`role-${user.id}`} name="role" data-testid="user-role">
                        {roleOptions.map((option) => (
                          <option value={option.value} selected={option.value === user.role}>
                            {option.label}
                          </option>
                        ))}
                      </select>
                      <button type="submit" class="small secondary">
                        {text.save}
                      </button>
                    </form>
                  ) : (
                    text.roles[user.role]
                  ),
              },
              {
                label: text.settings.state,
                cell: (user) => (
                  <>
                    <Badge
                      tone={user.status === 'active' ? 'good' : user.status === 'invited' ? 'info' : 'warn'}
                    >
                      {text.settings.userStatus[user.status] ?? user.status}
                    </Badge>
                    {user.twoFactor ? <span class="hint">{text.settings.twoFactorOn}</span> : null}
                  </>
                ),
              },
              {
                label: text.settings.lastLogin,
                cell: (user) => (user.lastLoginAt ? when(user.lastLoginAt, tz, c.var.lang) : '—'),
              },
              {
                label: text.subscriptions.actions,
                cell: (user) =>
                  canWrite && user.id !== me ? (
                    <ActionButton
                      action={`/console/settings/users/${user.id}/remove`}
                      csrf={c.var.csrfToken}
                      label={text.settings.remove}
                      small
                      tone="danger"
                      testid="user-remove"
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

  const USER = '/settings/users/:id{[0-9a-zA-Z-]{1,64}}';
  console.get('/settings/users', (c) => usersPage(c));
  console.post('/settings/users', async (c) => {
    const form = await formOf(c);
    const answer = await callApi(c, {
      method: 'POST',
      path: '/api/users',
      body: {
        email: form.email?.trim() ?? '',
        role: form.role ?? '',
        ...(form.name?.trim() ? { name: form.name.trim() } : {}),
      },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return usersPage(c, { problem: answer.problem, form });
    return c.redirect('/console/settings/users?done=invited', 303);
  });
  console.post(`${USER}/role`, async (c) => {
    const form = await formOf(c);
    const answer = await callApi(c, {
      method: 'PATCH',
      path: `/api/users/${c.req.param('id')}`,
      body: { role: form.role ?? '' },
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return usersPage(c, { problem: answer.problem });
    return c.redirect('/console/settings/users?done=role', 303);
  });
  console.post(`${USER}/remove`, async (c) => {
    const form = await formOf(c);
    const answer = await callApi(c, {
      method: 'DELETE',
      path: `/api/users/${c.req.param('id')}`,
      idempotencyKey: idempotencyKeyOf(form),
    });
    if (!answer.ok) return usersPage(c, { problem: answer.problem });
    return c.redirect('/console/settings/users?done=removed', 303);
  });

  // ---- The audit log: its filters in the query string (bookmarkable), the days read on the merchant's clock
  const AUDIT_FILTERS = ['actorId', 'operationId', 'target', 'from', 'to'] as const;
  console.get('/settings/audit', async (c) => {
    const text = t(c);
    const filters = queryOf(c, AUDIT_FILTERS);
    const cursor = c.req.query('cursor');
    const tz = c.var.merchantProfile.timezone;
    // A day typed in the filter is the merchant's day: from its start, to the next day's start.
    const isDay = (date: string | undefined): date is string => /^\d{4}-\d{2}-\d{2}$/.test(date ?? '');
    const startOf = (date: string | undefined) =>
      isDay(date) ? instantOfLocalDateTime(`${date}T00:00`, tz)?.toISOString() : date;
    const [answer, users, tokens] = await Promise.all([
      callApi<{ entries: AuditEntry[]; nextCursor: string | null }>(c, {
        method: 'GET',
        path: withQuery('/api/audit-log', {
          actorId: filters.actorId,
          operationId: filters.operationId,
          target: filters.target,
          from: startOf(filters.from),
          to: startOf(isDay(filters.to) ? addDays(filters.to, 1) : filters.to),
          cursor,
          limit: 25,
        }),
      }),
      callApi<{ users: UserView[] }>(c, { method: 'GET', path: '/api/users' }),
      callApi<{ tokens: TokenView[] }>(c, { method: 'GET', path: '/api/api-tokens' }),
    ]);
    const actors = [
      { value: '', label: text.settings.anyone },
      ...(users.ok ? users.body.users : []).map((user) => ({
        value: user.id,
        label: `${text.settings.actorKind.user}: ${user.email}`,
      })),
      ...(tokens.ok ? tokens.body.tokens : []).map((token) => ({
        value: token.id,
        label: `${text.settings.actorKind.token}: ${token.name ?? text.developers.operatorToken} (${token.id.slice(0, 8)})`,
      })),
    ];
    return settingsPage(
      c,
      'audit',
      <>
        <p class="muted">{text.settings.auditHint}</p>
        <FilterForm action="/console/settings/audit" t={text}>
          <Select
            label={text.settings.actor}
            name="actorId"
            options={actors}
            value={filters.actorId ?? ''}
            id="audit-actor"
          />
          <FilterSelect
            label={text.settings.action}
            name="operationId"
            all={text.all}
            options={choices(WRITE_OPERATIONS)}
            value={filters.operationId}
            id="audit-operation"
          />
          <Field label={text.settings.target} name="target" value={filters.target} />
          <Field label={text.links.createdFrom} name="from" type="date" value={filters.from} />
          <Field label={text.links.createdTo} name="to" type="date" value={filters.to} />
        </FilterForm>
        <ListAnswer
          answer={answer}
          t={text}
          pager={{ path: '/console/settings/audit', filters, cursor }}
          list={(body) => (
            <DataTable
              rows={body.entries}
              empty={text.settings.noAudit}
              row={(entry) => ({
                'data-testid': 'audit-row',
                'data-id': entry.id,
                'data-operation': entry.operationId,
                'data-actor': entry.actor.label ?? entry.actor.id ?? entry.actor.type,
                'data-status': entry.status,
              })}
              columns={[
                {
                  label: text.developers.when,
                  cell: (entry) => (
                    <>
                      {when(entry.at, tz, c.var.lang)}
                      {entry.clientAddress ? <span class="hint mono">{entry.clientAddress}</span> : null}
                    </>
                  ),
                },
                { label: text.settings.actor, cell: (entry) => <ActorOf entry={entry} c={c} /> },
                {
                  label: text.settings.action,
                  cell: (entry) => (
                    <>
                      <span class="mono">{entry.operationId}</span>
                      {entry.status >= 400 ? (
                        <>
                          {' '}
                          <Badge tone="bad">{text.settings.refused(entry.status)}</Badge>
                        </>
                      ) : null}
                    </>
                  ),
                },
                {
                  label: text.settings.target,
                  cell: (entry) => <span class="mono">{entry.target ?? '—'}</span>,
                },
                { label: text.settings.change, cell: (entry) => <AuditChange entry={entry} c={c} /> },
              ]}
            />
          )}
        />
      </>,
      answer.ok ? 200 : problemStatus(answer.problem),
    );
  });

  // ---- The user's own account: language here; password and second factor on the sign-in's pages.
  console.get('/settings/account', (c) => {
    const text = t(c);
    const user = c.var.consoleUser;
    return settingsPage(
      c,
      'account',
      <>
        <DoneNotice text={c.req.query('done') === 'language' ? text.settings.languageSaved : undefined} />
        <section class="card" aria-labelledby="h-me">
          <h2 id="h-me">{text.settings.you}</h2>
          <dl class="facts">
            <dt>{text.settings.email}</dt>
            <dd>{user.email}</dd>
            {user.kind === 'merchant-user' ? (
              <>
                <dt>{text.settings.role}</dt>
                <dd>{text.roles[user.role]}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <section class="card" aria-labelledby="h-language">
          <h2 id="h-language">{text.settings.language}</h2>
          <form method="post" action="/console/language">
            <input type="hidden" name="csrf" value={c.var.csrfToken} />
            <input type="hidden" name="back" value="/console/settings/account?done=language" />
            <Select
              label={text.settings.language}
              name="lang"
              value={c.var.lang}
              options={[
                { value: 'es', label: 'Español' },
                { value: 'en', label: 'English' },
              ]}
              id="account-lang"
            />
            <button type="submit">{text.save}</button>
          </form>
        </section>
        <section class="card" aria-labelledby="h-security">
          <h2 id="h-security">{text.settings.security}</h2>
          <ul>
            <li>
              <a href={CONSOLE_AUTH_PATHS.password} data-testid="account-password">
                {text.settings.changePassword}
              </a>
            </li>
            <li>
              <a href={CONSOLE_AUTH_PATHS.twoFactor} data-testid="account-two-factor">
                {text.settings.twoFactor}
              </a>
            </li>
          </ul>
        </section>
      </>,
    );
  });
}
