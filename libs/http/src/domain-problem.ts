import type { ApiOperation, DomainError, ErrorCodeInfo } from '@payrail/contracts';
import type { Context } from 'hono';
import { z } from 'zod';
import { type FieldError, HttpProblem } from './problem';

/** A service's error table (`BILLING_ERRORS`, ...): each code of its domain errors, with its status. */
export type ErrorTable<Code extends string = string> = Readonly<Record<Code, ErrorCodeInfo>>;

/** What an answer needs of the operation: how it spells field names, and its inputs' fields. */
export type SpellingOf = Pick<ApiOperation, 'fieldNames' | 'pathParams' | 'query' | 'requestBody'>;

/** The operation each request is answered by (set by `route()`), for how its field names are spelt. */
const operations = new WeakMap<Context, SpellingOf>();

export function rememberOperation(c: Context, operation: SpellingOf): void {
  operations.set(c, operation);
}

export function operationOf(c: Context): SpellingOf | undefined {
  return operations.get(c);
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A camelCase word (`customIdentifier2`, `paymentDate`): a field name in a domain message. */
const CAMEL_CASE_WORD = /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g;

/** The names of every field of a JSON schema, at any depth. */
function collectFieldNames(json: unknown, names: Set<string>): void {
  if (Array.isArray(json)) {
    for (const each of json) collectFieldNames(each, names);
    return;
  }
  if (json === null || typeof json !== 'object') return;
  for (const [key, value] of Object.entries(json)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const name of Object.keys(value)) names.add(name);
    }
    collectFieldNames(value, names);
  }
}

const inputFieldNames = new WeakMap<SpellingOf, ReadonlySet<string>>();

/** The field names of an operation's path parameters, query and body (`payment_date`, `custom_identifier2`). */
function fieldNamesOf(operation: SpellingOf): ReadonlySet<string> {
  let names = inputFieldNames.get(operation);
  if (!names) {
    const found = new Set<string>();
    for (const schema of [operation.pathParams, operation.query, operation.requestBody?.schema]) {
      if (schema) collectFieldNames(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), found);
    }
    names = found;
    inputFieldNames.set(operation, names);
  }
  return names;
}

/** A field path, each name spelt as the operation spells its fields (`installments.1.invoice_number`). */
function speltPath(path: string, operation: SpellingOf | undefined): string {
  return operation?.fieldNames === 'snake_case' ? path.replace(CAMEL_CASE_WORD, snake) : path;
}

/**
 * A message, the field names it mentions spelt as the operation spells them ("give custom_identifier2"):
 * a camelCase word becomes snake_case where that is the name of one of the operation's fields; any other
 * word (a value the merchant gave, an invoice number `invA1`) stays as written.
 */
function speltMessage(message: string, operation: SpellingOf | undefined): string {
  if (operation?.fieldNames !== 'snake_case') return message;
  const fields = fieldNamesOf(operation);
  return message.replace(CAMEL_CASE_WORD, (word) => (fields.has(snake(word)) ? snake(word) : word));
}

/**
 * A domain error as the problem document its service answers: the status from the service's table, the
 * error's message as `detail`, its field errors as `errors[]`; an operation whose fields are snake_case
 * (`fieldNames`) gets its paths, and the names of its fields the messages mention, in snake_case.
 * Undefined when the code is not in the table (a bug: the app answers 500 and logs it).
 */
export function domainProblem(
  error: DomainError,
  table: ErrorTable,
  operation?: SpellingOf,
): HttpProblem | undefined {
  if (!Object.hasOwn(table, error.code)) return undefined;
  const info = table[error.code] as ErrorCodeInfo;
  const errors: FieldError[] = error.fieldErrors.map((field) => ({
    path: speltPath(field.path, operation),
    message: speltMessage(field.message, operation),
  }));
  return new HttpProblem(info.status, error.code, speltMessage(error.message, operation), errors);
}
