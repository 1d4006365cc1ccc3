/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { ReportSummaryResponse } from '@payrail/contracts';
import { formatAmount, formatMoney, parseAmount } from '@payrail/money';
import { addDays } from '@payrail/time';
import type { ConsoleLanguage } from '../console-context';
import { type Ctx, callApi, day, Money, todayIn, withQuery } from './kit';
import { type PaymentsMessages, paymentsMessages } from './payments-i18n';

/**
 * Home's money figures (issue 28): collected today, in the last 7 and 30 days, refunded, declined and
 * recovered by retries in 30 days, and a chart of what was collected each of the last 30 days, drawn here
 * as SVG. One call of the public API: `GET /api/reports/summary` of the 30 days (today and the 29 before
 * it, the merchant's days) per day, whatever the size of the ledger (its days that are over come from its
 * daily totals). Amounts are the merchant's currency's; declined attempts and recoveries of every currency.
 */

export interface MoneyFigures {
  currency: string;
  today: string;
  /** The 30 days, oldest first, with what was collected on each (the merchant's currency). */
  days: Array<{ date: string; collected: bigint }>;
  collectedToday: bigint;
  collected7: bigint;
  collected30: bigint;
  refunded30: bigint;
  declined30: number;
  recovered30: number;
}

/** The report's path of the 30 days that end `today`. */
export const moneyReportPath = (today: string) =>
  withQuery('/api/reports/summary', { from: addDays(today, -29), to: today, groupBy: 'day' });

/** Home's figures from the report of the 30 days ending `today` (its periods are those days). */
export function figuresOf(report: ReportSummaryResponse, today: string, currency: string): MoneyFigures {
  const first = addDays(today, -29);
  const weekStart = addDays(today, -6);
  const byDay = new Map<string, bigint>();
  for (let index = 0; index < 30; index++) byDay.set(addDays(first, index), 0n);
  const figures: MoneyFigures = {
    currency,
    today,
    days: [],
    collectedToday: 0n,
    collected7: 0n,
    collected30: 0n,
    refunded30: 0n,
    declined30: 0,
    recovered30: 0,
  };
  for (const entry of report.currencies) {
    figures.declined30 += entry.declinedAttempts;
    figures.recovered30 += entry.recoveredInstallments;
    if (entry.currency !== currency) continue;
    figures.collected30 = parseAmount(entry.collected);
    figures.refunded30 = parseAmount(entry.refunded);
    for (const period of entry.periods) {
      if (!byDay.has(period.period)) continue;
      const collected = parseAmount(period.collected);
      byDay.set(period.period, collected);
      if (period.period >= weekStart) figures.collected7 += collected;
      if (period.period === today) figures.collectedToday = collected;
    }
  }
  figures.days = [...byDay.entries()].map(([date, collected]) => ({ date, collected }));
  return figures;
}

/** The report as the signed-in user; undefined when the API refused or is down. */
export async function readMoneyFigures(c: Ctx): Promise<MoneyFigures | undefined> {
  const profile = c.var.merchantProfile;
  const today = todayIn(profile.timezone, new Date());
  const answer = await callApi<ReportSummaryResponse>(c, { method: 'GET', path: moneyReportPath(today) });
  if (!answer.ok) return undefined;
  return figuresOf(answer.body, today, profile.currency);
}

const money = (minor: bigint, currency: string, lang: ConsoleLanguage) =>
  formatMoney(formatAmount(minor), currency, lang);

/** The tiles and the chart, or a note that the ledger did not answer. */
export function MoneySection(props: { figures: MoneyFigures | undefined; lang: ConsoleLanguage }) {
  const text = paymentsMessages(props.lang);
  const figures = props.figures;
  if (!figures) {
    return (
      <section aria-labelledby="h-money">
        <h2 id="h-money">{text.home.money}</h2>
        <p class="notice" role="status">
          {text.home.unavailable}
        </p>
      </section>
    );
  }
  const currency = figures.currency;
  const amount = (minor: bigint) => (
    <Money amount={formatAmount(minor)} currency={currency} lang={props.lang} />
  );
  const paymentsFrom = (days: number, extra: Record<string, string> = {}) =>
    withQuery('/console/payments', { createdFrom: addDays(figures.today, -(days - 1)), ...extra });
  return (
    <section aria-labelledby="h-money">
      <h2 id="h-money">{text.home.money}</h2>
      <div class="tiles">
        <a class="tile" href={paymentsFrom(1, { status: 'succeeded' })} data-testid="home-collected">
          <span class="label">{text.home.collectedToday}</span>
          <span
            class="value"
            data-testid="home-collected-today"
            data-amount={formatAmount(figures.collectedToday)}
          >
            {amount(figures.collectedToday)}
          </span>
        </a>
        <a class="tile" href={paymentsFrom(7, { status: 'succeeded' })} data-testid="home-collected-7">
          <span class="label">{text.home.collected7}</span>
          <span class="value" data-amount={formatAmount(figures.collected7)}>
            {amount(figures.collected7)}
          </span>
        </a>
        <a class="tile" href={paymentsFrom(30, { status: 'succeeded' })} data-testid="home-collected-30">
          <span class="label">{text.home.collected30}</span>
          <span class="value" data-amount={formatAmount(figures.collected30)}>
            {amount(figures.collected30)}
          </span>
        </a>
        <a
          class="tile"
          href={paymentsFrom(30, { kind: 'REFUND', status: 'succeeded' })}
          data-testid="home-refunded"
        >
          <span class="label">{text.home.refunded30}</span>
          <span class="value" data-amount={formatAmount(figures.refunded30)}>
            {amount(figures.refunded30)}
          </span>
        </a>
        <a class="tile" href={paymentsFrom(30, { status: 'declined' })} data-testid="home-declined">
          <span class="label">{text.home.declined30}</span>
          <span class="value" data-count={String(figures.declined30)}>
            {figures.declined30}
          </span>
        </a>
      </div>
      <CollectedChart figures={figures} lang={props.lang} text={text} />
      <p class="muted" data-testid="home-money-note">
        {text.home.fromReport}
      </p>
    </section>
  );
}

