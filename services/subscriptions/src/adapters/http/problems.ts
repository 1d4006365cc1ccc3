import { SUBSCRIPTION_ERRORS } from '@payrail/contracts';
import { describeErrors, problemFromTable, problems } from '@payrail/http';
import { AmountNotInCurrency, type FieldPath, SubscriptionError } from '../../domain/errors';

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

/** The request fields domain messages may name, in the domain's (camelCase) terms. */
const FIELD_NAMES = /\b(customIdentifier2|customIdentifier|payRequestId|paymentDate|invoiceNumber)\b/g;

/** A message names fields the way the endpoint spells them: `give custom_identifier2` on v2. */
function messageText(message: string, style: BodyStyle): string {
  return style === 'snake' ? message.replace(FIELD_NAMES, (name) => snake(name)) : message;
}

/**
 * Use as `.catch(problemFor('snake'))`: domain errors become problem documents, their status from the
 * service's error table; anything else propagates.
 */
export function problemFor(style: BodyStyle) {
  return (error: unknown): never => {
    if (error instanceof SubscriptionError) {
      const message = messageText(error.message, style);
      const errors = error.path.length > 0 ? [{ path: pathText(error.path, style), message }] : [];
      throw problemFromTable(SUBSCRIPTION_ERRORS, error.code, message, errors);
    }
    if (error instanceof AmountNotInCurrency) {
      const errors = error.fields.map(({ path, message }) => ({ path: pathText(path, style), message }));
      throw problems.badRequest(describeErrors(errors, error.message), errors);
    }
    throw error;
  };
}
