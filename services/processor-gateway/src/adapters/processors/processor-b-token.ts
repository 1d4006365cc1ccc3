import { createHash } from 'node:crypto';

/**
 * PROCESSOR_B signs with a SHA-1 of its private key followed by fields or a fixed word per API family (the
 * Pagopar scheme). SHA-1 is the processor's choice: a shared-secret check, not a password hash.
 */
function sha1Hex(parts: readonly string[]): string {
  return createHash('sha1').update(parts.join(''), 'utf8').digest('hex');
}

export const processorBToken = {
  /** Starting a transaction: the order id and the integer total. */
  startTransaction: (privateKey: string, orderId: string, integerAmount: string) =>
    sha1Hex([privateKey, orderId, integerAmount]),
  /** What the processor puts in its payment notification. */
  notification: (privateKey: string, hash: string) => sha1Hex([privateKey, hash]),
  /** Status polling (`traer`). */
  query: (privateKey: string) => sha1Hex([privateKey, 'CONSULTA']),
  /** Every stored-card call (customers, cards, pay). */
  recurring: (privateKey: string) => sha1Hex([privateKey, 'PAGO-RECURRENTE']),
  reverse: (privateKey: string) => sha1Hex([privateKey, 'PEDIDO-REVERSAR']),
};
