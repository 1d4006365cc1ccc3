import { createHash } from 'node:crypto';

/**
 * PROCESSOR_A signs every operation with an MD5 of its private key followed by the operation's fields, in
 * an order fixed per operation (the vPOS 2.0 scheme). MD5 is the processor's choice, not ours: it is a
 * shared-secret check here, not a password hash.
 */
function md5Hex(parts: readonly string[]): string {
  return createHash('md5').update(parts.join(''), 'utf8').digest('hex');
}

export const processorAToken = {
  singleBuy: (privateKey: string, shopProcessId: string, amount: string, currency: string) =>
    md5Hex([privateKey, shopProcessId, amount, currency]),
  /** What the processor puts in its confirmation webhook. */
  confirmation: (privateKey: string, shopProcessId: string, amount: string, currency: string) =>
    md5Hex([privateKey, shopProcessId, 'confirm', amount, currency]),
  getConfirmation: (privateKey: string, shopProcessId: string) =>
    md5Hex([privateKey, shopProcessId, 'get_confirmation']),
  rollback: (privateKey: string, shopProcessId: string) =>
    md5Hex([privateKey, shopProcessId, 'rollback', '0.00']),
  newCard: (privateKey: string, cardId: string, userId: string) =>
    md5Hex([privateKey, cardId, userId, 'request_new_card']),
  userCards: (privateKey: string, userId: string) => md5Hex([privateKey, userId, 'request_user_cards']),
  charge: (privateKey: string, shopProcessId: string, amount: string, currency: string, aliasToken: string) =>
    md5Hex([privateKey, shopProcessId, 'charge', amount, currency, aliasToken]),
  deleteCard: (privateKey: string, userId: string, aliasToken: string) =>
    md5Hex([privateKey, 'delete_card', userId, aliasToken]),
};
