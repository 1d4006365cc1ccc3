/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { randomUUID } from 'node:crypto';
import { formatMoney } from '@payrail/money';
import { localDate, localDateTime } from '@payrail/time';
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ConsoleApiRequest, ConsoleLanguage, ConsoleUser, ConsoleVariables } from '../console-context';
import { type Messages, messages } from './i18n';
import { htmlDocument, Layout, type Section } from './layout';

/** The merchant's profile as `GET /api/merchant` answers it (what the pages need of it). */
export interface MerchantProfile {
  id: string;
  name: string;
  instance: 'NATIONAL' | 'INTERNATIONAL';
  currency: string;
  saasContract: boolean;
  noLoginEnabled: boolean;
  callbackUrl: string | null;
  timezone: string;
  processors: string[];
}

export type ConsoleEnv = {
  Variables: ConsoleVariables & {
    /** Set by the pages for a merchant user: its merchant's profile, read once per request. */
    merchantProfile: MerchantProfile;
    /** The language of this request: the signed-in user's. */
    lang: ConsoleLanguage;
  };
};
export type Ctx = Context<ConsoleEnv>;

/** A problem+json answer of the API (RFC 9457 with the code and the fields' errors). */
export interface Problem {
  status: number;
  code: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

export type ApiResult<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; problem: Problem };

/**
 * One call of the public API as the signed-in user (`consoleApi`): its JSON body when it succeeded, else
 * the problem it answered.
 */
export async function callApi<T>(c: Ctx, request: ConsoleApiRequest): Promise<ApiResult<T>> {
  const response = await c.var.consoleApi.call(request);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (response.status < 300) return { ok: true, status: response.status, body: body as T };
  const problem = (body ?? {}) as Partial<Problem>;
  return {
    ok: false,
    status: response.status,
    problem: {
      status: response.status,
      code: problem.code ?? `HTTP_${response.status}`,
      detail: problem.detail ?? text.slice(0, 300),
      errors: Array.isArray(problem.errors) ? problem.errors : [],
    },
  };
}

/** The page's status for a refused action: the API's where a page may answer it, else 502. */
export function problemStatus(problem: Problem): 400 | 403 | 404 | 409 | 422 | 502 {
  const status = problem.status;
  return status === 400 || status === 403 || status === 404 || status === 409 || status === 422
    ? status
    : 502;
}

/** A read the page cannot do without: its failure is the page's answer (404, 403, ...). */
export class PageRefused extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

export async function read<T>(c: Ctx, path: string): Promise<T> {
  const answer = await callApi<T>(c, { method: 'GET', path });
  if (!answer.ok) throw new PageRefused(answer.problem);
  return answer.body;
}

export const t = (c: Ctx): Messages => messages(c.var.lang);

/** The page's path and query (where a form or the language switch comes back to). */
export function here(c: Ctx): string {
  const url = new URL(c.req.url);
  return `${url.pathname}${url.search}`;
}

export interface PageOptions {
  title: string;
  section: Section;
  status?: 200 | 400 | 403 | 404 | 409 | 422 | 500 | 502 | 503;
}

/** A whole page in the console's layout. */
export function page(c: Ctx, options: PageOptions, body: Child): Response {
  const user = c.var.consoleUser;
  return c.html(
    htmlDocument(
      <Layout
        lang={c.var.lang}
        user={user}
        csrf={c.var.csrfToken}
        merchantName={user.kind === 'merchant-user' ? c.var.merchantProfile?.name : undefined}
        title={options.title}
        section={options.section}
        back={here(c)}
      >
        {body}
      </Layout>,
    ),
    options.status ?? 200,
  );
}

// ---------------------------------------------------------------------------------------------------
// Values as the merchant reads them: money in its currency and the user's language, dates and times in
// the merchant's time zone.

export function Money(props: {
  amount: string | number | null | undefined;
  currency: string;
  lang: ConsoleLanguage;
}) {
  if (props.amount === null || props.amount === undefined) return <span>—</span>;
  return <span class="money">{formatMoney(props.amount, props.currency, props.lang)}</span>;
}

