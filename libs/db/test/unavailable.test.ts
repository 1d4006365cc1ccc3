import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('is true for a connection that could not be made or went away, and a server that cannot serve', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT'])
      expect(isDatabaseUnavailable(withCode(`write ${code}`, code)), code).toBe(true);
    // Class 08 (connection exception), shutdown and start-up, out of connections.
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300'])
      expect(isDatabaseUnavailable(withCode('server', code)), code).toBe(true);
  });

  it('looks through a wrapping error (drizzle wraps the driver’s)', () => {
    const wrapped = new Error('Failed query: select 1', { cause: withCode('read ECONNRESET', 'ECONNRESET') });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it('is false for anything about the work itself', () => {
    expect(isDatabaseUnavailable(withCode('duplicate key value', '23505'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('could not serialize access', '40001'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('syntax error', '42601'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: new Error('no code') }))).toBe(false);
    expect(isDatabaseUnavailable({ code: 'ECONNREFUSED' })).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
