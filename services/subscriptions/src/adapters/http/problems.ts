import { HttpProblem } from '@payrail/http';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type FieldPath, SubscriptionError, type SubscriptionErrorCode } from '../../domain/errors';

/** Every domain error code and its HTTP status: the one place where the domain meets HTTP. */
const STATUS: Record<SubscriptionErrorCode, ContentfulStatusCode> = {
  SUBSCRIPTION_NOT_FOUND: 404,
  INSTALLMENT_NOT_FOUND: 404,
  MULTIPLE_SUBSCRIPTIONS_MATCH: 409,
  SUBSCRIPTION_NOT_ACTIVE: 409,
  INSTALLMENT_NOT_PENDING: 409,
  FIRST_INSTALLMENT_SETTLED_BY_LINK: 409,
  NO_MATCHING_PENDING_INSTALLMENTS: 409,
  NOT_ENOUGH_PENDING_INSTALLMENTS: 409,
  INVOICE_NUMBER_TAKEN: 409,
  INVALID_STATE_TRANSITION: 409,
  CONCURRENT_MODIFICATION: 409,
  SUBSCRIPTION_NOT_DYNAMIC: 422,
  INVOICE_NUMBER_REQUIRED: 422,
  PAYMENT_DATE_IN_PAST: 422,
};

/** v1 bodies are camelCase like the domain; v2 bodies are snake_case. */
export type BodyStyle = 'camel' | 'snake';

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function pathText(path: FieldPath, style: BodyStyle): string {
  return path
    .map((part) => (typeof part === 'string' && style === 'snake' ? snake(part) : String(part)))
    .join('.');
}

/** Use as `.catch(problemFor('snake'))`: domain errors become problem documents, anything else propagates. */
export function problemFor(style: BodyStyle) {
  return (error: unknown): never => {
    if (error instanceof SubscriptionError) {
      const errors =
        error.path.length > 0 ? [{ path: pathText(error.path, style), message: error.message }] : [];
      throw new HttpProblem(STATUS[error.code], error.code, error.message, errors);
    }
    throw error;
  };
}
