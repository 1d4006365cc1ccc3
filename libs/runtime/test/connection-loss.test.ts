import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConnectionLoss, onUnobservedRejection } from '../src/connection-loss';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('a promise rejected with nobody awaiting it', () => {
  it('is a lost connection only for the socket and driver codes of one', () => {
    expect(isConnectionLoss(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isConnectionLoss(withCode('write CONNECTION_CLOSED 127.0.0.1:5432', 'CONNECTION_CLOSED'))).toBe(
      true,
    );
    expect(isConnectionLoss(withCode('write EPIPE', 'EPIPE'))).toBe(true);
    expect(isConnectionLoss(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isConnectionLoss(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isConnectionLoss('ECONNRESET')).toBe(false);
    expect(isConnectionLoss({ code: 'ECONNRESET' })).toBe(false);
  });

  it('is logged when it is a lost connection, and thrown again when it is anything else', () => {
    const logged: unknown[] = [];
    const handle = onUnobservedRejection({ error: (fields: unknown) => void logged.push(fields) });
    const lost = withCode('read ECONNRESET', 'ECONNRESET');
    handle(lost);
    expect(logged).toEqual([{ err: lost }]);
    const bug = new TypeError('a bug');
    expect(() => handle(bug)).toThrow(bug);
  });

  // The handler as a service process installs it: the process lives on after a lost connection nobody
  // awaited, and still ends on any other unobserved rejection.
  function processWith(reason: string) {
    const module = path.join(__dirname, '..', 'src', 'connection-loss.ts');
    const code = `
      const loaded = await import(${JSON.stringify(module)});
      const { onUnobservedRejection } = loaded.onUnobservedRejection ? loaded : loaded.default;
      process.on('unhandledRejection', onUnobservedRejection({ error: () => process.stdout.write('logged\\n') }));
      Promise.reject(${reason});
      setTimeout(() => process.stdout.write('still running\\n'), 100);`;
    return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      encoding: 'utf8',
      timeout: 20_000,
    });
  }

  it('leaves a service process running after a lost connection, and ends it on anything else', () => {
    const lost = processWith(`Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })`);
    expect({ status: lost.status, out: lost.stdout }).toEqual({ status: 0, out: 'logged\nstill running\n' });
    const bug = processWith(`new TypeError('a bug')`);
    expect(bug.status).not.toBe(0);
    expect(bug.stdout).toBe('');
    expect(bug.stderr).toContain('a bug');
  }, 30_000);
});
