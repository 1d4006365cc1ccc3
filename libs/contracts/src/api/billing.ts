import { z } from 'zod';
import { calendarDate } from '../text';
import { merchantIdParams } from './admin';
import { type ApiOperation, defineOperation } from './operation';
import { DEMO_MERCHANT_ID, STORY_DAY } from './story';

/** What an operator may ask of a billing run. */
export const createBillingRunRequest = z.object({
  asOf: calendarDate.meta({
    description:
      "Charge installments due on or before this day, in each merchant's own time zone. A past day is a catch-up " +
      'after an outage; a day after today is refused unless the deployment runs with `SIMULATED_TIME=true`.',
  }),
  merchantId: z.uuid().optional().meta({ description: 'Only this merchant’s installments (default: all).' }),
});

export type CreateBillingRunRequest = z.infer<typeof createBillingRunRequest>;

export const BILLING_RUN_STATUSES = ['claiming', 'charging', 'completed'] as const;

export const billingRunResponse = z.object({
  id: z.uuid(),
  trigger: z.enum(['schedule', 'operator']).meta({
    description: '`schedule`: the every-minute run (as of today in each time zone); `operator`: asked for.',
  }),
  asOf: calendarDate
    .nullable()
    .meta({ description: "Null for a scheduled run: today in each merchant's zone." }),
  merchantId: z.uuid().nullable(),
  status: z.enum(BILLING_RUN_STATUSES).meta({
    description:
      '`claiming`: still claiming due installments; `charging`: every claimed charge asked for, some not settled; ' +
      '`completed`: every claimed installment succeeded, failed or was skipped.',
  }),
  due: z
    .number()
    .int()
    .meta({ description: 'Installment attempts the run claimed (`installment.charge-due`).' }),
  requested: z
    .number()
    .int()
    .meta({ description: 'Of those, charges subscriptions requested (`charge.requested`).' }),
  succeeded: z.number().int(),
  failed: z
    .number()
    .int()
    .meta({ description: 'Declined attempts (a retry, if any, belongs to a later run).' }),
  skipped: z.number().int().meta({
    description:
      'Not charged: no longer pending, subscription not active, no card, 24-hour card attempt cap.',
  }),
  startedAt: z.iso.datetime({ offset: true }),
  claimedAt: z.iso.datetime({ offset: true }).nullable(),
});

