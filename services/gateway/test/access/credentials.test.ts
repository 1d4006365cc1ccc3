import { describe, expect, it } from 'vitest';
import {
  hashPassword,
  isCommonPassword,
  UNMATCHABLE_HASH,
  verifyPassword,
} from '../../src/application/access/passwords';
import {
  acceptedStep,
  base32Decode,
  base32Encode,
  newTotpSecret,
  otpauthUri,
  timeStep,
  totpCode,
} from '../../src/application/access/totp';
import { afterFailedLogin, isLocked, passwordProblem } from '../../src/domain/access/rules';

describe('TOTP (RFC 6238, SHA-1)', () => {
  // RFC 6238 appendix B: the 20-byte ASCII secret, 8 digits.
  const secret = Buffer.from('12345678901234567890', 'ascii');
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('at %i s the code is %s', (seconds, code) => {
    expect(totpCode(secret, timeStep(new Date(seconds * 1000)), 8)).toBe(code);
  });

  it('base32 round-trips, as authenticator apps read a secret', () => {
    expect(base32Encode(Buffer.from('12345678901234567890'))).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq').toString()).toBe('12345678901234567890');
    expect(newTotpSecret()).toMatch(/^[A-Z2-7]{32}$/);
  });

  it('accepts the current code and one step of drift, each step once, and nothing older', () => {
    const base32 = base32Encode(secret);
    const now = new Date(1111111111 * 1000);
    const step = timeStep(now);
    const code = totpCode(secret, step);
    expect(acceptedStep(base32, code, now, null)).toBe(step);
    expect(acceptedStep(base32, code, now, step)).toBeUndefined();
    expect(acceptedStep(base32, totpCode(secret, step - 1), now, null)).toBe(step - 1);
    expect(acceptedStep(base32, totpCode(secret, step - 1), now, step - 1)).toBeUndefined();
    expect(acceptedStep(base32, totpCode(secret, step - 2), now, null)).toBeUndefined();
    expect(acceptedStep(base32, '12345', now, null)).toBeUndefined();
  });

  it('writes the otpauth URI an app scans', () => {
    expect(otpauthUri('JBSWY3DPEHPK3PXP', 'ana@example.com')).toBe(
      'otpauth://totp/payrail%3Aana%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=payrail&algorithm=SHA1&digits=6&period=30',
    );
  });
});

describe('passwords', () => {
  it('hashes with scrypt, salted, parameters kept; verifies only the same password', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w+/=]+\$[\w+/=]+$/);
    expect(await hashPassword('correct horse battery')).not.toBe(hash);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
    expect(await verifyPassword('', UNMATCHABLE_HASH)).toBe(false);
  });

  it('refuses short, common and mismatched ones', () => {
    expect(passwordProblem('short', 'short', isCommonPassword)).toBe('too-short');
    expect(passwordProblem('Qwerty123456', 'Qwerty123456', isCommonPassword)).toBe('too-common');
    expect(passwordProblem('a fine long phrase', 'a fine long phrasE', isCommonPassword)).toBe('mismatch');
    expect(passwordProblem('a fine long phrase', 'a fine long phrase', isCommonPassword)).toBeUndefined();
  });

  it('the common list is the 10,000 commonest', () => {
    expect(isCommonPassword('password')).toBe(true);
    expect(isCommonPassword('123qweasdzxc')).toBe(true);
    expect(isCommonPassword('violet-tractor-umbrella')).toBe(false);
  });
});

describe('lockout', () => {
  it('the fifth failure in a row locks for 15 minutes', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    let state = { failedLogins: 0, lockedUntil: null as Date | null };
    for (let failure = 1; failure <= 4; failure += 1) {
      state = afterFailedLogin(state.failedLogins, now);
      expect(state.lockedUntil).toBeNull();
    }
    state = afterFailedLogin(state.failedLogins, now);
    expect(state.lockedUntil).toEqual(new Date('2026-11-23T12:15:00Z'));
    expect(isLocked(state.lockedUntil, new Date('2026-11-23T12:14:59Z'))).toBe(true);
    expect(isLocked(state.lockedUntil, new Date('2026-11-23T12:15:00Z'))).toBe(false);
  });
});
