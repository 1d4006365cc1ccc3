import { describe, expect, it } from 'vitest';
import { messages } from '../../src/adapters/http/console/pages/i18n';
import type { ApiResult } from '../../src/adapters/http/console/pages/kit';
import {
  choices,
  DataTable,
  FilterForm,
  FilterSelect,
  ListAnswer,
} from '../../src/adapters/http/console/pages/list-page';

// The parts of the console's list pages alone (the pages that use them: pages.test.ts, payments-pages.test.ts).

const es = messages('es');
const html = (element: unknown) => String(element);

interface Row {
  id: number;
  name: string;
  amount: string;
}
const columns = [
  { label: 'Nombre', cell: (row: Row) => row.name },
  { label: 'Monto', num: true, cell: (row: Row) => row.amount },
];

describe('DataTable', () => {
  it('a heading per column, a row per item with its hooks, each cell labelled with its column', () => {
    const table = html(
      DataTable({
        rows: [{ id: 1, name: 'Ana', amount: '10' }],
        columns,
        row: (row) => ({ 'data-testid': 'thing-row', 'data-id': String(row.id) }),
        caption: 'Cosas',
      }),
    );
    expect(table).toContain('<table class="rows"><caption>Cosas</caption>');
    expect(table).toContain('<th scope="col">Nombre</th><th scope="col" class="num">Monto</th>');
    expect(table).toContain('<tr data-testid="thing-row" data-id="1">');
    expect(table).toContain('<td data-label="Nombre"><div>Ana</div></td>');
    expect(table).toContain('<td data-label="Monto" class="num"><div>10</div></td>');
  });

  it('without rows: the empty words instead of a table, or an empty table when there are none', () => {
    const none = { rows: [] as Row[], columns, row: () => ({}) };
    expect(html(DataTable({ ...none, empty: 'Nada todavía' }))).toBe('<p class="empty">Nada todavía</p>');
    expect(html(DataTable(none))).toContain('<tbody></tbody>');
  });
});

describe('ListAnswer', () => {
  const pager = { path: '/console/things', filters: { q: 'ana' }, cursor: 'c-1' };
  const list = (body: { things: Row[]; nextCursor: string | null }) => `${body.things.length} cosas`;

  it('the list, then the next page with the same filters (and back to the first)', () => {
    const answer: ApiResult<{ things: Row[]; nextCursor: string | null }> = {
      ok: true,
      status: 200,
      body: { things: [], nextCursor: 'c-2' },
    };
    const shown = html(ListAnswer({ answer, t: es, list, pager }));
    expect(shown).toContain('0 cosas');
    expect(shown).toContain('href="/console/things?q=ana&amp;cursor=c-2"');
    expect(shown).toContain('href="/console/things?q=ana"');
  });

  it("the API's refusal instead of the list, unless the page says it above", () => {
    const answer: ApiResult<{ things: Row[]; nextCursor: string | null }> = {
      ok: false,
      status: 400,
      problem: { status: 400, code: 'VALIDATION', detail: 'no', errors: [{ path: 'q', message: 'mal' }] },
    };
    const shown = html(ListAnswer({ answer, t: es, list, pager, labels: { q: 'Buscar' } }));
    expect(shown).toContain('data-testid="form-problem"');
    expect(shown).toContain('<span class="mono">Buscar</span>: mal');
    expect(shown).not.toContain('cosas');
    expect(shown).not.toContain('class="pager"');
    expect(ListAnswer({ answer, t: es, list, pager, refusalSaidAbove: true })).toBeNull();
  });
});

describe('FilterForm and FilterSelect', () => {
  it('a GET form to the list, its fields, Filter and Clear (the list without filters)', () => {
    const form = html(
      FilterForm({
        action: '/console/things',
        t: es,
        children: FilterSelect({
          label: 'Estado',
          name: 'status',
          value: 'b',
          all: es.all,
          options: choices(['a', 'b'] as const, { a: 'Uno', b: 'Dos' }),
        }),
      }),
    );
    expect(form).toContain(
      '<form class="filters card" method="get" action="/console/things" data-testid="filter-form">',
    );
    expect(form).toContain(`<option value="">${es.all}</option>`);
    expect(form).toMatch(/<option value="b" selected[^>]*>Dos<\/option>/);
    expect(form).toContain(`<a href="/console/things">${es.clear}</a>`);
  });

  it('choices: each value with its words, or as itself', () => {
    expect(choices(['x', 'y'])).toEqual([
      { value: 'x', label: 'x' },
      { value: 'y', label: 'y' },
    ]);
  });
});
