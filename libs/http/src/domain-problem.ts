import type { ApiOperation, DomainError, ErrorCodeInfo } from '@payrail/contracts';
import type { Context } from 'hono';
import { type FieldError, HttpProblem } from './problem';

/** A service's error table (`BILLING_ERRORS`, ...): each code of its domain errors, with its status. */
export type ErrorTable<Code extends string = string> = Readonly<Record<Code, ErrorCodeInfo>>;

/** The operation each request is answered by (set by `route()`), for how its field names are spelt. */
const operations = new WeakMap<Context, Pick<ApiOperation, 'fieldNames'>>();

export function rememberOperation(c: Context, operation: Pick<ApiOperation, 'fieldNames'>): void {
  operations.set(c, operation);
}

export function operationOf(c: Context): Pick<ApiOperation, 'fieldNames'> | undefined {
  return operations.get(c);
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A camelCase word (`customIdentifier2`, `paymentDate`): a field name in a domain message. */
const CAMEL_CASE_WORD = /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g;

function spelt(text: string, fieldNames: ApiOperation['fieldNames']): string {
  return fieldNames === 'snake_case' ? text.replace(CAMEL_CASE_WORD, snake) : text;
}

/**
 * A domain error as the problem document its service answers: the status from the service's table, the
 * error's message as `detail`, its field errors as `errors[]`; an operation whose fields are snake_case
 * (`fieldNames`) gets its paths and the field names in the messages in snake_case. Undefined when the
 * code is not in the table (a bug: the app answers 500 and logs it).
 */
export function domainProblem(
  error: DomainError,
  table: ErrorTable,
  operation?: Pick<ApiOperation, 'fieldNames'>,
): HttpProblem | undefined {
  if (!Object.hasOwn(table, error.code)) return undefined;
  const info = table[error.code] as ErrorCodeInfo;
  const fieldNames = operation?.fieldNames;
  const errors: FieldError[] = error.fieldErrors.map((field) => ({
    path: spelt(field.path, fieldNames),
    message: spelt(field.message, fieldNames),
  }));
  return new HttpProblem(info.status, error.code, spelt(error.message, fieldNames), errors);
}