/** An instant (`2026-11-23T12:00:00.000Z` or with an offset) as `2026-11-23 09:00` in the zone. */
export function when(instant: string | null | undefined, timezone: string, lang: ConsoleLanguage): string {
  if (!instant) return '—';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  const local = localDateTime(date, timezone);
  return `${day(local.slice(0, 10), lang)} ${local.slice(11, 16)}`;
}

/** A calendar day (`yyyy-MM-dd`) as the user reads it. */
export function day(date: string | null | undefined, lang: ConsoleLanguage): string {
  if (!date) return '—';
  const [year, month, dayOfMonth] = date.split('-');
  if (!year || !month || !dayOfMonth) return date;
  return lang === 'es' ? `${dayOfMonth}/${month}/${year}` : `${year}-${month}-${dayOfMonth}`;
}

/** Today in the merchant's time zone. */
export function todayIn(timezone: string, now: Date): string {
  return localDate(now, timezone);
}

export type Tone = 'good' | 'bad' | 'warn' | 'info' | undefined;
export function Badge(props: { tone?: Tone; children?: Child; testid?: string; status?: string }) {
  return (
    <span class="badge" data-tone={props.tone} data-testid={props.testid} data-status={props.status}>
      {props.children}
    </span>
  );
}

// ---------------------------------------------------------------------------------------------------
// Forms: every one posts the CSRF token and an idempotency key of its own (a double submit acts once).

export function FormSecrets(props: { csrf: string }) {
  return (
    <>
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="idem" value={randomUUID()} />
    </>
  );
}

/** The posted form's text fields (files and repeated names ignored). */
export async function formOf(c: Ctx): Promise<Record<string, string>> {
  const body = await c.req.parseBody().catch(() => ({}));
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') fields[name] = value;
  return fields;
}

/** Whether the user ticked the confirmation of a step that cannot be undone. */
export const confirmed = (form: Record<string, string>) => form.confirm === 'yes';

/** The refusal of a step whose confirmation box was not ticked (a form crafted without it). */
export function confirmationProblem(c: Ctx): Problem {
  return {
    status: 400,
    code: 'CONFIRMATION_REQUIRED',
    detail: t(c).problems.codes.CONFIRMATION_REQUIRED,
    errors: [],
  };
}

/** The form's own idempotency key, when it is one we made (a UUID). */
export function idempotencyKeyOf(form: Record<string, string>): string | undefined {
  const key = form.idem;
  return key && /^[0-9a-f-]{36}$/i.test(key) ? `console-${key}` : undefined;
}

