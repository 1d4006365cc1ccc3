import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..', '..', '..');
const TOKEN = '3f2a9c4e-7b1d-4e8a-9c0f-1d2e3f4a5b6c';

/** Runs the real logger in a child process (pino writes to fd 1 directly) and returns its lines. */
function logLines(script: string): string {
  return execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['-e', script], {
    cwd: path.join(root, 'services', 'gateway'),
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'trace' },
  });
}

describe('logs', () => {
  it('redact API tokens and the headers that carry credentials', () => {
    const output = logLines(`
      const { createLogger } = require('@payrail/observability');
      const logger = createLogger('gateway', 'trace');
      logger.info({ apiToken: '${TOKEN}' }, 'issued');
      logger.info({ merchant: { apiToken: '${TOKEN}' } }, 'created');
      logger.info({ token: '${TOKEN}' }, 'token');
      logger.info({ headers: { 'api-token': '${TOKEN}', authorization: 'Bearer ${TOKEN}' } }, 'request');
    `);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(output).not.toContain(TOKEN);
    expect(output).toContain('[redacted]');
  });
});
