import type { Decline } from '../../ports/card-processor';

/**
 * Thrown only by the port methods whose result has no room for "could not ask" (`listCards`, `removeCard`,
 * `completeCardRegistration`): the caller tells the person the processor is unavailable, and nothing changed.
 * Charges, status queries, confirmations and reversals never throw; they answer a value.
 */
export class ProcessorUnavailable extends Error {
  constructor(
    readonly processor: string,
    readonly decline: Decline,
  ) {
    super(`${processor} unavailable: ${decline.code}${decline.message ? ` ${decline.message}` : ''}`);
    this.name = 'ProcessorUnavailable';
  }
}
