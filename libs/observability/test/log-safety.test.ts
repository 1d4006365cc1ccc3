import { describe, expect, it } from 'vitest';
import { createLogger, MAX_LOG_LINE_LENGTH, safeErrorText } from '../src';

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger('test', 'info', { write: (line: string) => void lines.push(line) }) };
}

class FakeQueryError extends Error {
  constructor(
    readonly params: unknown[],
    cause: unknown,
  ) {
    super(`Failed query: insert into "links"."customers" values ($1, $2)\nparams: ${params.join(',')}`);
    this.cause = cause;
  }
}

const pgError = Object.assign(new Error('invalid input syntax for type uuid: "ana@example.com"'), {
  name: 'PostgresError',
  code: '22P02',
  detail: 'Key (email)=(ana@example.com) already exists.',
});

describe('log lines', () => {
  it('never exceed the cap, and stay one JSON object, however large the fields', () => {
    const { lines, logger } = capture();
    logger.info({ body: 'x'.repeat(1_000_000), items: Array.from({ length: 5000 }, (_, i) => i) }, 'big');
    logger.warn({ ['k'.repeat(20_000)]: 1 }, 'a huge key');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(MAX_LOG_LINE_LENGTH);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(JSON.parse(lines[0] as string)).toMatchObject({ msg: 'big', truncatedFrom: expect.any(Number) });
  });

  it('show an error by type, code and message without query parameters, quoted values or detail', () => {
    const { lines, logger } = capture();
    const error = new FakeQueryError(['ana@example.com', 'Ana Gómez'], pgError);
    logger.error({ err: error, error }, 'failed');
    const line = lines[0] as string;
    expect(line).not.toContain('ana@example.com');
    expect(line).not.toContain('Gómez');
    expect(line).toContain('22P02');
    expect(safeErrorText(error)).toBe(
      'Failed query: insert into "links"."customers" values ($1, $2) (parameters not logged) <- caused by ' +
        'PostgresError [22P02]: invalid input syntax for type uuid: "…"',
    );
  });
});
