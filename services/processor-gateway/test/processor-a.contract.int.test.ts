import { createLogger } from '@payrail/observability';
import { waitFor } from '@payrail/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCardProcessors, ProcessorUnavailable } from '../src/adapters/processors';
import { createProcessorA } from '../src/adapters/processors/processor-a';
import { processorAToken } from '../src/adapters/processors/processor-a-token';
import type { CardProcessor, ConfirmationResult, StoredCard } from '../src/ports/card-processor';
import { aReference, type ContractSandbox, KEYS, startContractSandbox } from './contract-sandbox';

const logger = createLogger('processor-gateway', process.env.TEST_LOG_LEVEL ?? 'silent');
const CARD = {
  approved: '4242424242424242',
  mastercard: '5555555555554444',
  doNotHonour: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expired: '4000000000000069',
  laterDeclined: '4000000000000341',
  replyLost: '4000000000000259',
  slow: '4000000000000077',
};

let sandbox: ContractSandbox;
let processorA: CardProcessor;
let confirmations: ConfirmationResult[];

beforeAll(async () => {
  sandbox = await startContractSandbox();
  processorA = createCardProcessors(
    { 'PARAGUAY.PROCESSOR_A': sandbox.settings('A'), 'PARAGUAY.PROCESSOR_B': sandbox.settings('B') },
    { logger },
  )('PARAGUAY.PROCESSOR_A');
});

afterAll(async () => {
  await sandbox?.stop();
});

beforeEach(async () => {
  await sandbox.reset();
  confirmations = [];
  // What processor-gateway's webhook endpoint does with A's confirmation: hand it to the adapter, answer
  // what it says.
  sandbox.receiveWith(async (processor, raw) => {
    if (processor !== 'A') return { status: 404, body: {} };
    const result = await processorA.verifyConfirmation(raw);
    confirmations.push(result);
    return result.reply;
  });
});

async function payHosted(cardNumber: string, amount = '150000.00') {
  const reference = aReference();
  const opened = await processorA.openPayment({
    reference,
    amount,
    currency: 'PYG',
    description: 'Plan mensual de gimnasio con extras',
    returnUrl: 'http://pay.test/pay/l1/return',
    cancelUrl: 'http://pay.test/pay/l1',
  });
  if (opened.kind !== 'opened' || opened.form.kind !== 'iframe')
    throw new Error(`not opened: ${JSON.stringify(opened)}`);
  const completed = await sandbox.complete({ processId: opened.form.processId }, cardNumber);
  return { reference, form: opened.form, completed };
}

async function registerCard(cardNumber: string): Promise<{ customerRef: string; card: StoredCard }> {
  const customerRef = aReference();
  const opened = await processorA.openCardRegistration({
    customerRef,
    registrationRef: aReference(),
    returnUrl: 'http://pay.test/cards/return',
    email: 'ana@example.test',
    phone: '0981000000',
  });
  if (opened.kind !== 'opened' || opened.form.kind !== 'iframe')
    throw new Error(`not opened: ${JSON.stringify(opened)}`);
  const completed = await sandbox.complete({ processId: opened.form.processId }, cardNumber);
  expect(completed.outcome).toBe('registered');
  const cards = await processorA.completeCardRegistration({ customerRef, registrationRef: '0' });
  expect(cards).toHaveLength(1);
  return { customerRef, card: cards[0]! };
}

function charge(customerRef: string, cardRef: string, amount = '150000.00', reference = aReference()) {
  return processorA.chargeStoredCard({
    reference,
    customerRef,
    cardRef,
    amount,
    currency: 'PYG',
    description: 'Cuota 1',
    sendBy: new Date(Date.now() + 60_000),
  });
}