/** What went wrong with the last submission, in the user's words, with each field's error. */
export function ProblemNotice(props: {
  problem: Problem | undefined;
  t: Messages;
  labels?: Record<string, string>;
}) {
  const problem = props.problem;
  if (!problem) return null;
  const headline =
    problem.status === 403
      ? props.t.problems.forbidden
      : problem.status === 400 && problem.code !== 'CONFIRMATION_REQUIRED'
        ? props.t.problems.invalid
        : (props.t.problems.codes[problem.code as keyof Messages['problems']['codes']] ?? problem.detail);
  return (
    <div class="notice error" role="alert" data-testid="form-problem" data-code={problem.code}>
      <strong>{headline}</strong>
      {problem.status !== 400 && headline !== problem.detail ? <p class="muted">{problem.detail}</p> : null}
      {problem.errors.length > 0 ? (
        <ul>
          {problem.errors.map((error) => (
            <li>
              <span class="mono">{props.labels?.[error.path] ?? error.path}</span>: {error.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A notice after a redirect (`?done=...`): what the last action did. */
export function DoneNotice(props: { text: string | undefined }) {
  if (!props.text) return null;
  return (
    <div class="notice ok" role="status" data-testid="done-notice">
      {props.text}
    </div>
  );
}

/** Builds a path with a query, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The request's query values for these names (blank ones left out). */
export function queryOf<K extends string>(c: Ctx, names: readonly K[]): Partial<Record<K, string>> {
  const found: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = c.req.query(name)?.trim();
    if (value) found[name] = value;
  }
  return found;
}

/** The "next page" link of a list paged by cursor: the same filters, the next cursor. */
export function Pager(props: {
  path: string;
  filters: Record<string, string | undefined>;
  cursorName?: string;
  next: string | null | undefined;
  t: Messages;
  first?: boolean;
}) {
  return (
    <div class="pager">
      {props.first === false ? (
        <a href={withQuery(props.path, { ...props.filters, [props.cursorName ?? 'cursor']: undefined })}>
          {props.t.firstPage}
        </a>
      ) : null}
      {props.next ? (
        <a
          class="button secondary"
          data-testid="next-page"
          href={withQuery(props.path, { ...props.filters, [props.cursorName ?? 'cursor']: props.next })}
        >
          {props.t.nextPage}
        </a>
      ) : null}
    </div>
  );
}

/** A page's heading (or a tab's, `level` 2) with what stands beside it: its main action, its status. */
export function PageHead(props: { title: Child; level?: 1 | 2; mono?: boolean; children?: Child }) {
  const cls = props.mono ? 'mono' : undefined;
  return (
    <div class="pagehead">
      {props.level === 2 ? <h2 class={cls}>{props.title}</h2> : <h1 class={cls}>{props.title}</h1>}
      {props.children}
    </div>
  );
}

/** The tabs of a section (developers, settings): links in a `nav`, the page's own marked current. */
export function Tabs(props: {
  label: string;
  tabs: Array<{ href: string; label: string; testid: string; current: boolean }>;
}) {
  return (
    <nav aria-label={props.label}>
      <ul class="tabs">
        {props.tabs.map((tab) => (
          <li>
            <a href={tab.href} aria-current={tab.current ? 'page' : undefined} data-testid={tab.testid}>
              {tab.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A cell of a row table: its column's name for the one-column layout of a phone. */
export function Cell(props: { label: string; num?: boolean; children?: Child }) {
  return (
    <td data-label={props.label} class={props.num ? 'num' : undefined}>
      <div>{props.children}</div>
    </td>
  );
}

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  value?: string | number | null;
  hint?: string;
  required?: boolean;
  testid?: string;
  min?: string | number;
  max?: string | number;
  step?: string;
  inputmode?: 'decimal' | 'numeric' | 'email' | 'tel' | 'url' | 'text' | 'search';
  autocomplete?: string;
  placeholder?: string;
}) {
  const id = `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>
        {props.label}
        {props.hint ? <span class="hint">{props.hint}</span> : null}
      </label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value === null || props.value === undefined ? '' : String(props.value)}
        required={props.required}
        data-testid={props.testid}
        min={props.min}
        max={props.max}
        step={props.step}
        inputmode={props.inputmode}
        autocomplete={props.autocomplete ?? 'off'}
        placeholder={props.placeholder}
      />
    </div>
  );
}

export function Select(props: {
  label: string;
  name: string;
  options: Array<{ value: string; label: string }>;
  value?: string;
  testid?: string;
  id?: string;
}) {
  const id = props.id ?? `f-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} data-testid={props.testid}>
        {props.options.map((option) => (
          <option value={option.value} selected={option.value === (props.value ?? '')}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A one-button form posting to `action` (cancel, retry, revoke, ...). */
export function ActionButton(props: {
  action: string;
  csrf: string;
  label: string;
  testid?: string;
  tone?: 'danger' | 'secondary';
  small?: boolean;
  hidden?: Record<string, string>;
  /** A step that cannot be undone: a box to tick first (`confirm=yes`, checked again by the handler). */
  confirm?: string;
}) {
  return (
    <form method="post" action={props.action}>
      <FormSecrets csrf={props.csrf} />
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {props.confirm ? (
        <label class="check confirm">
          <input
            type="checkbox"
            name="confirm"
            value="yes"
            required
            data-testid={`${props.testid ?? 'action'}-confirm`}
          />
          <span>{props.confirm}</span>
        </label>
      ) : null}
      <button
        type="submit"
        class={[props.tone, props.small ? 'small' : undefined].filter(Boolean).join(' ') || undefined}
        data-testid={props.testid}
      >
        {props.label}
      </button>
    </form>
  );
}

export type { ConsoleUser };
