/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { Messages } from './i18n';
import {
  type ApiResult,
  Cell,
  type Ctx,
  callApi,
  Pager,
  ProblemNotice,
  queryOf,
  Select,
  withQuery,
} from './kit';

// The parts every list page of the console is made of (links, subscriptions, payments, customers, the
// delivery log, the audit log, ...): one page of the API's list read with the query's filters and cursor, a
// filter form that keeps them in the URL, a table whose rows become cards on a phone, and what stands
// under the filters (the API's refusal, the table or its empty state, the next page).

/** One page of a list the API pages by cursor: the request's filters (blank ones left out) and cursor. */
export interface ListRead<B, K extends string> {
  filters: Partial<Record<K, string>>;
  cursor: string | undefined;
  answer: ApiResult<B>;
}

/** Reads one page of `apiPath` with the request's filters `names`, its `cursor` and `limit` rows. */
export async function readListPage<B, K extends string>(
  c: Ctx,
  apiPath: string,
  names: readonly K[],
  limit: number,
): Promise<ListRead<B, K>> {
  const filters = queryOf(c, names);
  const cursor = c.req.query('cursor');
  const answer = await callApi<B>(c, {
    method: 'GET',
    path: withQuery(apiPath, { ...filters, cursor, limit }),
  });
  return { filters, cursor, answer };
}

/**
 * A list's filters: its fields, then _Filter_ and _Clear_ (the list without filters). It asks with GET, so
 * the filtered list is a URL to bookmark or share.
 */
export function FilterForm(props: { action: string; t: Messages; children?: Child }) {
  return (
    <form class="filters card" method="get" action={props.action} data-testid="filter-form">
      {props.children}
      <div class="actions">
        <button type="submit">{props.t.filter}</button>
        <a href={props.action}>{props.t.clear}</a>
      </div>
    </form>
  );
}

/** The options of a choice: each value with its words (`labels[value]`), or as itself without `labels`. */
export function choices<V extends string>(
  values: readonly V[],
  labels?: Record<V, string>,
): Array<{ value: string; label: string }> {
  return values.map((value) => ({ value, label: labels ? labels[value] : value }));
}

/** A filter chosen among `options`, _All_ (no filter: the empty value) first. */
export function FilterSelect(props: {
  label: string;
  name: string;
  value: string | undefined;
  all: string;
  options: Array<{ value: string; label: string }>;
  id?: string;
}) {
  return (
    <Select
      label={props.label}
      name={props.name}
      value={props.value}
      id={props.id}
      options={[{ value: '', label: props.all }, ...props.options]}
    />
  );
}

/** A column of a `DataTable`: its heading (also each cell's label on a phone) and its cell of a row. */
export interface Column<T> {
  label: string;
  /** A number: right-aligned. */
  num?: boolean;
  cell: (row: T) => Child;
}

/**
 * A table of rows (`table.rows`: at 390 px each row a card whose cells say their column). `row` gives each
 * row's attributes (its `data-testid`, `data-id`, ...); with `empty`, a list without rows is those words
 * instead of a table.
 */
export function DataTable<T>(props: {
  rows: readonly T[];
  columns: ReadonlyArray<Column<T>>;
  row: (row: T) => Record<string, string | number | undefined>;
  caption?: string;
  /** The caption's class (`muted`: a quieter one). */
  captionClass?: string;
  empty?: string;
}) {
  if (props.empty !== undefined && props.rows.length === 0) return <p class="empty">{props.empty}</p>;
  return (
    <table class="rows">
      {props.caption ? <caption class={props.captionClass}>{props.caption}</caption> : null}
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th scope="col" class={column.num ? 'num' : undefined}>
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr {...props.row(row)}>
            {props.columns.map((column) => (
              <Cell label={column.label} num={column.num}>
                {column.cell(row)}
              </Cell>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * What a list page shows under its filters: the API's refusal (unless the page says it above, with its
 * own actions' refusals), else the list (`list`, the table or its empty state) and the link to the next
 * page with the same filters.
 */
export function ListAnswer<B extends { nextCursor: string | null }>(props: {
  answer: ApiResult<B>;
  t: Messages;
  list: (body: B) => Child;
  pager: { path: string; filters: Record<string, string | undefined>; cursor: string | undefined };
  /** The fields' names for the refusal's errors. */
  labels?: Record<string, string>;
  refusalSaidAbove?: boolean;
}) {
  const answer = props.answer;
  if (!answer.ok)
    return props.refusalSaidAbove ? null : (
      <ProblemNotice problem={answer.problem} t={props.t} labels={props.labels} />
    );
  return (
    <>
      {props.list(answer.body)}
      <Pager
        path={props.pager.path}
        filters={props.pager.filters}
        next={answer.body.nextCursor}
        t={props.t}
        first={!props.pager.cursor}
      />
    </>
  );
}
