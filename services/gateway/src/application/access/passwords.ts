import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';
import { COMMON_PASSWORDS_CHECKED } from '../../domain/access/rules';

/**
 * Passwords are hashed with scrypt (memory-hard; Node's `crypto.scrypt`): N = 2^15, r = 8, p = 1 (32 MiB
 * and about a tenth of a second a hash), a 16-byte random salt, a 32-byte key. The parameters are kept in
 * each hash (`scrypt$N$r$p$salt$key`), so raising them later leaves older hashes checkable.
 */
export const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 } as const;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keyLength: number) {
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * p + 16 * 1024 * 1024 };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const derived = await derive(
    password,
    Buffer.from(salt, 'base64'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(derived, expected);
}

/** A hash nobody's password matches: checked for an unknown e-mail, so that it takes as long as a known one. */
export const UNMATCHABLE_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

let commonest: Set<string> | undefined;

/**
 * Whether the password is among the 10,000 commonest: the head of the ranked list of `@zxcvbn-ts/language-common`
 * (MIT), compared in lower case (`Password1234` is `password1234`). Loaded once, on first use.
 */
export function isCommonPassword(password: string): boolean {
  commonest ??= new Set((dictionary['passwords-common'] as string[]).slice(0, COMMON_PASSWORDS_CHECKED));
  return commonest.has(password.toLowerCase());
}