describe('PROCESSOR_A hosted payment (iframe, signed one-shot webhook)', () => {
  it('opens an iframe form, and a correctly signed confirmation is accepted and confirmed by get_confirmation', async () => {
    const { reference, form, completed } = await payHosted(CARD.approved);
    expect(form.formUrl).toBe(`${sandbox.baseUrl}/checkout/new?process_id=${form.processId}`);
    expect(completed.outcome).toBe('approved');

    expect(confirmations).toHaveLength(1);
    expect(confirmations[0]).toMatchObject({
      kind: 'verified',
      reference,
      outcome: { status: 'paid', amount: '150000.00', currency: 'PYG' },
      reply: { status: 200, body: { status: 'success' } },
    });
    const deliveries = await sandbox.deliveries();
    expect(deliveries.map((d) => d.status)).toEqual([200]);
    const ledger = await sandbox.ledger();
    expect(ledger).toMatchObject([
      { kind: 'charge', reference, amount: '150000.00', resultCode: '00', last4: '4242' },
    ]);
  });

  it('a confirmation with a bad token is refused in A’s own error shape, and nothing is trusted', async () => {
    const reference = aReference();
    const forged = {
      operation: {
        token: processorAToken.confirmation('not-the-private-key', reference, '150000.00', 'PYG'),
        shop_process_id: Number(reference),
        response: 'S',
        response_code: '00',
        amount: '150000.00',
        currency: 'PYG',
        authorization_number: '123456',
      },
    };
    const result = await processorA.verifyConfirmation({ body: JSON.stringify(forged), headers: {} });
    expect(result).toMatchObject({
      kind: 'rejected',
      reply: {
        status: 401,
        body: { status: 'error', messages: [{ key: 'InvalidTokenError', level: 'error' }] },
      },
    });

    const unsigned = await processorA.verifyConfirmation({
      body: '{"operation":{"shop_process_id":1}}',
      headers: {},
    });
    expect(unsigned.kind).toBe('rejected');
    expect((await processorA.verifyConfirmation({ body: 'not json', headers: {} })).kind).toBe('rejected');
  });

  it('a signed but stale confirmation is overruled by the status query (approved, then rolled back)', async () => {
    const { reference } = await payHosted(CARD.approved);
    const original = confirmations[0];
    expect(original?.kind).toBe('verified');
    expect(await processorA.reverse({ reference })).toEqual({ kind: 'reversed' });
    // Replaying the very same signed body now: the signature is fine, but the processor says "reversed".
    const replay = await processorA.verifyConfirmation({
      body: JSON.stringify((await sandbox.deliveries())[0]!.body),
      headers: {},
    });
    expect(replay).toMatchObject({ kind: 'verified', reference, outcome: { status: 'reversed' } });
  });

  it('the processor refuses our calls when our token is wrong, in its own error shape', async () => {
    const wrongKey = createProcessorA(sandbox.settings('A', { privateKey: 'wrong-private-key' }), { logger });
    const opened = await wrongKey.openPayment({
      reference: aReference(),
      amount: '1000.00',
      currency: 'PYG',
      description: 'x',
      returnUrl: 'http://pay.test/r',
      cancelUrl: 'http://pay.test/c',
    });
    expect(opened).toEqual({
      kind: 'refused',
      decline: { code: 'InvalidTokenError', category: 'processor-down', message: expect.any(String) },
    });
    const wrongPublic = createProcessorA(sandbox.settings('A', { publicKey: 'someone-else' }), { logger });
    expect(await wrongPublic.queryStatus({ reference: aReference() })).toMatchObject({
      status: 'unreachable',
    });
  });

  it.each([
    [CARD.doNotHonour, '05', 'soft'],
    [CARD.insufficientFunds, '51', 'soft'],
    [CARD.expired, '54', 'hard'],
  ])('card %s: the confirmation maps to declined %s (%s)', async (cardNumber, code, category) => {
    const { reference } = await payHosted(cardNumber);
    expect(confirmations).toHaveLength(1);
    expect(confirmations[0]).toMatchObject({
      kind: 'verified',
      reference,
      outcome: { status: 'declined', code, category },
      reply: { status: 200 },
    });
  });

  it('a dropped confirmation (and card 0259 on the form) is settled by the status query', async () => {
    await sandbox.fault('A', 'drop-webhook');
    const dropped = await payHosted(CARD.approved);
    const lostFirst = await payHosted(CARD.replyLost);
    expect(confirmations).toHaveLength(0);
    expect(await processorA.queryStatus({ reference: dropped.reference })).toMatchObject({
      status: 'paid',
      amount: '150000.00',
    });
    expect(await processorA.queryStatus({ reference: lostFirst.reference })).toMatchObject({
      status: 'paid',
    });
    expect(await processorA.queryStatus({ reference: aReference() })).toEqual({ status: 'not-found' });
  });

  it('a duplicated confirmation verifies to the same outcome twice, with one charge at the processor', async () => {
    await sandbox.fault('A', 'duplicate-webhook');
    const { reference } = await payHosted(CARD.approved);
    await waitFor(() => confirmations.length === 2);
    expect(confirmations.map((c) => c.kind === 'verified' && [c.reference, c.outcome.status])).toEqual([
      [reference, 'paid'],
      [reference, 'paid'],
    ]);
    expect((await sandbox.ledger()).filter((e) => e.reference === reference)).toHaveLength(1);
  });

  it('reordered confirmations each settle their own reference from the status query', async () => {
    await sandbox.fault('A', 'reorder-webhooks', 2);
    await sandbox.outcomes('A', '4242', ['51']);
    const declined = await payHosted(CARD.approved, '1000.00');
    const approved = await payHosted(CARD.approved, '2000.00');
    await waitFor(() => confirmations.length === 2);
    const byReference = Object.fromEntries(
      confirmations.map((c) => [
        c.kind === 'verified' ? c.reference : 'rejected',
        c.kind === 'verified' ? c.outcome : null,
      ]),
    );
    expect(confirmations.map((c) => c.kind === 'verified' && c.reference)).toEqual([
      approved.reference,
      declined.reference,
    ]);
    expect(byReference[approved.reference]).toMatchObject({ status: 'paid', amount: '2000.00' });
    expect(byReference[declined.reference]).toMatchObject({
      status: 'declined',
      code: '51',
      category: 'soft',
    });
  });

  it('rolls back the same day; on a later day the processor refuses (TransactionAlreadyConfirmed)', async () => {
    const today = await payHosted(CARD.approved);
    expect(await processorA.reverse({ reference: today.reference })).toEqual({ kind: 'reversed' });
    expect(await processorA.reverse({ reference: today.reference })).toEqual({ kind: 'reversed' });
    expect(await processorA.queryStatus({ reference: today.reference })).toEqual({ status: 'reversed' });

    const yesterday = await payHosted(CARD.approved);
    await sandbox.advanceClock(26 * 3600);
    expect(await processorA.reverse({ reference: yesterday.reference })).toMatchObject({
      kind: 'refused',
      code: 'TransactionAlreadyConfirmed',
    });
    expect((await sandbox.ledger()).map((e) => e.kind)).toEqual(['charge', 'rollback', 'charge']);
  });

  it('a rollback in an outage is unavailable (nothing done); one whose answer is lost is unknown, and done', async () => {
    const paid = await payHosted(CARD.approved);
    await sandbox.fault('A', 'outage');
    expect(await processorA.reverse({ reference: paid.reference })).toMatchObject({ kind: 'unavailable' });
    expect(await processorA.queryStatus({ reference: paid.reference })).toMatchObject({ status: 'paid' });
    await sandbox.fault('A', 'lose-reply');
    expect(await processorA.reverse({ reference: paid.reference })).toMatchObject({ kind: 'unknown' });
    expect(await processorA.queryStatus({ reference: paid.reference })).toEqual({ status: 'reversed' });
    expect((await sandbox.ledger()).map((e) => e.kind)).toEqual(['charge', 'rollback']);
  });
});

