import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processorATokens } from '../src/application/signatures';
import {
  KEYS,
  type Receiver,
  type ReplyA,
  type RunningSandbox,
  startReceiver,
  startSandbox,
} from './support/sandbox';

let sandbox: RunningSandbox;
let receiver: Receiver;
let spid = 1000;

beforeAll(async () => {
  receiver = await startReceiver();
  sandbox = await startSandbox({ SANDBOX_PROCESSOR_A_WEBHOOK_URL: receiver.url });
});
afterAll(async () => {
  await sandbox.stop();
  await receiver.close();
});
afterEach(async () => {
  await sandbox.test.reset();
  await sandbox.test.config({ processorAWebhookUrl: receiver.url });
  receiver.received.length = 0;
});

async function registeredAlias(userId: number, cardNumber: string, cardId = 1) {
  const registration = await sandbox.a.newCard(userId, cardId);
  expect(registration.status).toBe(200);
  const done = await sandbox.test.complete({ processId: registration.body.process_id, cardNumber });
  expect(done.body.outcome).toBe('registered');
  const cards = await sandbox.a.userCards(userId);
  return cards.body.cards[0]!.alias_token as string;
}

describe('PROCESSOR_A signatures', () => {
  it('accepts a good single_buy token and refuses a bad one in its own error shape', async () => {
    const good = await sandbox.a.singleBuy(++spid, '150000.00');
    expect(good.status).toBe(200);
    expect(good.body).toEqual({ status: 'success', process_id: expect.any(String) });

    const bad = await sandbox.call('/vpos/api/0.3/single_buy', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        public_key: KEYS.a.publicKey,
        operation: {
          token: processorATokens.singleBuy('wrong-private-key', spid + 1, '150000.00', 'PYG'),
          shop_process_id: spid + 1,
          amount: '150000.00',
          currency: 'PYG',
          return_url: 'http://shop.test/r',
          cancel_url: 'http://shop.test/c',
        },
      }),
    });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({
      status: 'error',
      messages: [{ key: 'InvalidTokenError', level: 'error', dsc: expect.any(String) }],
    });
  });

  it('refuses an unknown public key, a malformed amount, and a reused shop_process_id', async () => {
    const wrongKey = await sandbox.call<ReplyA>('/vpos/api/0.3/single_buy', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ public_key: 'nope', operation: { token: 'x' } }),
    });
    expect(wrongKey.body.messages[0]!.key).toBe('InvalidPublicKeyError');
    const leadingZero = await sandbox.a.singleBuy(++spid, '1000.00', { shop_process_id: `00${spid}` });
    expect(leadingZero.body.messages[0]!.key).toBe('InvalidJsonError');
    const tooLong = await sandbox.a.singleBuy(++spid, '1000.00', { shop_process_id: 1234567890123456 });
    expect(tooLong.body.messages[0]!.key).toBe('InvalidJsonError');
    const badAmount = await sandbox.a.singleBuy(++spid, '150000');
    expect(badAmount.status).toBe(400);
    expect(badAmount.body.messages[0]!.key).toBe('InvalidJsonError');
    expect((await sandbox.a.singleBuy(++spid, '1000.00')).status).toBe(200);
    const again = await sandbox.a.singleBuy(spid, '1000.00');
    expect(again.body.messages[0]).toMatchObject({ key: 'InvalidOperationError' });
  });
});

