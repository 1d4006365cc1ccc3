import type { z } from 'zod';
import type { ErrorCode } from './errors';

/** The groups of the reference, in the order a reader meets them, each with what it is for. */
export const API_TAGS = {
  'Payment links':
    'Links for a single payment or for the first payment of a subscription, and reading them back.',
  Customers:
    'The people who pay your links (signed in with their e-mail or document number), with their links and saved cards, masked.',
  Subscriptions: 'The subscriptions made from recurrent links, with their installments.',
  'Installments (v2)':
    "Installments by id (snake_case, as the spec's bulk endpoint): list, add, modify, cancel, charge attempts.",
  'Subscriptions (v1)':
    'Installments of a subscription found by its identifiers or its link (camelCase): by amount, all, dates, cancel.',
  'Bank transfers':
    'Transfers made outside the service, notified by the merchant, settling a link or an installment.',
  Payments:
    'Every money movement (card payments, declined attempts, bank transfers, refunds) in one ledger: found, read and exported as CSV.',
  Refunds:
    'Money given back from a payment: through its processor (whole, as each processor allows) or outside the service, recorded.',
  Webhooks:
    'Endpoints that receive signed events (Standard Webhooks), their delivery log, and the event log for polling.',
  Access:
    "API tokens (`full` or `read-only`), the merchant's console users and their roles, and the audit log of every change.",
  Operator:
    'For the operator (`Authorization: Bearer`): merchants and tokens, billing runs, dunning, webhook endpoints.',
} as const satisfies Record<string, string>;
export type ApiTag = keyof typeof API_TAGS;

/** A documented example of one request and the outcome it has when the examples are followed in order. */
export interface ExampleOf<T = unknown> {
  summary: string;
  value: T;
}

/** One documented answer of an operation: the body's schema (none for an empty body) and its examples. */
export interface ApiResponse {
  description: string;
  schema?: z.ZodType;
  example?: unknown;
  examples?: Record<string, ExampleOf>;
}

/**
 * One endpoint of the public API, described once from its zod schemas. The gateway turns the list of
 * these into the OpenAPI 3.1 document (`/openapi.json`), and the services bind their handlers to them
 * (`route` in `@payrail/http`), so neither the document nor the router can drift from validation, and
 * a handler's answer is typed against `responses` (a field the schema does not have fails to compile).
 */
export interface ApiOperation<
  Params extends z.ZodObject | undefined = z.ZodObject | undefined,
  Query extends z.ZodObject | undefined = z.ZodObject | undefined,
  Body extends z.ZodType | undefined = z.ZodType | undefined,
  Responses extends Record<number, ApiResponse> = Record<number, ApiResponse>,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template: `/api/payrequests/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** Names of `API_TAGS`, where each has its description. */
  tags: string[];
  /** `apiToken`: the merchant's `Api-Token` header; `adminToken`: operator bearer token. */
  security: 'apiToken' | 'adminToken' | 'none';
  pathParams?: Params;
  query?: Query;
  /**
   * Example values of the path and query parameters, by example name (`default` when only one). They are
   * the parameters of the request examples of the same name.
   */
  parameterExamples?: Record<string, Record<string, string | number>>;
  requestBody?: {
    schema: NonNullable<Body>;
    example: unknown;
    examples?: Record<string, ExampleOf>;
  };
  /**
   * `required`: the operation refuses a request without an `Idempotency-Key` (400
   * `IDEMPOTENCY_KEY_REQUIRED`), because running it twice would move money twice (a refund). Every other
   * POST, PUT and PATCH of the merchant API takes the key when it is given.
   */
  idempotencyKey?: 'required';
  /**
   * The error codes the operation answers besides the ones every operation of its kind has (401, 400 on
   * input, the Idempotency-Key ones); their statuses come from the error tables.
   */
  errors?: readonly ErrorCode[];
  /**
   * The links (by `id`) the example story's customer pays on the pay page before this operation's
   * examples: the document says so in the description and as `x-story-pays-first`, which the replay test
   * follows (it pays them through the sandbox's hosted form, as a customer does).
   */
  storyPaysFirst?: readonly number[];
  /**
   * A request example whose step of the story ends in an error (an installment that cannot be added
   * before the first payment): its name and that error's code.
   */
  exampleOutcomes?: Record<string, ErrorCode>;
  /**
   * `examples` name the outcome of the request example of the same name (the first success response
   * otherwise): the documented examples are one story, replayed in document order by the e2e tests.
   */
  responses: Responses;
  /**
   * How the operation's body spells its fields: `snake_case` for the v2 installments (`payment_date`).
   * A domain error's field paths, and the field names its message mentions, are answered that way
   * (`@payrail/http`'s `domainProblem`); the domain keeps its own camelCase terms. Default camelCase.
   */
  fieldNames?: 'camelCase' | 'snake_case';
}

/**
 * Keeps the schemas' types, so a handler bound with `route` gets typed input, and its answer is checked
 * against the documented responses.
 */
export function defineOperation<
  Params extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
  Body extends z.ZodType | undefined = undefined,
  Responses extends Record<number, ApiResponse> = Record<number, ApiResponse>,
>(operation: ApiOperation<Params, Query, Body, Responses>): ApiOperation<Params, Query, Body, Responses> {
  return operation;
}
