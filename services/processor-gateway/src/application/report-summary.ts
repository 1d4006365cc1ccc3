import {
  type Currency,
  type MerchantContext,
  REPORT_MAX_DAYS,
  type ReportSummaryQuery,
  type ReportSummaryResponse,
} from '@payrail/contracts';
import { formatAmount, parseAmount } from '@payrail/money';
import { addDays, type Clock, type IsoDate, localDate, startOfLocalDay } from '@payrail/time';
import { ReportRangeInvalid } from '../domain/errors';
import type { LedgerStore, SummaryRow } from '../ports/ledger-store';
import type { SubscriptionStates } from '../ports/subscription-states';

type Figures = Omit<SummaryRow, 'currency' | 'period'>;

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** Adds two sets of figures; money in minor units (libs/money), never a float. */
function add(a: Figures, b: Figures): Figures {
  return {
    collected: formatAmount(parseAmount(a.collected) + parseAmount(b.collected)),
    refunded: formatAmount(parseAmount(a.refunded) + parseAmount(b.refunded)),
    declinedAttempts: a.declinedAttempts + b.declinedAttempts,
    recoveredInstallments: a.recoveredInstallments + b.recoveredInstallments,
  };
}

const withNet = (figures: Figures) => ({
  collected: figures.collected,
  refunded: figures.refunded,
  net: formatAmount(parseAmount(figures.collected) - parseAmount(figures.refunded)),
  declinedAttempts: figures.declinedAttempts,
  recoveredInstallments: figures.recoveredInstallments,
});

const ZERO: Figures = { collected: '0.00', refunded: '0.00', declinedAttempts: 0, recoveredInstallments: 0 };

/** Rows of one currency and period added together (a month of days, or a day read twice). */
function merge(rows: SummaryRow[], periodOf: (row: SummaryRow) => string): SummaryRow[] {
  const merged = new Map<string, SummaryRow>();
  for (const row of rows) {
    const period = periodOf(row);
    const key = `${row.currency} ${period}`;
    const found = merged.get(key);
    merged.set(key, { currency: row.currency, period, ...(found ? add(found, row) : figuresOf(row)) });
  }
  return [...merged.values()].sort((a, b) =>
    a.currency === b.currency ? a.period.localeCompare(b.period) : a.currency.localeCompare(b.currency),
  );
}

const figuresOf = (row: SummaryRow): Figures => ({
  collected: row.collected,
  refunded: row.refunded,
  declinedAttempts: row.declinedAttempts,
  recoveredInstallments: row.recoveredInstallments,
});

/**
 * The range's figures per currency and local day: the days that are over in the merchant's zone from the
 * ledger's daily totals (kept once asked for, forgotten by any write that changes them), today and after
 * from the totals of its 15-minute buckets that are over (kept likewise) and the rows of the one still
 * open.
 */
async function figuresPerDay(
  ledger: LedgerStore,
  merchant: MerchantContext,
  range: { from: IsoDate; to: IsoDate; before: Date },
  now: Date,
): Promise<SummaryRow[]> {
  const today = localDate(now, merchant.timezone);
  const lastOver = range.to < today ? range.to : addDays(today, -1);
  const firstOpen = lastOver < range.from ? range.from : addDays(lastOver, 1);
  const [over, open] = await Promise.all([
    lastOver >= range.from
      ? ledger.dailyTotals(merchant.merchantId, {
          firstDay: range.from,
          lastDay: lastOver,
          timezone: merchant.timezone,
        })
      : [],
    firstOpen <= range.to
      ? ledger.recentTotals(merchant.merchantId, {
          from: startOfLocalDay(firstOpen, merchant.timezone),
          before: range.before,
          timezone: merchant.timezone,
          now,
        })
      : [],
  ]);
  return [...over, ...open];
}

/**
 * `GET /api/reports/summary`: the ledger's money per currency, in total and per day or month of the
 * merchant's time zone. The range is from the start of `from` to the start of the day after `to` there,
 * so a movement decided at 23:59:59 local time counts on its day and one at 00:00:00 on the next. The days
 * over by the clock come from the ledger's daily totals, today's quarter hours over from their totals
 * (exact, see `LedgerStore.dailyTotals` and `recentTotals`).
 */
export async function reportSummary(
  deps: { ledger: LedgerStore; subscriptionStates: SubscriptionStates; clock: Clock },
  merchant: MerchantContext,
  query: ReportSummaryQuery,
): Promise<ReportSummaryResponse> {
  const groupBy = query.groupBy ?? 'day';
  if (query.to < query.from) throw new ReportRangeInvalid('to', 'must not be before from');
  const days = dayNumber(query.to) - dayNumber(query.from) + 1;
  if (days > REPORT_MAX_DAYS[groupBy]) {
    throw new ReportRangeInvalid(
      'to',
      `the range is at most ${REPORT_MAX_DAYS[groupBy]} days with groupBy=${groupBy}`,
    );
  }
  const before = startOfLocalDay(addDays(query.to as IsoDate, 1), merchant.timezone);
  const [perDay, states] = await Promise.all([
    figuresPerDay(deps.ledger, merchant, { from: query.from, to: query.to, before }, deps.clock.now()),
    // The end of the range: the last instant of `to` in the merchant's zone.
    deps.subscriptionStates.at(merchant, new Date(before.getTime() - 1)),
  ]);
  const rows = merge(perDay, (row) => (groupBy === 'day' ? row.period : row.period.slice(0, 7)));
  const byCurrency = new Map<string, SummaryRow[]>();
  for (const row of rows) byCurrency.set(row.currency, [...(byCurrency.get(row.currency) ?? []), row]);
  return {
    from: query.from,
    to: query.to,
    groupBy,
    timezone: merchant.timezone,
    currencies: [...byCurrency].map(([currency, periods]) => ({
      currency: currency as Currency,
      ...withNet(periods.reduce<Figures>(add, ZERO)),
      periods: periods.map((row) => ({ period: row.period, ...withNet(row) })),
    })),
    subscriptions: states ?? null,
  };
}
