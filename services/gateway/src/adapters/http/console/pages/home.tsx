/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { MoneySection, RecoveredTile, readMoneyFigures } from './home-money';
import { type ConsoleEnv, Money, page, read, t, withQuery } from './kit';

/** `GET /api/subscriptions/summary`. */
export interface SubscriptionSummary {
  counts: Record<'pending' | 'active' | 'past_due' | 'completed' | 'cancelled', number>;
  upcoming: {
    from: string;
    to: string;
    installments: number;
    amounts: Array<{ currency: string; amount: string }>;
  };
}
/** `GET /api/payrequests/summary`. */
export interface LinkSummary {
  counts: Record<'pending' | 'rejected' | 'expired' | 'cancelled' | 'paid', number>;
}

/**
 * Home: what the API tells today (subscriptions active and past due, the next 7 days' scheduled debits,
 * links by status) and the money of the last 30 days from the payments report (`home-money.tsx`): three
 * calls of the public API, made at once.
 */
export function homePage(console: Hono<ConsoleEnv>) {
  console.get('/', async (c) => {
    const text = t(c);
    const lang = c.var.lang;
    const [subscriptions, links, money] = await Promise.all([
      read<SubscriptionSummary>(c, '/api/subscriptions/summary?days=7'),
      read<LinkSummary>(c, '/api/payrequests/summary'),
      readMoneyFigures(c),
    ]);
    const upcoming = subscriptions.upcoming;
    return page(
      c,
      { title: text.nav.home, section: 'home' },
      <>
        <h1>{text.home.title}</h1>
        <MoneySection figures={money} lang={lang} />
        <section aria-labelledby="h-subs">
          <h2 id="h-subs">{text.home.subscriptions}</h2>
          <div class="tiles">
            <a
              class="tile"
              href={withQuery('/console/subscriptions', { status: 'active' })}
              data-testid="home-active"
            >
              <span class="label">{text.home.active}</span>
              <span class="value">{subscriptions.counts.active}</span>
            </a>
            <a
              class="tile"
              href={withQuery('/console/subscriptions', { status: 'past_due' })}
              data-testid="home-past-due"
            >
              <span class="label">{text.home.pastDue}</span>
              <span class="value">{subscriptions.counts.past_due}</span>
            </a>
            {money ? <RecoveredTile figures={money} lang={lang} /> : null}
            <div class="tile" data-testid="home-upcoming">
              <span class="label">{text.home.upcoming}</span>
              <span class="value">{upcoming.installments}</span>
              <span class="sub">
                {upcoming.amounts.length === 0
                  ? text.home.nothingScheduled
                  : upcoming.amounts.map((sum, index) => (
                      <>
                        {index > 0 ? ' + ' : ''}
                        <Money amount={sum.amount} currency={sum.currency} lang={lang} />
                      </>
                    ))}
              </span>
            </div>
          </div>
        </section>
        <section aria-labelledby="h-links">
          <h2 id="h-links">{text.home.links}</h2>
          <div class="tiles">
            {(['pending', 'rejected', 'paid', 'expired', 'cancelled'] as const).map((status) => (
              <a
                class="tile"
                href={withQuery('/console/links', { status })}
                data-testid={`home-links-${status}`}
              >
                <span class="label">{text.linkStatus[status]}</span>
                <span class="value">{links.counts[status]}</span>
              </a>
            ))}
          </div>
        </section>
        <div class="actions">
          <a class="button" href="/console/links/new">
            {text.links.create}
          </a>
        </div>
      </>,
    );
  });
}