/**
 * Installments recovered by retries in the 30 days (the report's, every currency): shown among the
 * subscriptions' tiles, whose installments they are.
 */
export function RecoveredTile(props: { figures: MoneyFigures; lang: ConsoleLanguage }) {
  const text = paymentsMessages(props.lang);
  return (
    <div class="tile" data-testid="home-recovered">
      <span class="label">{text.home.recovered30}</span>
      <span class="value" data-count={String(props.figures.recovered30)}>
        {props.figures.recovered30}
      </span>
      <span class="sub">{text.home.recoveredHint}</span>
    </div>
  );
}

/** `27/11` (es) or `11-27` (en): the chart's axis. */
const shortDay = (date: string, lang: ConsoleLanguage) =>
  lang === 'es' ? `${date.slice(8, 10)}/${date.slice(5, 7)}` : date.slice(5, 10);

const WIDTH = 600;
const HEIGHT = 180;
const AXIS = 22;
const TOP = 8;

/**
 * Collected per day, 30 bars, drawn here (no script, no style attribute: presentation attributes only, as
 * the CSP allows). Its text alternative says the total and the best day; each bar's title its day and sum.
 */
export function CollectedChart(props: {
  figures: MoneyFigures;
  lang: ConsoleLanguage;
  text: PaymentsMessages;
}) {
  const { figures, lang, text } = props;
  const currency = figures.currency;
  const best = figures.days.reduce(
    (found, entry) => (entry.collected > found.collected ? entry : found),
    figures.days[0] ?? { date: figures.today, collected: 0n },
  );
  const max = best.collected;
  const summary =
    max === 0n
      ? text.home.chartEmpty
      : text.home.chartSummary(
          money(figures.collected30, currency, lang),
          money(best.collected, currency, lang),
          day(best.date, lang),
        );
  const slot = WIDTH / figures.days.length;
  const plot = HEIGHT - AXIS - TOP;
  // Bar heights as integers of the plot's pixels, from bigint sums (no float of money).
  const heightOf = (collected: bigint) => (max === 0n ? 0 : Number((collected * BigInt(plot)) / max));
  return (
    <figure class="card chart" data-testid="home-chart" aria-labelledby="chart-title">
      <figcaption id="chart-title">
        <strong>{text.home.chartTitle}</strong>
        <span class="hint" data-testid="home-chart-summary">
          {summary}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${text.home.chartTitle}. ${summary}`}>
        <line x1="0" y1={HEIGHT - AXIS} x2={WIDTH} y2={HEIGHT - AXIS} stroke="#6b7280" stroke-width="1" />
        {figures.days.map((entry, index) => {
          const height = heightOf(entry.collected);
          const x = index * slot;
          return (
            <g>
              <rect
                x={(x + slot * 0.15).toFixed(1)}
                y={HEIGHT - AXIS - height}
                width={(slot * 0.7).toFixed(1)}
                height={height}
                fill={entry.date === figures.today ? '#b45309' : '#0b4f8a'}
                data-date={entry.date}
                data-amount={formatAmount(entry.collected)}
              >
                <title>{`${day(entry.date, lang)}: ${money(entry.collected, currency, lang)}`}</title>
              </rect>
              {(figures.days.length - 1 - index) % 7 === 0 ? (
                <text
                  x={index === figures.days.length - 1 ? WIDTH : (x + slot / 2).toFixed(1)}
                  y={HEIGHT - 6}
                  text-anchor={index === figures.days.length - 1 ? 'end' : 'middle'}
                  font-size="11"
                  fill="#374151"
                >
                  {shortDay(entry.date, lang)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
