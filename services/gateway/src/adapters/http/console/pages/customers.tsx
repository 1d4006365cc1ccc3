/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PaymentLinkDetails } from '@payrail/contracts';
import type { Hono } from 'hono';
import {
  Cell,
  type ConsoleEnv,
  callApi,
  Field,
  Money,
  Pager,
  ProblemNotice,
  page,
  problemStatus,
  queryOf,
  read,
  t,
  when,
  withQuery,
} from './kit';
import { LinkStatusBadge } from './links';

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
    const filters = queryOf(c, ['q'] as const);
    const cursor = c.req.query('cursor');
    const answer = await callApi<{ customers: CustomerView[]; nextCursor: string | null }>(c, {
      method: 'GET',
      path: withQuery('/api/customers', { ...filters, cursor, limit: 25 }),
    });
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
        <form class="filters card" method="get" action="/console/customers" data-testid="filter-form">
          <Field
            label={text.links.search}
            name="q"
            type="search"
            value={filters.q}
            hint={text.customers.searchHint}
          />
          <div class="actions">
            <button type="submit">{text.filter}</button>
            <a href="/console/customers">{text.clear}</a>
          </div>
        </form>
        {!answer.ok ? <ProblemNotice problem={answer.problem} t={text} /> : null}
        {answer.ok && answer.body.customers.length === 0 ? <p class="empty">{text.customers.none}</p> : null}
        {answer.ok && answer.body.customers.length > 0 ? (
          <table class="rows">
            <thead>
              <tr>
                <th scope="col">{text.customers.name}</th>
                <th scope="col">{text.customers.identity}</th>
                <th scope="col">{text.links.created}</th>
              </tr>
            </thead>
            <tbody>
              {answer.body.customers.map((customer) => (
                <tr data-testid="customer-row" data-id={String(customer.id)}>
                  <Cell label={text.customers.name}>
                    <a href={`/console/customers/${customer.id}`}>{customerName(customer)}</a>
                  </Cell>
                  <Cell label={text.customers.identity}>
                    {customer.email ?? `${text.fields.documentNumber}: ${customer.documentNumber ?? '—'}`}
                  </Cell>
                  <Cell label={text.links.created}>{when(customer.createTime, tz, c.var.lang)}</Cell>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {answer.ok ? (
          <Pager
            path="/console/customers"
            filters={filters}
            next={answer.body.nextCursor}
            t={text}
            first={!cursor}
          />
        ) : null}
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
          {customer.payRequests.length === 0 ? (
            <p class="empty">{text.links.none}</p>
          ) : (
            <table class="rows">
              <thead>
                <tr>
                  <th scope="col">{text.links.id}</th>
                  <th scope="col">{text.fields.label}</th>
                  <th scope="col" class="num">
                    {text.fields.amount}
                  </th>
                  <th scope="col">{text.links.status}</th>
                  <th scope="col">{text.links.subscription}</th>
                </tr>
              </thead>
              <tbody>
                {customer.payRequests.map((link) => (
                  <tr data-testid="link-row" data-id={String(link.id)}>
                    <Cell label={text.links.id}>
                      <a href={`/console/links/${link.id}`}>#{link.id}</a>
                    </Cell>
                    <Cell label={text.fields.label}>{link.label}</Cell>
                    <Cell label={text.fields.amount} num>
                      <Money amount={link.amount} currency={link.currency} lang={lang} />
                    </Cell>
                    <Cell label={text.links.status}>
                      <LinkStatusBadge statusId={link.statusId} c={c} />
                    </Cell>
                    <Cell label={text.links.subscription}>
                      {link.recurrentPayment ? (
                        <a href={withQuery('/console/subscriptions', { payRequestId: link.id })}>
                          {text.customers.itsSubscription}
                        </a>
                      ) : (
                        '—'
                      )}
                    </Cell>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </>,
    );
  });
}
