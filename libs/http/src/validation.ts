import type { Context } from 'hono';
import type { z } from 'zod';
import { requestBytes } from './body';
import { type FieldError, HttpProblem, problems } from './problem';
import { decodeUtf8, invalidTextPaths, NOT_UTF8 } from './utf8';

type Issue = z.core.$ZodRawIssue;

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
  null: 'null',
};

function typeName(expected: unknown): string {
  return ARTICLE[String(expected)] ?? String(expected);
}

function unitsOf(origin: unknown): string {
  if (origin === 'string') return ' characters';
  if (origin === 'array' || origin === 'set') return ' items';
  return '';
}

/**
 * Messages a merchant can act on, for the issues whose schema gives none: `is required`, `must be a
 * number`, `must be at most 28`, instead of zod's generic "Invalid input". A schema's own message wins.
 */
export function issueMessage(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.expected === 'number' && typeof issue.input === 'number') return 'must be a finite number';
      return `must be ${typeName(issue.expected)}`;
    case 'invalid_union': {
      if (issue.input === undefined) return 'is required';
      const expected = new Set(
        (issue.errors ?? [])
          .flat()
          .flatMap((inner) => (inner.code === 'invalid_type' ? [inner.expected] : [])),
      );
      return expected.size > 0 ? `must be ${[...expected].map(typeName).join(' or ')}` : 'has the wrong type';
    }
    case 'too_small': {
      const minimum = Number(issue.minimum);
      if (issue.origin === 'string' && minimum === 1) return 'must not be empty';
      if (issue.origin === 'array' && minimum === 1) return 'must have at least one item';
      const bound = issue.inclusive === false ? 'greater than' : 'at least';
      return `must be ${bound} ${minimum}${unitsOf(issue.origin)}`;
    }
    case 'too_big': {
      const bound = issue.inclusive === false ? 'less than' : 'at most';
      return `must be ${bound} ${Number(issue.maximum)}${unitsOf(issue.origin)}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has the wrong format' : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    default:
      return undefined;
  }
}

/** Turns zod issues into `errors[]` with dotted paths (`operations.0.updates.2.amount`). */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}

/** `amount is required`, or `amount is required (and 2 more problems)`: the detail names the first one. */
export function describeErrors(errors: FieldError[], fallback: string): string {
  const [first, ...others] = errors;
  if (!first) return fallback;
  const subject = first.path === '(body)' ? 'The request body' : first.path;
  const field = first.path.split('.').at(-1) ?? '';
  // A message that already names its field (`customIdentifier, ... is required`) stands alone.
  const sentence = first.message.startsWith(field) ? first.message : `${subject} ${first.message}`;
  const more =
    others.length === 0 ? '' : ` (and ${others.length} more problem${others.length > 1 ? 's' : ''})`;
  return `${sentence}${more}`;
}

/** Reads the JSON body; malformed JSON, text that is not UTF-8, or an empty body is a 400, never a 500. */
export async function readJson(c: Context): Promise<unknown> {
  const bytes = new Uint8Array(await requestBytes(c));
  const decoded = decodeUtf8(bytes);
  if (decoded.text.trim() === '') throw problems.badRequest('Request body must be a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoded.text);
  } catch {
    if (decoded.marker !== undefined) throw notUtf8([{ path: '(body)', message: NOT_UTF8 }]);
    throw new HttpProblem(400, 'MALFORMED_JSON', 'Request body is not valid JSON');
  }
  if (decoded.marker !== undefined) {
    const errors = invalidTextPaths(parsed, decoded.marker);
    throw notUtf8(errors.length > 0 ? errors : [{ path: '(body)', message: NOT_UTF8 }]);
  }
  return parsed;
}

function notUtf8(errors: FieldError[]): HttpProblem {
  return problems.badRequest(describeErrors(errors, 'Request body is not valid UTF-8'), errors);
}

export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'Request body is invalid',
): z.infer<S> {
  const result = schema.safeParse(input, { error: issueMessage });
  if (!result.success) {
    const errors = fieldErrors(result.error);
    throw problems.badRequest(describeErrors(errors, what), errors);
  }
  return result.data;
}

export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return validate(schema, await readJson(c));
}
