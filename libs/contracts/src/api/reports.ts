import { z } from 'zod';
import { CURRENCIES } from '../merchant-context';
import { moneyString } from '../rules';
import { calendarDate } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { STORY_DAY } from './story';

/**
 * Reports for people (issue 27 item 3): the merchant's money per currency and per day or month, computed
 * from the payments ledger (processor-gateway) where the data is.
 */

/** The longest range a report covers: a year of days, or ten years of months. */
export const REPORT_MAX_DAYS = { day: 366, month: 3660 } as const;

export const reportSummaryQuery = z.object({
  from: calendarDate.meta({
    description: 'First day of the range (your time zone), `yyyy-MM-dd`, inclusive.',
  }),
  to: calendarDate.meta({ description: 'Last day of the range (your time zone), `yyyy-MM-dd`, inclusive.' }),
  groupBy: z
    .enum(['day', 'month'])
    .optional()
    .meta({ description: 'One row per day (default) or per month of your time zone.' }),
});
export type ReportSummaryQuery = z.infer<typeof reportSummaryQuery>;

const figures = {
  collected: moneyString.meta({
    description:
      'Money taken: approved card payments (links and installments) and bank transfers you notified.',
  }),
  refunded: moneyString.meta({ description: 'Money given back: refunds that succeeded.' }),
  net: moneyString.meta({ description: '`collected` minus `refunded` (negative when more was given back).' }),
  declinedAttempts: z.number().int().meta({ description: 'Card attempts the processor declined.' }),
  recoveredInstallments: z.number().int().meta({
    description:
      'Installments an automatic charge paid after an earlier attempt of theirs was declined (a retry).',
  }),
};

export const reportPeriod = z.object({
  period: z
    .string()
    .meta({ description: '`yyyy-MM-dd` (groupBy day) or `yyyy-MM` (groupBy month), your time zone.' }),
  ...figures,
});

export const reportCurrency = z.object({
  currency: z.enum(CURRENCIES),
  ...figures,
  periods: z.array(reportPeriod).meta({
    description: 'Only the days or months with a movement, oldest first; a period not listed is all zero.',
  }),
});

/** subscriptions' internal answer (processor-gateway composes it into the report): its path and shape. */
export const SUBSCRIPTION_STATES_PATH = '/internal/reports/subscription-states';
export const subscriptionStateCounts = z.object({
  pending: z.number().int(),
  active: z.number().int(),
  past_due: z.number().int(),
  completed: z.number().int(),
  cancelled: z.number().int(),
});
export type SubscriptionStateCounts = z.infer<typeof subscriptionStateCounts>;

export const reportSummaryResponse = z.object({
  from: calendarDate,
  to: calendarDate,
  groupBy: z.enum(['day', 'month']),
  timezone: z.string().meta({ description: 'Your time zone: the days and months are its.' }),
  currencies: z.array(reportCurrency).meta({
    description:
      'One entry per currency with a movement in the range (amounts are never added across currencies).',
  }),
  subscriptions: subscriptionStateCounts.nullable().meta({
    description:
      'Your subscriptions by state at the end of the range (the end of `to` in your time zone): made by then, ' +
      'ended (`completed`, `cancelled`) by then, active or still `pending` then. `past_due` is as it is now ' +
      '(a subscription not ended then and past due now counts as past due). Null when they could not be read now.',
  }),
});
export type ReportSummaryResponse = z.infer<typeof reportSummaryResponse>;

// The story's day so far (`./story.ts`, `./payments.ts`): links 2 (200000) and 3 (87500) paid by card, link 1
// (150000), installment 17 (87500) and the membership's installment 2 (170000) by bank transfer.
const storyDay = {
  collected: '695000.00',
  refunded: '0.00',
  net: '695000.00',
  declinedAttempts: 0,
  recoveredInstallments: 0,
};

export const reportApi = {
  getReportSummary: defineOperation({
    method: 'get',
    path: '/api/reports/summary',
    operationId: 'getReportSummary',
    summary: 'Totals per currency and per day or month',
    description: [
      'What came in and went out in a range of days of your time zone (`from` and `to` inclusive), per',
      'currency: `collected` (approved card payments and bank transfers), `refunded`, `net`, declined card',
      'attempts and installments recovered by a retry, in total and per day or month (`groupBy`). A movement',
      'counts on the day it was decided (paid, declined, given back) in your time zone: one at 23:59:59 counts',
      `on that day. At most ${REPORT_MAX_DAYS.day} days with \`groupBy=day\`, ${REPORT_MAX_DAYS.month} with`,
      '`month`; `to` before `from` is 400.',
    ].join('\n'),
    tags: ['Payments'],
    security: 'apiToken',
    query: reportSummaryQuery,
    errors: ['REPORT_RANGE_INVALID'],
    parameterExamples: { default: { from: STORY_DAY, to: STORY_DAY, groupBy: 'day' } },
    responses: {
      200: {
        description: 'The totals.',
        schema: reportSummaryResponse,
        example: {
          from: STORY_DAY,
          to: STORY_DAY,
          groupBy: 'day',
          timezone: 'America/Asuncion',
          currencies: [{ currency: 'PYG', ...storyDay, periods: [{ period: STORY_DAY, ...storyDay }] }],
          // The membership and the software contract active, the course cancelled before it was paid.
          subscriptions: { pending: 0, active: 2, past_due: 0, completed: 0, cancelled: 1 },
        },
      },
    },
  }),
};

/** In document order. */
export const reportOperations: ApiOperation[] = Object.values(reportApi) as ApiOperation[];
