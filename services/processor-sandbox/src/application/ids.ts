import { randomInt } from 'node:crypto';
import { randomPool } from '@payrail/runtime';

// Two tokens a stored-card charge (the alias listed, then the payment's process id).
const randomBytes = randomPool();

/**
 * A random hex identifier with no run of more than 4 digits: long digit runs in stored references
 * would look like card numbers to the scans that prove none is stored.
 */
export function randomToken(bytes = 16): string {
  let run = 0;
  return [...randomBytes(bytes).toString('hex')]
    .map((ch) => {
      const isDigit = ch >= '0' && ch <= '9';
      run = isDigit ? run + 1 : 0;
      if (run <= 4) return ch;
      run = 0;
      return 'abcdef'[Number(ch) % 6];
    })
    .join('');
}

/** A short number string; kept under 13 digits so it never looks like a card number. */
export const randomDigits = (length: number) =>
  Array.from({ length }, (_, i) => String(i === 0 ? randomInt(1, 10) : randomInt(0, 10))).join('');
