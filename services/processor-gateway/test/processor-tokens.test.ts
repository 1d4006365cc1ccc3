import { describe, expect, it } from 'vitest';
import { processorAToken } from '../src/adapters/processors/processor-a-token';
import { processorBToken } from '../src/adapters/processors/processor-b-token';
import { sameToken } from '../src/adapters/processors/token-compare';

// Expected values computed outside Node (coreutils md5sum / sha1sum over the concatenated text), so a
// wrong field order or a missing constant word fails here before it fails against a processor.
describe('PROCESSOR_A tokens (MD5 of private key + fields)', () => {
  const key = 'sandbox-a-private';
  it.each([
    [
      'single_buy',
      processorAToken.singleBuy(key, '123', '150000.00', 'PYG'),
      '61c9cef8986a9d0d4d2ca882944d9205',
    ],
    [
      'confirmation',
      processorAToken.confirmation(key, '123', '150000.00', 'PYG'),
      '2ada0812b07367085c546bed429e7e5f',
    ],
    ['get_confirmation', processorAToken.getConfirmation(key, '123'), '55462bcda88d5319e14189e08586eeff'],
    ['rollback', processorAToken.rollback(key, '123'), '941934a48632569763a7cf27239df97c'],
    ['cards/new', processorAToken.newCard(key, '77', '555'), 'bfb343eea95db511727aa342e82b7de5'],
    ['user cards', processorAToken.userCards(key, '555'), '7119cf0ae1d98ebf2dd4eb8c70d80b55'],
    [
      'charge',
      processorAToken.charge(key, '123', '150000.00', 'PYG', 'alias-1'),
      'c444dbdb5625c73a759b9f33df32816f',
    ],
    ['delete card', processorAToken.deleteCard(key, '555', 'alias-1'), '0e1de7379a4145da155100f8b949c610'],
  ])('%s', (_operation, actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('PROCESSOR_B tokens (SHA-1 of private key + fields or a fixed word)', () => {
  const key = 'sandbox-b-private';
  it.each([
    [
      'start transaction',
      processorBToken.startTransaction(key, 'ord-1', '150000'),
      '23df29f6b0c061b1d5dac887a48e71c22ce8d741',
    ],
    [
      'notification',
      processorBToken.notification(key, 'abc123hash'),
      '63c1adffb220cfa33c9aa4ef7a0c501841727a41',
    ],
    ['traer', processorBToken.query(key), '48311d61de3b91653ce349b43c6dbfb550d64670'],
    ['recurring', processorBToken.recurring(key), '56404dca98bd8c0f149910b0d92e6a016a724f98'],
    ['reverse', processorBToken.reverse(key), '68778565ce92cba62e21f27843555977458d2409'],
  ])('%s', (_operation, actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('sameToken', () => {
  it('accepts the same hex in either case and refuses anything else', () => {
    expect(sameToken('61c9cef8986a9d0d4d2ca882944d9205', '61C9CEF8986A9D0D4D2CA882944D9205')).toBe(true);
    expect(sameToken('61c9cef8986a9d0d4d2ca882944d9205', '61c9cef8986a9d0d4d2ca882944d9206')).toBe(false);
    expect(sameToken('61c9cef8986a9d0d4d2ca882944d9205', '61c9cef8')).toBe(false);
    expect(sameToken('61c9cef8986a9d0d4d2ca882944d9205', undefined)).toBe(false);
    expect(sameToken('61c9cef8986a9d0d4d2ca882944d9205', 12345)).toBe(false);
  });
});
