import { randomInt } from 'node:crypto';

/**
 * A processor-facing id: 12 digits, first not zero. PROCESSOR_A takes an integer of up to 15 digits and
 * PROCESSOR_B any text; random rather than a sequence so that it is unique at the processor even across
 * databases (a restored backup, staging against the same processor). Collisions meet a unique constraint.
 * Twelve, not fifteen: a run of 13 to 19 digits anywhere in our tables, logs or events would look like a
 * card number, and the scans that prove we hold none must not have to tell the two apart.
 */
export function newProcessorReference(): string {
  const head = randomInt(1, 10).toString();
  const middle = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const tail = randomInt(0, 100_000).toString().padStart(5, '0');
  return `${head}${middle}${tail}`;
}
