/**
 * What of an error may be written to logs, traces and dead-letter headers: its type, its message without
 * the values it carries, the database's SQLSTATE and the names of the objects involved. Never the query's
 * parameters (customer e-mails and names), never the database's `detail` (`Key (email)=(ana@…)`), never
 * a request body. Errors nest (`cause`), so the chain is followed a few levels.
 */
export interface SafeError {
  type: string;
  message: string;
  code?: string;
  constraint?: string;
  table?: string;
  column?: string;
  stack?: string;
  cause?: SafeError;
}

const MAX_MESSAGE_LENGTH = 300;
const MAX_STACK_FRAMES = 8;
const MAX_CAUSE_DEPTH = 3;

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/**
 * Drizzle's query error reads `Failed query: <sql>\nparams: <values>`: the SQL is ours (placeholders
 * only), the values are the customer's, so everything from `params:` on is dropped.
 */
function messageWithoutValues(message: string): string {
  const paramsAt = message.search(/\n?params:/);
  if (paramsAt === -1) return shorten(message, MAX_MESSAGE_LENGTH);
  return `${shorten(message.slice(0, paramsAt), MAX_MESSAGE_LENGTH)} (parameters not logged)`;
}

/** Only the frames, not the first line: a stack starts with the message, values included. */
function framesOf(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length === 0 ? undefined : frames.slice(0, MAX_STACK_FRAMES).join('\n');
}

function stringField(error: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = error[name];
    if (typeof value === 'string' && value !== '') return shorten(value, 100);
  }
  return undefined;
}

/**
 * A database's own messages quote the offending value (`invalid input syntax for type uuid: "…"`); the
 * names worth keeping (constraint, table, column) are kept in their own fields instead.
 */
function withoutQuotedValues(message: string): string {
  return message.replace(/"[^"]*"/g, '"…"');
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

export function safeError(error: unknown, depth = 0): SafeError {
  if (!(error instanceof Error)) {
    return { type: typeof error, message: messageWithoutValues(String(error)) };
  }
  const fields = error as unknown as Record<string, unknown>;
  const described: SafeError = {
    type: error.name || error.constructor?.name || 'Error',
    message: messageWithoutValues(error.message ?? ''),
  };
  // postgres.js spells them `constraint_name`, PGlite `constraint`: either way names, never values.
  const code = stringField(fields, 'code');
  const constraint = stringField(fields, 'constraint_name', 'constraint');
  const table = stringField(fields, 'table_name', 'table');
  const column = stringField(fields, 'column_name', 'column');
  if (code && SQLSTATE.test(code)) described.message = withoutQuotedValues(described.message);
  if (code) described.code = code;
  if (constraint) described.constraint = constraint;
  if (table) described.table = table;
  if (column) described.column = column;
  const stack = framesOf(error.stack);
  if (stack && depth === 0) described.stack = stack;
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH)
    described.cause = safeError(error.cause, depth + 1);
  return described;
}

/** One line for places that keep a string (a dead-letter header): `Type [code]: message`, causes after. */
export function safeErrorText(error: unknown): string {
  const parts: string[] = [];
  let current: SafeError | undefined = safeError(error);
  while (current) {
    const plain = current.type === 'Error' && !current.code;
    parts.push(
      plain
        ? current.message
        : `${current.type}${current.code ? ` [${current.code}]` : ''}: ${current.message}`,
    );
    current = current.cause;
  }
  return parts.join(' <- caused by ');
}

/** For a log field that may hold an error or a message already made safe: a string stays a string. */
export function safeErrorField(value: unknown): SafeError | string {
  return typeof value === 'string'
    ? shorten(messageWithoutValues(value), MAX_MESSAGE_LENGTH * 2)
    : safeError(value);
}