describe('PROCESSOR_A one-off payment', () => {
  it('single_buy, the hosted form completed, a signed webhook sent once, get_confirmation agrees', async () => {
    const buy = await sandbox.a.singleBuy(++spid, '150000.00');
    const processId = buy.body.process_id;
    const form = await sandbox.call(`/checkout/new?process_id=${processId}`);
    expect(form.status).toBe(200);
    for (const hook of ['card-number', 'card-expiry', 'card-cvv', 'card-holder', 'card-submit']) {
      expect(form.text).toContain(`data-testid="${hook}"`);
    }

    const done = await sandbox.test.complete({ processId, cardNumber: '4242424242424242' });
    expect(done.body).toEqual({
      outcome: 'approved',
      responseCode: '00',
      redirectUrl: 'http://shop.test/return?status=payment_success',
    });
    expect(receiver.received).toHaveLength(1);
    const { operation } = receiver.received[0]!;
    expect(operation).toMatchObject({
      shop_process_id: spid,
      response: 'S',
      response_code: '00',
      amount: '150000.00',
      currency: 'PYG',
      card_masked_number: '424242******4242',
    });
    expect(operation.token).toBe(processorATokens.confirm(KEYS.a.privateKey, spid, '150000.00', 'PYG'));
    const deliveries = await sandbox.test.webhooks();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ status: 200, attempt: 1 });

    const confirmation = await sandbox.a.getConfirmation(spid);
    expect(confirmation.body.confirmation).toEqual(operation);
    const ledger = await sandbox.test.ledger();
    expect(ledger).toEqual([
      expect.objectContaining({
        processor: 'PARAGUAY.PROCESSOR_A',
        kind: 'charge',
        reference: String(spid),
        processReference: processId,
        amount: '150000.00',
        currency: 'PYG',
        resultCode: '00',
        last4: '4242',
      }),
    ]);
    // One attempt per process: the form is closed now.
    expect((await sandbox.call(`/checkout/new?process_id=${processId}`)).status).toBe(404);
  });

  it('paying through the real form posts a message to the parent and sends the browser to return_url', async () => {
    const buy = await sandbox.a.singleBuy(++spid, '5000.00');
    const page = await sandbox.call('/checkout/new', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        process_id: buy.body.process_id,
        card_number: '4000 0000 0000 0002',
        card_expiry: '12/40',
        card_cvv: '123',
      }).toString(),
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      'data-testid="result" data-outcome="declined" data-code="05">Pago rechazado (código 05)',
    );
    expect(page.text).toContain('window.parent.postMessage');
    expect(page.text).toContain('"status":"payment_fail"');
    expect(page.text).toContain('http://shop.test/return?status=payment_fail');
    expect(receiver.received[0]!.operation).toMatchObject({ response: 'N', response_code: '05' });
  });

  it('get_confirmation tells an unknown buy from an unpaid one', async () => {
    expect((await sandbox.a.getConfirmation(987654)).body.messages[0]!.key).toBe('BuyNotFoundError');
    await sandbox.a.singleBuy(++spid, '1000.00');
    expect((await sandbox.a.getConfirmation(spid)).body.messages[0]!.key).toBe('PaymentNotFoundError');
  });

  it('rolls back the same day, refuses a second time and on a later day', async () => {
    const first = await sandbox.a.singleBuy(++spid, '1000.00');
    await sandbox.test.setClock('2026-11-23T12:00:00-03:00');
    await sandbox.test.complete({ processId: first.body.process_id, cardNumber: '4242424242424242' });
    const rollback = await sandbox.a.rollback(spid);
    expect(rollback.body).toEqual({
      status: 'success',
      messages: [{ key: 'RollbackSuccessful', level: 'info', dsc: 'Rollback correcto.' }],
    });
    expect((await sandbox.a.rollback(spid)).body.messages[0]!.key).toBe('AlreadyRollbackedError');
    expect((await sandbox.a.getConfirmation(spid)).body.messages[0]!.key).toBe('AlreadyRollbackedError');

    const second = await sandbox.a.singleBuy(++spid, '2000.00');
    await sandbox.test.complete({ processId: second.body.process_id, cardNumber: '4242424242424242' });
    await sandbox.test.setClock('2026-11-24T00:30:00-03:00');
    expect((await sandbox.a.rollback(spid)).body.messages[0]!.key).toBe('TransactionAlreadyConfirmed');

    const kinds = (await sandbox.test.ledger()).map((entry) => `${entry.kind}:${entry.reference}`);
    expect(kinds).toEqual([`charge:${spid - 1}`, `rollback:${spid - 1}`, `charge:${spid}`]);
  });
});

