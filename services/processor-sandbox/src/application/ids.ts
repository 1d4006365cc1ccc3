import { randomBytes, randomInt } from 'node:crypto';

export const randomToken = (bytes = 16) => randomBytes(bytes).toString('hex');
/** A short number string; kept under 13 digits so it never looks like a card number. */
export const randomDigits = (length: number) =>
  Array.from({ length }, (_, i) => String(i === 0 ? randomInt(1, 10) : randomInt(0, 10))).join('');
