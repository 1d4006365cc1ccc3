import { createHash, timingSafeEqual } from 'node:crypto';

// Each processor signs with a hash of its private key followed by fields, in a fixed order per operation
// (the orders of the real APIs, see processors.md). Integers are concatenated in decimal.
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex');

type Part = string | number;
const join = (parts: Part[]) => parts.map(String).join('');

export const processorATokens = {
  singleBuy: (priv: string, spid: Part, amount: string, currency: string) =>
    md5(join([priv, spid, amount, currency])),
  confirm: (priv: string, spid: Part, amount: string, currency: string) =>
    md5(join([priv, spid, 'confirm', amount, currency])),
  getConfirmation: (priv: string, spid: Part) => md5(join([priv, spid, 'get_confirmation'])),
  rollback: (priv: string, spid: Part) => md5(join([priv, spid, 'rollback', '0.00'])),
  newCard: (priv: string, cardId: Part, userId: Part) =>
    md5(join([priv, cardId, userId, 'request_new_card'])),
  userCards: (priv: string, userId: Part) => md5(join([priv, userId, 'request_user_cards'])),
  charge: (priv: string, spid: Part, amount: string, currency: string, aliasToken: string) =>
    md5(join([priv, spid, 'charge', amount, currency, aliasToken])),
  deleteCard: (priv: string, userId: Part, aliasToken: string) =>
    md5(join([priv, 'delete_card', userId, aliasToken])),
};

export const processorBTokens = {
  startTransaction: (priv: string, orderId: string, amount: number) => sha1(join([priv, orderId, amount])),
  notification: (priv: string, hash: string) => sha1(join([priv, hash])),
  query: (priv: string) => sha1(join([priv, 'CONSULTA'])),
  reverse: (priv: string) => sha1(join([priv, 'PEDIDO-REVERSAR'])),
  recurring: (priv: string) => sha1(join([priv, 'PAGO-RECURRENTE'])),
};

export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}