export const billingRunListQuery = z.object({
  merchantId: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const billingRunListResponse = z.object({ runs: z.array(billingRunResponse) });
export const billingRunIdParams = z.object({ id: z.uuid() });

/** A merchant's dunning policy: when a declined installment is tried again, and when dunning gives up. */
export const dunningPolicyRequest = z.object({
  retryOffsetDays: z
    .array(z.number().int().min(1).max(60))
    .max(10)
    .refine((days) => days.every((day, index) => index === 0 || day > (days[index - 1] ?? 0)), {
      message: 'must be ascending without repeats',
    })
    .meta({
      description:
        'Days after the first attempt on which a soft decline is retried (`[1, 3, 5]`: three retries). `[]`: never ' +
        'retried. A hard decline is never retried; a blocked card is retried once its block has ended.',
    }),
  cancelAfterFailedInstallments: z
    .number()
    .int()
    .min(1)
    .max(60)
    .nullable()
    .meta({
      description:
        'Cancel the subscription (as cancel-all does: its pending installments cancelled, `subscription.cancelled` ' +
        'with reason `dunning`) once this many of its installments failed after dunning in a row, by payment date ' +
        '(a paid one between resets the count); null (default): never.',
    }),
});

/**
 * The policy of every merchant the operator has not set one for (answered with `isDefault: true`): retried
 * one, three and five days after the first attempt; never cancelled.
 */
export const DEFAULT_DUNNING_POLICY: z.output<typeof dunningPolicyRequest> = {
  retryOffsetDays: [1, 3, 5],
  cancelAfterFailedInstallments: null,
};

export const dunningPolicyResponse = dunningPolicyRequest.extend({
  merchantId: z.uuid(),
  isDefault: z
    .boolean()
    .meta({ description: 'True while the operator has not set a policy for the merchant.' }),
  updatedAt: z.iso.datetime({ offset: true }).nullable(),
});

// The examples continue the story (`./story.ts`) for the demo merchant: a run as of the story's day finds
// nothing due (its first installments were paid on the pay page or cancelled), and the operator sets the
// merchant's dunning policy. The run's UUID is new in every account.
const RUN_ID = '7d1f0a3c-9b2e-4c5d-8e6f-1a2b3c4d5e6f';
const MERCHANT_ID = DEMO_MERCHANT_ID;

const runExample = {
  id: RUN_ID,
  trigger: 'operator',
  asOf: STORY_DAY,
  merchantId: MERCHANT_ID,
  status: 'completed',
  due: 0,
  requested: 0,
  succeeded: 0,
  failed: 0,
  skipped: 0,
  startedAt: '2026-11-23T12:00:00.000Z',
  claimedAt: '2026-11-23T12:00:00.120Z',
};

/** The operator API of billing-scheduler, behind the gateway's `/admin/*` (`Authorization: Bearer`). */
export const billingAdminApi = {
  createBillingRun: defineOperation({
    method: 'post',
    path: '/admin/billing/runs',
    operationId: 'createBillingRun',
    summary: 'Run billing as of a day',
    description:
      "Claims every installment due on or before `asOf` in its merchant's time zone (replicas share the work) " +
      'and asks subscriptions to charge it; the every-minute run does the same as of today. Answers at once ' +
      'with the run; `GET /admin/billing/runs/{id}` follows its progress.',
    tags: ['Operator'],
    security: 'adminToken',
    errors: ['AS_OF_IN_FUTURE'],
    requestBody: {
      schema: createBillingRunRequest,
      example: { asOf: STORY_DAY, merchantId: MERCHANT_ID },
    },
    responses: {
      202: {
        description: 'The run, claiming.',
        schema: billingRunResponse,
        example: { ...runExample, status: 'claiming', claimedAt: null },
      },
    },
  }),
  listBillingRuns: defineOperation({
    method: 'get',
    path: '/admin/billing/runs',
    operationId: 'listBillingRuns',
    summary: 'The latest billing runs',
    description: 'Newest first. A scheduled run that found nothing due is not kept.',
    tags: ['Operator'],
    security: 'adminToken',
    query: billingRunListQuery,
    parameterExamples: { default: { merchantId: MERCHANT_ID, limit: 20 } },
    responses: {
      200: { description: 'The runs.', schema: billingRunListResponse, example: { runs: [runExample] } },
    },
  }),
  getBillingRun: defineOperation({
    method: 'get',
    path: '/admin/billing/runs/{id}',
    operationId: 'getBillingRun',
    summary: "A billing run's progress",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: billingRunIdParams,
    parameterExamples: { default: { id: RUN_ID } },
    errors: ['BILLING_RUN_NOT_FOUND'],
    responses: { 200: { description: 'The run.', schema: billingRunResponse, example: runExample } },
  }),
  getDunningPolicy: defineOperation({
    method: 'get',
    path: '/admin/merchants/{id}/dunning-policy',
    operationId: 'getDunningPolicy',
    summary: "A merchant's dunning policy",
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantIdParams,
    parameterExamples: { default: { id: MERCHANT_ID } },
    errors: ['MERCHANT_NOT_FOUND'],
    responses: {
      200: {
        description: 'The policy (the defaults until one is set).',
        schema: dunningPolicyResponse,
        example: {
          merchantId: MERCHANT_ID,
          ...DEFAULT_DUNNING_POLICY,
          isDefault: true,
          updatedAt: null,
        },
      },
    },
  }),
  setDunningPolicy: defineOperation({
    method: 'put',
    path: '/admin/merchants/{id}/dunning-policy',
    operationId: 'setDunningPolicy',
    summary: "Set a merchant's dunning policy",
    description: 'Applies to declines from now on; retries already scheduled keep their day.',
    tags: ['Operator'],
    security: 'adminToken',
    pathParams: merchantIdParams,
    parameterExamples: { default: { id: MERCHANT_ID } },
    errors: ['MERCHANT_NOT_FOUND'],
    requestBody: {
      schema: dunningPolicyRequest,
      example: { retryOffsetDays: [1, 2, 4, 7], cancelAfterFailedInstallments: 3 },
    },
    responses: {
      200: {
        description: 'The policy now.',
        schema: dunningPolicyResponse,
        example: {
          merchantId: MERCHANT_ID,
          retryOffsetDays: [1, 2, 4, 7],
          cancelAfterFailedInstallments: 3,
          isDefault: false,
          updatedAt: '2026-11-23T12:00:00.000Z',
        },
      },
    },
  }),
};

/** In document order. */
export const billingAdminOperations: ApiOperation[] = Object.values(billingAdminApi) as ApiOperation[];
