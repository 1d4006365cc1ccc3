import { createHash } from 'node:crypto';

/**
 * The id of the `part`-th envelope made from one bus event: derived, not random, so a redelivered bus
 * event makes the same envelope (and the log's unique id keeps it once).
 */
export function envelopeId(sourceEventId: string, part: number): string {
  return `evt_${createHash('sha256').update(`${sourceEventId}:${part}`).digest('hex').slice(0, 24)}`;
}
