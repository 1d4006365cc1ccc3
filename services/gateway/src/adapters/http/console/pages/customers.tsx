/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PaymentLinkDetails } from '@payrail/contracts';
import type { Hono } from 'hono';
import { type ConsoleEnv, Field, Money, page, problemStatus, read, t, when, withQuery } from './kit';
import { LinkStatusBadge } from './links';
import { DataTable, FilterForm, ListAnswer, readListPage } from './list-page';

/** Who the customer is, in words: their name, else their e-mail, else their document number. */
export function customerName(customer: {
  firstName: string;
  lastName: string;
  email: string | null;
  documentNumber: string | null;
}): string {
  return (
    `${customer.firstName} ${customer.lastName}`.trim() || customer.email || customer.documentNumber || '—'
  );
}

/** `GET /api/customers` (links' customers: who signed in on the pay page, or was a signed-in user). */
interface CustomerView {
  id: number;
  email: string | null;
  documentNumber: string | null;
  firstName: string;
  lastName: string;
  status: 'active' | 'inactive';
  createTime: string;
}
interface SavedCard {
  paymentMethodId: string;
  processor: string;
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
}

export function customersPages(console: Hono<ConsoleEnv>) {
  console.get('/customers', async (c) => {
    const text = t(c);
    const { filters, cursor, answer } = await readListPage<
      { customers: CustomerView[]; nextCursor: string | null },
      'q'
    >(c, '/api/customers', ['q'], 25);
    const tz = c.var.merchantProfile.timezone;
    return page(
      c,
      {
        title: text.nav.customers,
        section: 'customers',
        status: answer.ok ? 200 : problemStatus(answer.problem),
      },
      <>
        <h1>{text.customers.title}</h1>
        <p class="muted">{text.customers.intro}</p>
        <FilterForm action="/console/customers" t={text}>
          <Field
            label={text.links.search}
            name="q"
            type="search"
            value={filters.q}
            hint={text.customers.searchHint}
          />
        </FilterForm>
        <ListAnswer
          answer={answer}
          t={text}
          pager={{ path: '/console/customers', filters, cursor }}
          list={(body) => (
            <DataTable
              rows={body.customers}
              empty={text.customers.none}
              row={(customer) => ({ 'data-testid': 'customer-row', 'data-id': String(customer.id) })}
              columns={[
                {
                  label: text.customers.name,
                  cell: (customer) => (
                    <a href={`/console/customers/${customer.id}`}>{customerName(customer)}</a>
                  ),
                },
                {
                  label: text.customers.identity,
                  cell: (customer) =>
                    customer.email ?? `${text.fields.documentNumber}: ${customer.documentNumber ?? '—'}`,
                },
                { label: text.links.created, cell: (customer) => when(customer.createTime, tz, c.var.lang) },
              ]}
            />
          )}
        />
      </>,
    );
  });

  console.get('/customers/:id{[0-9]+}', async (c) => {
    const text = t(c);
    const lang = c.var.lang;
    const customer = await read<
      CustomerView & { payRequests: PaymentLinkDetails[]; savedCards: SavedCard[] | null }
    >(c, `/api/customers/${c.req.param('id')}`);
    const tz = c.var.merchantProfile.timezone;
    return page(
      c,
      { title: customerName(customer), section: 'customers' },
      <>
        <p>
          <a href="/console/customers">← {text.customers.title}</a>
        </p>
        <h1>{customerName(customer)}</h1>
        <section class="card">
          <dl class="facts">
            <dt>{text.settings.email}</dt>
            <dd>{customer.email ?? '—'}</dd>
            <dt>{text.fields.documentNumber}</dt>
            <dd>{customer.documentNumber ?? '—'}</dd>
            <dt>{text.links.created}</dt>
            <dd>{when(customer.createTime, tz, c.var.lang)}</dd>
          </dl>
        </section>
        <section class="card" aria-labelledby="h-cards">
          <h2 id="h-cards">{text.customers.cards}</h2>
          {customer.savedCards === null ? (
            <p class="muted">{text.customers.cardsUnavailable}</p>
          ) : customer.savedCards.length === 0 ? (
            <p class="muted">{text.customers.noCards}</p>
          ) : (
            <ul>
              {customer.savedCards.map((card) => (
                <li data-testid="customer-card">
                  {card.brand} •••• {card.last4} · {String(card.expiryMonth).padStart(2, '0')}/
                  {card.expiryYear} ·{' '}
                  {text.processors[card.processor as 'PARAGUAY.PROCESSOR_A'] ?? card.processor}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="h-their-links">
          <h2 id="h-their-links">{text.customers.links}</h2>
          <DataTable
            rows={customer.payRequests}
            empty={text.links.none}
            row={(link) => ({ 'data-testid': 'link-row', 'data-id': String(link.id) })}
            columns={[
              { label: text.links.id, cell: (link) => <a href={`/console/links/${link.id}`}>#{link.id}</a> },
              { label: text.fields.label, cell: (link) => link.label },
              {
                label: text.fields.amount,
                num: true,
                cell: (link) => <Money amount={link.amount} currency={link.currency} lang={lang} />,
              },
              {
                label: text.links.status,
                cell: (link) => <LinkStatusBadge statusId={link.statusId} c={c} />,
              },
              {
                label: text.links.subscription,
                cell: (link) =>
                  link.recurrentPayment ? (
                    <a href={withQuery('/console/subscriptions', { payRequestId: link.id })}>
                      {text.customers.itsSubscription}
                    </a>
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
        </section>
      </>,
    );
  });
}
