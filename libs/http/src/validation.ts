import type { Context } from 'hono';
import type { z } from 'zod';
import { type FieldError, HttpProblem, problems } from './problem';

/** Turns zod issues into `errors[]` with dotted paths (`operations.0.updates.2.amount`). */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}

/** Reads the JSON body; malformed JSON or a non-object is a 400, never a 500. */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') throw problems.badRequest('Request body must be a JSON object');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpProblem(400, 'MALFORMED_JSON', 'Request body is not valid JSON');
  }
}

export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what = 'Request body is invalid',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw problems.badRequest(what, fieldErrors(result.error));
  return result.data;
}

export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  return validate(schema, await readJson(c));
}