describe('PROCESSOR_A stored cards (cards/new, user cards, synchronous charge)', () => {
  it('registers a card and lists it by its durable card id, never exposing the alias', async () => {
    const { customerRef, card } = await registerCard(CARD.mastercard);
    expect(card).toEqual({
      cardRef: expect.stringMatching(/^\d+$/),
      maskedNumber: '555555******4444',
      last4: '4444',
      brand: expect.stringMatching(/master/i),
      expiryMonth: expect.any(Number),
      expiryYear: expect.any(Number),
    });
    expect(JSON.stringify(await processorA.listCards(customerRef))).not.toMatch(/alias/i);
    expect(await processorA.listCards(aReference())).toEqual([]);
  });

  it('charges with a fresh alias each time: approved, amount as "N.00", one ledger entry per charge', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    const first = await charge(customerRef, card.cardRef, '150000');
    const second = await charge(customerRef, card.cardRef, '99000.00');
    expect(first).toMatchObject({ kind: 'approved', authorizationCode: expect.any(String) });
    expect(second).toMatchObject({ kind: 'approved' });
    expect((await sandbox.ledger()).map((e) => [e.amount, e.resultCode])).toEqual([
      ['150000.00', '00'],
      ['99000.00', '00'],
    ]);
  });

  it('an alias used twice, or after its 10 minutes, is refused; the adapter itself always lists a fresh one', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    const privateKey = KEYS.A.privateKey;
    const listAlias = async () => {
      const listed = await sandbox.post(`vpos/api/0.3/users/${customerRef}/cards`, {
        public_key: KEYS.A.publicKey,
        operation: { token: processorAToken.userCards(privateKey, customerRef) },
      });
      return (listed.body as { cards: Array<{ alias_token: string }> }).cards[0]!.alias_token;
    };
    const chargeRaw = (alias: string) => {
      const spid = aReference();
      return sandbox.post('vpos/api/0.3/charge', {
        public_key: KEYS.A.publicKey,
        operation: {
          token: processorAToken.charge(privateKey, spid, '1000.00', 'PYG', alias),
          shop_process_id: Number(spid),
          amount: '1000.00',
          currency: 'PYG',
          alias_token: alias,
        },
      });
    };
    const alias = await listAlias();
    expect((await chargeRaw(alias)).status).toBe(200);
    expect(await chargeRaw(alias)).toMatchObject({
      body: { status: 'error', messages: [{ key: 'CardAliasTokenExpiredError' }] },
    });

    const stale = await listAlias();
    await sandbox.advanceClock(11 * 60);
    expect(await chargeRaw(stale)).toMatchObject({
      body: { status: 'error', messages: [{ key: 'CardAliasTokenExpiredError' }] },
    });
    // Same card, same simulated time: the adapter lists right before charging, so it is not affected.
    expect(await charge(customerRef, card.cardRef)).toMatchObject({ kind: 'approved' });
  });

  it.each([
    ['14', 'hard'],
    ['57', 'hard'],
    ['12', 'hard'],
    ['61', 'soft'],
    ['96', 'soft'],
    ['05', 'soft'],
    ['94', 'soft'],
  ])('decline code %s is a %s decline', async (code, category) => {
    const { customerRef, card } = await registerCard(CARD.approved);
    await sandbox.outcomes('A', '4242', [code]);
    expect(await charge(customerRef, card.cardRef)).toMatchObject({ kind: 'declined', code, category });
  });

  it('test cards: 9995 declined 51 soft; 0341 pays once then 51', async () => {
    const poor = await registerCard(CARD.insufficientFunds);
    expect(await charge(poor.customerRef, poor.card.cardRef)).toMatchObject({
      kind: 'declined',
      code: '51',
      category: 'soft',
    });
    const later = await registerCard(CARD.laterDeclined);
    expect(await charge(later.customerRef, later.card.cardRef)).toMatchObject({ kind: 'approved' });
    expect(await charge(later.customerRef, later.card.cardRef)).toMatchObject({
      kind: 'declined',
      code: '51',
    });
  });

  it('after 7 declines in 24 h the card is blocked: CardBlockedError maps to card-blocked, not charged', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    await sandbox.outcomes('A', '4242', ['51', '51', '51', '51', '51', '51', '51']);
    for (let i = 0; i < 7; i++)
      expect(await charge(customerRef, card.cardRef)).toMatchObject({ kind: 'declined', code: '51' });
    expect(await charge(customerRef, card.cardRef)).toMatchObject({
      kind: 'declined',
      code: 'CardBlockedError',
      category: 'card-blocked',
    });
    expect(await sandbox.ledger()).toHaveLength(7);
  });

  it('the same charge sent again under its shop_process_id (the janitor after a crash): unknown, never charged twice', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    const reference = aReference();
    expect(await charge(customerRef, card.cardRef, '150000.00', reference)).toMatchObject({
      kind: 'approved',
    });
    // "process has already been taken": the status query decides, never a decline.
    expect(await charge(customerRef, card.cardRef, '150000.00', reference)).toMatchObject({
      kind: 'unknown',
    });
    expect(await processorA.queryStatus({ reference })).toMatchObject({ status: 'paid' });
    expect((await sandbox.ledger()).filter((e) => e.reference === reference)).toHaveLength(1);
  });

  it('lost reply (card 0259): unknown, never a decline; the status query finds it paid; one ledger entry', async () => {
    const { customerRef, card } = await registerCard(CARD.replyLost);
    const reference = aReference();
    const result = await processorA.chargeStoredCard({
      reference,
      customerRef,
      cardRef: card.cardRef,
      amount: '150000.00',
      currency: 'PYG',
      description: 'Cuota 1',
      sendBy: new Date(Date.now() + 60_000),
    });
    expect(result.kind).toBe('unknown');
    expect(await processorA.queryStatus({ reference })).toMatchObject({
      status: 'paid',
      amount: '150000.00',
    });
    expect((await sandbox.ledger()).filter((e) => e.reference === reference)).toHaveLength(1);
  });

  it('lose-reply on a call that moves no money: the listing is processor-down, the status query unreachable', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    // Every API call of A counts; the listing is the first call of a charge.
    await sandbox.fault('A', 'lose-reply');
    const reference = aReference();
    expect(await charge(customerRef, card.cardRef)).toMatchObject({
      kind: 'declined',
      category: 'processor-down',
    });
    await sandbox.fault('A', 'lose-reply');
    expect(await processorA.queryStatus({ reference })).toMatchObject({ status: 'unreachable' });
    expect(await sandbox.ledger()).toEqual([]);
  });

  it('a reply slower than our deadline is unknown (card 0077), and the status query finds it paid', async () => {
    const { customerRef, card } = await registerCard(CARD.slow);
    const impatient = createProcessorA(sandbox.settings('A', { timeoutMs: 1_500 }), { logger });
    const reference = aReference();
    const result = await impatient.chargeStoredCard({
      reference,
      customerRef,
      cardRef: card.cardRef,
      amount: '7000.00',
      currency: 'PYG',
      description: 'x',
      sendBy: new Date(Date.now() + 60_000),
    });
    expect(result).toMatchObject({ kind: 'unknown', reason: 'timeout' });
    expect(await processorA.queryStatus({ reference })).toMatchObject({ status: 'paid', amount: '7000.00' });
  });

  it('a slow approval within the deadline (card 0077, 8 s) is approved', { timeout: 20_000 }, async () => {
    const { customerRef, card } = await registerCard(CARD.slow);
    expect(await charge(customerRef, card.cardRef)).toMatchObject({ kind: 'approved' });
  });

  it('outage (503): processor-down, retryable, nothing charged', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    await sandbox.fault('A', 'outage', 5);
    expect(await charge(customerRef, card.cardRef)).toMatchObject({
      kind: 'declined',
      category: 'processor-down',
    });
    expect(await processorA.queryStatus({ reference: aReference() })).toMatchObject({
      status: 'unreachable',
    });
    await expect(processorA.listCards(customerRef)).rejects.toBeInstanceOf(ProcessorUnavailable);
    expect(await sandbox.ledger()).toEqual([]);
  });

  it('a processor that cannot be reached at all is processor-down, not unknown', async () => {
    const nowhere = createProcessorA(sandbox.settings('A', { baseUrl: 'http://127.0.0.1:9' }), { logger });
    expect(
      await nowhere.chargeStoredCard({
        reference: aReference(),
        customerRef: aReference(),
        cardRef: '1',
        amount: '1000.00',
        currency: 'PYG',
        description: 'x',
        sendBy: new Date(Date.now() + 60_000),
      }),
    ).toMatchObject({ kind: 'declined', category: 'processor-down' });
  });

  it('removes a card at the processor; removing it again answers false', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    expect(await processorA.removeCard({ customerRef, cardRef: card.cardRef })).toBe(true);
    expect(await processorA.listCards(customerRef)).toEqual([]);
    expect(await processorA.removeCard({ customerRef, cardRef: card.cardRef })).toBe(false);
    expect(await charge(customerRef, card.cardRef)).toMatchObject({ kind: 'declined', code: 'CardNotFound' });
  });
});