describe('PROCESSOR_A stored cards', () => {
  it('lists cards with masked numbers and a fresh single-use alias; charges it synchronously', async () => {
    const alias = await registeredAlias(77, '5555555555554444', 9);
    const cards = await sandbox.a.userCards(77);
    expect(cards.body.cards).toEqual([
      {
        alias_token: expect.any(String),
        card_masked_number: '555555******4444',
        expiration_date: expect.stringMatching(/^\d{2}\/\d{2}$/),
        card_brand: 'Mastercard',
        card_id: 9,
        card_type: 'credit',
      },
    ]);
    expect(cards.body.cards[0]!.alias_token).not.toBe(alias);

    const charge = await sandbox.a.charge(++spid, '75000.00', alias);
    expect(charge.status).toBe(200);
    expect(charge.body.confirmation).toMatchObject({
      response: 'S',
      response_code: '00',
      shop_process_id: spid,
    });
    const reused = await sandbox.a.charge(++spid, '75000.00', alias);
    expect(reused.body.messages[0]!.key).toBe('CardAliasTokenExpiredError');
    expect(await sandbox.test.ledger()).toHaveLength(1);
  });

  it('refuses an alias after its 10-minute TTL', async () => {
    const alias = await registeredAlias(78, '4242424242424242');
    await sandbox.test.advance(9 * 60);
    const fresh = (await sandbox.a.userCards(78)).body.cards[0]!.alias_token;
    await sandbox.test.advance(61);
    expect((await sandbox.a.charge(++spid, '1000.00', alias)).body.messages[0]!.key).toBe(
      'CardAliasTokenExpiredError',
    );
    expect((await sandbox.a.charge(++spid, '1000.00', fresh)).body.confirmation.response_code).toBe('00');
  });

  it('blocks a card at the merchant after 7 declines in 24 hours, for 30 days', async () => {
    await registeredAlias(79, '4000000000009995');
    for (let attempt = 0; attempt < 7; attempt += 1) {
      const alias = (await sandbox.a.userCards(79)).body.cards[0]!.alias_token;
      const charge = await sandbox.a.charge(++spid, '1000.00', alias);
      expect(charge.body.confirmation).toMatchObject({ response: 'S', response_code: '51' });
      await sandbox.test.advance(60 * 60);
    }
    const alias = (await sandbox.a.userCards(79)).body.cards[0]!.alias_token;
    expect((await sandbox.a.charge(++spid, '1000.00', alias)).body.messages[0]!.key).toBe('CardBlockedError');
    expect(await sandbox.test.ledger()).toHaveLength(7);
    // The ledger by pages: 3 + 3 + 1, each `next` the `after` of the following page.
    const pages: number[][] = [];
    let after: number | null = 0;
    while (after !== null) {
      const { body } = await sandbox.test.ledgerPage(`after=${after}&limit=3`);
      expect(body.total).toBe(7);
      pages.push(body.entries.map((entry) => entry.id));
      after = body.next;
    }
    expect(pages).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect((await sandbox.test.ledgerPage('after=7')).body).toMatchObject({ entries: [], next: null });
    expect((await sandbox.test.ledgerPage('limit=0')).status).toBe(400);

    await sandbox.test.advance(30 * 24 * 3600);
    await sandbox.test.outcomes({ last4: '9995', codes: ['00'] });
    const later = (await sandbox.a.userCards(79)).body.cards[0]!.alias_token;
    expect((await sandbox.a.charge(++spid, '1000.00', later)).body.confirmation.response_code).toBe('00');
  });

  it('six declines spread over more than 24 hours do not block', async () => {
    await registeredAlias(80, '4000000000009995');
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const alias = (await sandbox.a.userCards(80)).body.cards[0]!.alias_token;
      expect((await sandbox.a.charge(++spid, '1000.00', alias)).body.confirmation.response_code).toBe('51');
      await sandbox.test.advance(5 * 3600);
    }
  });

  it('deletes a card with its alias', async () => {
    const alias = await registeredAlias(81, '4242424242424242');
    const fresh = (await sandbox.a.userCards(81)).body.cards[0]!.alias_token;
    expect((await sandbox.a.deleteCard(81, fresh)).body).toEqual({ status: 'success' });
    expect((await sandbox.a.userCards(81)).body.cards).toEqual([]);
    expect((await sandbox.a.charge(++spid, '1000.00', alias)).body.messages[0]!.key).toBe(
      'CardAliasTokenExpiredError',
    );
  });

  it('registration with a refused card fails and stores nothing', async () => {
    const registration = await sandbox.a.newCard(82, 1);
    const done = await sandbox.test.complete({
      processId: registration.body.process_id,
      cardNumber: '4000000000000069',
    });
    expect(done.body).toEqual({
      outcome: 'failed',
      responseCode: null,
      redirectUrl: 'http://shop.test/cards?status=add_new_card_fail',
    });
    expect((await sandbox.a.userCards(82)).body.cards).toEqual([]);
  });

  it('lists stored cards without their numbers and stores them again after a reset (a benchmark carries its customers over)', async () => {
    await registeredAlias(84, '4242424242424242', 3);
    const listed = await sandbox.call<{ cards: unknown[] }>('/__sandbox/stored-cards');
    expect(listed.body).toEqual({ cards: [{ userId: '84', cardId: '3', last4: '4242' }] });
    expect(JSON.stringify(listed.body)).not.toContain('424242424242');
    await sandbox.test.reset();
    expect((await sandbox.a.userCards(84)).body.cards).toEqual([]);

    const post = (body: unknown) =>
      sandbox.call('/__sandbox/stored-cards', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ cardNumber: '4111111111111111', cards: listed.body.cards })).status).toBe(400);
    expect((await post({ cardNumber: '4242424242424242', cards: listed.body.cards })).body).toEqual({
      restored: 1,
    });
    expect((await post({ cardNumber: '4242424242424242', cards: listed.body.cards })).body).toEqual({
      restored: 0,
    });
    const alias = (await sandbox.a.userCards(84)).body.cards[0]!.alias_token;
    const charge = await sandbox.a.charge(++spid, '1000.00', alias);
    expect(charge.body.confirmation).toMatchObject({ response: 'S', response_code: '00' });
  });

  it('twenty concurrent charges with one shop_process_id make one ledger entry', async () => {
    await registeredAlias(83, '4242424242424242');
    const aliases: string[] = [];
    for (let i = 0; i < 20; i += 1) aliases.push((await sandbox.a.userCards(83)).body.cards[0]!.alias_token);
    const id = ++spid;
    const results = await Promise.all(aliases.map((alias) => sandbox.a.charge(id, '1000.00', alias)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.body.messages?.[0]?.key === 'InvalidOperationError')).toHaveLength(19);
    expect(await sandbox.test.ledger()).toHaveLength(1);
  });
});
