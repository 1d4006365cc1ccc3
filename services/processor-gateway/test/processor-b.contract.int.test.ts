import { createLogger } from '@payrail/observability';
import { waitFor } from '@payrail/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCardProcessors, ProcessorUnavailable } from '../src/adapters/processors';
import { createProcessorB } from '../src/adapters/processors/processor-b';
import { processorBToken } from '../src/adapters/processors/processor-b-token';
import type {
  CardProcessor,
  ConfirmationResult,
  RawWebhook,
  StoredCard,
  WebhookReply,
} from '../src/ports/card-processor';
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
const TEN_MINUTES = 600;

let sandbox: ContractSandbox;
let processorB: CardProcessor;
let confirmations: ConfirmationResult[];
/** Lets a test answer a notification differently (e.g. not echo it) before the adapter sees it. */
let intercept: ((raw: RawWebhook) => WebhookReply | undefined) | undefined;

beforeAll(async () => {
  sandbox = await startContractSandbox();
  processorB = createCardProcessors(
    { 'PARAGUAY.PROCESSOR_A': sandbox.settings('A'), 'PARAGUAY.PROCESSOR_B': sandbox.settings('B') },
    { logger },
  )('PARAGUAY.PROCESSOR_B');
});

afterAll(async () => {
  await sandbox?.stop();
});

beforeEach(async () => {
  await sandbox.reset();
  confirmations = [];
  intercept = undefined;
  sandbox.receiveWith(async (processor, raw) => {
    if (processor !== 'B') return { status: 404, body: {} };
    const intercepted = intercept?.(raw);
    if (intercepted) return intercepted;
    const result = await processorB.verifyConfirmation(raw);
    confirmations.push(result);
    return result.reply;
  });
});

function verifiedOutcomes(reference?: string) {
  return confirmations
    .filter((c): c is Extract<ConfirmationResult, { kind: 'verified' }> => c.kind === 'verified')
    .filter((c) => reference === undefined || c.reference === reference)
    .map((c) => c.outcome);
}

async function openHosted(amount = '150000.00') {
  const reference = aReference();
  const opened = await processorB.openPayment({
    reference,
    amount,
    currency: 'PYG',
    description: 'Plan mensual',
    returnUrl: 'http://pay.test/ignored-by-b',
    cancelUrl: 'http://pay.test/ignored-by-b',
    buyer: { name: 'Ana Pérez', email: 'ana@example.test' },
  });
  if (opened.kind !== 'opened' || opened.form.kind !== 'redirect')
    throw new Error(`not opened: ${JSON.stringify(opened)}`);
  return { reference, hash: opened.form.hash, url: opened.form.url };
}

async function payHosted(cardNumber: string, amount = '150000.00') {
  const order = await openHosted(amount);
  const completed = await sandbox.complete({ hash: order.hash }, cardNumber);
  return { ...order, completed };
}

async function registerCard(cardNumber: string): Promise<{ customerRef: string; card: StoredCard }> {
  const customerRef = aReference();
  const opened = await processorB.openCardRegistration({
    customerRef,
    registrationRef: aReference(),
    returnUrl: 'http://pay.test/cards/return',
    name: 'Ana Pérez',
    email: 'ana@example.test',
  });
  if (opened.kind !== 'opened' || opened.form.kind !== 'redirect')
    throw new Error(`not opened: ${JSON.stringify(opened)}`);
  expect(opened.form.url).toBe(`${sandbox.baseUrl}/pagos/tarjetas/${opened.form.hash}`);
  const completed = await sandbox.complete({ hash: opened.form.hash }, cardNumber);
  expect(completed).toMatchObject({ outcome: 'registered' });
  expect(completed.redirectUrl).toBe('http://pay.test/cards/return?status=add_new_card_success');
  const cards = await processorB.completeCardRegistration({ customerRef, registrationRef: '0' });
  expect(cards).toHaveLength(1);
  return { customerRef, card: cards[0]! };
}

function charge(customerRef: string, cardRef: string, reference = aReference(), amount = '150000.00') {
  return processorB.chargeStoredCard({
    reference,
    customerRef,
    cardRef,
    amount,
    currency: 'PYG',
    description: 'Cuota 1',
    sendBy: new Date(Date.now() + 60_000),
  });
}

describe('PROCESSOR_B hosted payment (redirect, notification echoed, traer)', () => {
  it('opens a redirect; the signed notification is verified by traer and answered with the echo B expects', async () => {
    const { reference, hash, url, completed } = await payHosted(CARD.approved);
    expect(url).toBe(`${sandbox.baseUrl}/pagos/${hash}`);
    expect(completed.outcome).toBe('approved');
    await waitFor(() => confirmations.length === 1);
    expect(confirmations[0]).toMatchObject({
      kind: 'verified',
      reference,
      outcome: { status: 'paid', amount: '150000.00', processorReference: hash },
      reply: { status: 200, body: { respuesta: true } },
    });
    const deliveries = await sandbox.deliveries();
    expect(deliveries.map((d) => [d.attempt, d.status, d.echoed])).toEqual([[1, 200, true]]);
    expect(await sandbox.ledger()).toMatchObject([
      { kind: 'charge', reference, processReference: hash, amount: '150000', resultCode: '00' },
    ]);
  });

  it('a notification with a bad token is refused in B’s own shape ({respuesta: false, resultado})', async () => {
    const { hash } = await openHosted();
    const forged = {
      respuesta: true,
      resultado: [
        {
          pagado: true,
          hash_pedido: hash,
          monto: 150000,
          token: processorBToken.notification('guess', hash),
        },
      ],
    };
    expect(await processorB.verifyConfirmation({ body: JSON.stringify(forged), headers: {} })).toMatchObject({
      kind: 'rejected',
      reply: { status: 400, body: { respuesta: false, resultado: 'Token no coincide' } },
    });
    expect((await processorB.verifyConfirmation({ body: '{"respuesta":true}', headers: {} })).kind).toBe(
      'rejected',
    );
    // A genuine token over a hash the processor never issued: signature fine, traer knows nothing.
    const unknownHash = 'f'.repeat(40);
    const unknown = {
      respuesta: true,
      resultado: [
        {
          pagado: true,
          hash_pedido: unknownHash,
          token: processorBToken.notification(KEYS.B.privateKey, unknownHash),
        },
      ],
    };
    expect(await processorB.verifyConfirmation({ body: JSON.stringify(unknown), headers: {} })).toMatchObject(
      {
        kind: 'rejected',
        reply: { body: { respuesta: false } },
      },
    );
  });

  it('a signed notification that claims "paid" is not trusted: the outcome is what traer says', async () => {
    const { hash, reference } = await openHosted();
    const lying = {
      respuesta: true,
      resultado: [
        {
          pagado: true,
          hash_pedido: hash,
          monto: 150000,
          token: processorBToken.notification(KEYS.B.privateKey, hash),
        },
      ],
    };
    expect(await processorB.verifyConfirmation({ body: JSON.stringify(lying), headers: {} })).toMatchObject({
      kind: 'verified',
      reference,
      outcome: { status: 'pending' },
    });
  });

  it('the processor refuses our calls when our token is wrong, in its own shape', async () => {
    const wrongKey = createProcessorB(sandbox.settings('B', { privateKey: 'wrong' }), { logger });
    expect(
      await wrongKey.openPayment({
        reference: aReference(),
        amount: '1000',
        currency: 'PYG',
        description: 'x',
        returnUrl: 'http://pay.test/r',
        cancelUrl: 'http://pay.test/c',
      }),
    ).toEqual({
      kind: 'refused',
      decline: { code: 'InvalidToken', category: 'processor-down', message: 'Token no coincide' },
    });
  });

  it('refuses an amount with cents instead of rounding it', async () => {
    expect(
      await processorB.openPayment({
        reference: aReference(),
        amount: '1000.50',
        currency: 'PYG',
        description: 'x',
        returnUrl: 'http://pay.test/r',
        cancelUrl: 'http://pay.test/c',
      }),
    ).toMatchObject({ kind: 'refused', decline: { code: 'InvalidAmount', category: 'hard' } });
  });

  it('the notification is retried every 10 simulated minutes until the answer echoes resultado', async () => {
    let answers = 0;
    intercept = () => {
      answers += 1;
      // The first two answers are 200 but do not echo: for B that is not an acknowledgement.
      return answers <= 2 ? { status: 200, body: { ok: true } } : undefined;
    };
    const { reference } = await payHosted(CARD.approved);
    await waitFor(async () => (await sandbox.deliveries()).length === 1);
    await sandbox.advanceClock(TEN_MINUTES);
    await sandbox.advanceClock(TEN_MINUTES);
    await waitFor(() => confirmations.length === 1);
    expect((await sandbox.deliveries()).map((d) => [d.attempt, d.echoed])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    await sandbox.advanceClock(3 * TEN_MINUTES);
    expect(await sandbox.deliveries()).toHaveLength(3);
    expect(verifiedOutcomes(reference)).toMatchObject([{ status: 'paid' }]);
  });

  it('when traer cannot be reached the notification is verified but not echoed, so B sends it again', async () => {
    const { reference } = await payHosted(CARD.approved);
    await waitFor(() => confirmations.length === 1);
    // Only the traer inside the next verification fails.
    await sandbox.fault('B', 'outage');
    const replay = (await sandbox.deliveries())[0]!;
    const result = await processorB.verifyConfirmation({ body: JSON.stringify(replay.body), headers: {} });
    expect(result).toMatchObject({ kind: 'verified', reference, outcome: { status: 'unreachable' } });
    expect(result.reply.status).not.toBe(200);
  });

  it.each([
    ['a drop-webhook fault', CARD.approved],
    ['card 0259 (first attempt lost)', CARD.replyLost],
  ])(
    'a dropped notification (%s) is settled by traer, and B delivers it again 10 minutes later',
    async (fault, cardNumber) => {
      if (fault.startsWith('a drop')) await sandbox.fault('B', 'drop-webhook');
      const { reference, hash } = await payHosted(cardNumber);
      expect(confirmations).toHaveLength(0);
      expect(await processorB.queryStatus({ reference, processorReference: hash })).toMatchObject({
        status: 'paid',
        amount: '150000.00',
      });
      await sandbox.advanceClock(TEN_MINUTES);
      await waitFor(() => confirmations.length === 1);
      expect(verifiedOutcomes(reference)).toMatchObject([{ status: 'paid' }]);
    },
  );

  it('a duplicated notification verifies to the same outcome twice, with one charge at the processor', async () => {
    await sandbox.fault('B', 'duplicate-webhook');
    const { reference } = await payHosted(CARD.approved);
    await waitFor(() => confirmations.length === 2);
    expect(verifiedOutcomes(reference)).toMatchObject([{ status: 'paid' }, { status: 'paid' }]);
    expect((await sandbox.ledger()).filter((e) => e.kind === 'charge')).toHaveLength(1);
  });

  it('reordered notifications (payment after its reversal) cannot move the payment backwards', async () => {
    await sandbox.fault('B', 'reorder-webhooks', 2);
    const { reference, hash } = await payHosted(CARD.approved);
    expect(await processorB.reverse({ reference, processorReference: hash })).toEqual({ kind: 'reversed' });
    await sandbox.flushWebhooks();
    await waitFor(() => confirmations.length === 2);
    // The reversal's notification arrives first, the stale "paid" one second: both read "reversed" from traer.
    const bodies = (await sandbox.deliveries())
      .filter((d) => d.status !== null)
      .map((d) => (d.body as { resultado: Array<{ pagado: boolean }> }).resultado[0]!.pagado);
    expect(bodies).toEqual([false, true]);
    expect(verifiedOutcomes(reference)).toMatchObject([{ status: 'reversed' }, { status: 'reversed' }]);
  });

  it.each([
    [CARD.doNotHonour, '05', 'soft'],
    [CARD.insufficientFunds, '51', 'soft'],
    [CARD.expired, '54', 'hard'],
  ])(
    'card %s on the payment page: no notification, traer says declined %s (%s)',
    async (cardNumber, code, category) => {
      const { reference, hash, completed } = await payHosted(cardNumber);
      expect(completed).toMatchObject({ outcome: 'declined', responseCode: code });
      expect(await processorB.queryStatus({ reference, processorReference: hash })).toMatchObject({
        status: 'declined',
        code,
        category,
      });
      expect(confirmations).toHaveLength(0);
    },
  );

  it('reverses at once the same day (Inmediata) and schedules it on a later day (Agendada)', async () => {
    const today = await payHosted(CARD.approved);
    expect(await processorB.reverse({ reference: today.reference })).toEqual({ kind: 'reversed' });
    expect(await processorB.reverse({ reference: today.reference })).toEqual({ kind: 'reversed' });
    expect(await processorB.queryStatus({ reference: today.reference })).toMatchObject({
      status: 'reversed',
    });

    const earlier = await payHosted(CARD.approved);
    await sandbox.advanceClock(26 * 3600);
    expect(
      await processorB.reverse({ reference: earlier.reference, processorReference: earlier.hash }),
    ).toMatchObject({
      kind: 'scheduled',
    });
    expect(await processorB.queryStatus({ reference: earlier.reference })).toMatchObject({ status: 'paid' });
    // Asked again (a retry after a lost answer): B says it has it, and its order says it is still scheduled.
    expect(
      await processorB.reverse({ reference: earlier.reference, processorReference: earlier.hash }),
    ).toEqual({ kind: 'scheduled' });
    await sandbox.advanceClock(25 * 3600);
    expect(await processorB.queryStatus({ reference: earlier.reference })).toMatchObject({
      status: 'reversed',
    });

    expect(
      await processorB.reverse({ reference: earlier.reference, processorReference: earlier.hash }),
    ).toEqual({ kind: 'reversed' });

    const unpaid = await openHosted();
    expect(await processorB.reverse({ reference: unpaid.reference })).toMatchObject({
      kind: 'refused',
      code: 'OrderNotPaid',
    });
  });

  it('a reversal in an outage is unavailable (nothing done); one whose answer is lost is unknown, and done', async () => {
    const paid = await payHosted(CARD.approved);
    await sandbox.fault('B', 'outage');
    expect(
      await processorB.reverse({ reference: paid.reference, processorReference: paid.hash }),
    ).toMatchObject({
      kind: 'unavailable',
    });
    expect(await processorB.queryStatus({ reference: paid.reference })).toMatchObject({ status: 'paid' });
    await sandbox.fault('B', 'lose-reply');
    expect(
      await processorB.reverse({ reference: paid.reference, processorReference: paid.hash }),
    ).toMatchObject({
      kind: 'unknown',
    });
    expect(await processorB.queryStatus({ reference: paid.reference })).toMatchObject({ status: 'reversed' });
    expect((await sandbox.ledger()).filter((e) => e.kind === 'reversal')).toHaveLength(1);
  });
});

describe('PROCESSOR_B stored cards (customer, card form, confirm, list, asynchronous pagar)', () => {
  it('a card appears only after the mandatory confirm step, by its durable id, never with its alias', async () => {
    const customerRef = aReference();
    const opened = await processorB.openCardRegistration({
      customerRef,
      registrationRef: aReference(),
      returnUrl: 'http://pay.test/cards/return?x=1',
    });
    if (opened.kind !== 'opened' || opened.form.kind !== 'redirect') throw new Error('not opened');
    await sandbox.complete({ hash: opened.form.hash }, CARD.mastercard);
    expect(await processorB.listCards(customerRef)).toEqual([]);
    const cards = await processorB.completeCardRegistration({ customerRef, registrationRef: '0' });
    expect(cards).toEqual([
      {
        cardRef: expect.any(String),
        maskedNumber: '555555******4444',
        last4: '4444',
        brand: expect.stringMatching(/master/i),
        expiryMonth: expect.any(Number),
        expiryYear: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(cards)).not.toMatch(/alias/i);
    expect(await processorB.listCards(aReference())).toEqual([]);
  });

  it('a failed registration (card 0002) leaves no card', async () => {
    const customerRef = aReference();
    const opened = await processorB.openCardRegistration({
      customerRef,
      registrationRef: '1',
      returnUrl: 'http://pay.test/r',
    });
    if (opened.kind !== 'opened' || opened.form.kind !== 'redirect') throw new Error('not opened');
    expect(await sandbox.complete({ hash: opened.form.hash }, CARD.doNotHonour)).toMatchObject({
      outcome: 'failed',
      redirectUrl: 'http://pay.test/r?status=add_new_card_fail',
    });
    expect(await processorB.completeCardRegistration({ customerRef, registrationRef: '1' })).toEqual([]);
  });

  it('charges asynchronously: pending with the order hash, then a verified notification and traer say paid', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    const reference = aReference();
    const result = await charge(customerRef, card.cardRef, reference);
    expect(result).toMatchObject({ kind: 'pending', processorReference: expect.any(String) });
    const hash = result.kind === 'pending' ? result.processorReference : undefined;
    await waitFor(() => verifiedOutcomes(reference).length === 1);
    expect(verifiedOutcomes(reference)).toMatchObject([
      { status: 'paid', amount: '150000.00', processorReference: hash },
    ]);
    expect(await processorB.queryStatus({ reference, processorReference: hash })).toMatchObject({
      status: 'paid',
    });
    expect(await sandbox.ledger()).toMatchObject([
      { reference, processReference: hash, amount: '150000', resultCode: '00' },
    ]);
  });

  it('an alias used twice, or after its 15 minutes, is refused; the adapter lists a fresh one each time', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    const token = processorBToken.recurring(KEYS.B.privateKey);
    const listAlias = async () => {
      const listed = await sandbox.post('api/pago-recurrente/3.0/listar-tarjeta', {
        token,
        token_publico: KEYS.B.publicKey,
        identificador: customerRef,
      });
      return (listed.body as { resultado: Array<{ alias_token: string }> }).resultado[0]!.alias_token;
    };
    const newOrder = async () => {
      const id = aReference();
      const started = await sandbox.post('api/comercios/2.0/iniciar-transaccion', {
        token: processorBToken.startTransaction(KEYS.B.privateKey, id, '1000'),
        public_key: KEYS.B.publicKey,
        monto_total: 1000,
        id_pedido_comercio: id,
        tipo_pedido: 'VENTA-COMERCIO',
      });
      return (started.body as { resultado: Array<{ data: string }> }).resultado[0]!.data;
    };
    const pay = (hash: string, alias: string) =>
      sandbox.post('api/pago-recurrente/3.0/pagar', {
        token,
        token_publico: KEYS.B.publicKey,
        identificador: customerRef,
        hash_pedido: hash,
        tarjeta: alias,
      });
    const alias = await listAlias();
    expect(await pay(await newOrder(), alias)).toMatchObject({ status: 200, body: { respuesta: true } });
    expect(await pay(await newOrder(), alias)).toEqual({
      status: 400,
      body: { respuesta: false, resultado: 'Alias de tarjeta inválido o expirado' },
    });
    const stale = await listAlias();
    await sandbox.advanceClock(16 * 60);
    expect(await pay(await newOrder(), stale)).toMatchObject({
      body: { respuesta: false, resultado: 'Alias de tarjeta inválido o expirado' },
    });
    expect(await charge(customerRef, card.cardRef)).toMatchObject({ kind: 'pending' });
  });

  it.each([
    ['14', 'hard'],
    ['54', 'hard'],
    ['05', 'soft'],
    ['61', 'soft'],
    ['96', 'soft'],
  ])(
    'a stored-card decline %s reaches us as a %s decline through notification and traer',
    async (code, category) => {
      const { customerRef, card } = await registerCard(CARD.approved);
      await sandbox.outcomes('B', '4242', [code]);
      const reference = aReference();
      expect(await charge(customerRef, card.cardRef, reference)).toMatchObject({ kind: 'pending' });
      await waitFor(() => verifiedOutcomes(reference).length === 1);
      expect(verifiedOutcomes(reference)).toMatchObject([{ status: 'declined', code, category }]);
      expect(await processorB.queryStatus({ reference })).toMatchObject({
        status: 'declined',
        code,
        category,
      });
    },
  );

  it('test cards: 9995 declined 51; 0341 pays once, then 51', async () => {
    const poor = await registerCard(CARD.insufficientFunds);
    const poorRef = aReference();
    await charge(poor.customerRef, poor.card.cardRef, poorRef);
    await waitFor(() => verifiedOutcomes(poorRef).length === 1);
    expect(verifiedOutcomes(poorRef)).toMatchObject([{ status: 'declined', code: '51', category: 'soft' }]);

    const later = await registerCard(CARD.laterDeclined);
    const [first, second] = [aReference(), aReference()];
    await charge(later.customerRef, later.card.cardRef, first);
    await waitFor(() => verifiedOutcomes(first).length === 1);
    await charge(later.customerRef, later.card.cardRef, second);
    await waitFor(() => verifiedOutcomes(second).length === 1);
    expect(verifiedOutcomes(first)).toMatchObject([{ status: 'paid' }]);
    expect(verifiedOutcomes(second)).toMatchObject([{ status: 'declined', code: '51' }]);
  });

  it('lost reply (card 0259): unknown; traer by our reference finds it paid; charging the same reference again pays nothing twice', async () => {
    const { customerRef, card } = await registerCard(CARD.replyLost);
    const reference = aReference();
    expect(await charge(customerRef, card.cardRef, reference)).toMatchObject({ kind: 'unknown' });
    await waitFor(async () => (await processorB.queryStatus({ reference })).status === 'paid');
    // The charge core retrying the same charge (same reference) gets the existing order's result.
    expect(await charge(customerRef, card.cardRef, reference)).toMatchObject({ kind: 'approved' });
    expect((await sandbox.ledger()).filter((e) => e.reference === reference)).toHaveLength(1);
  });

  it('a slow charge (card 0077) stays pending until B decides, then it is paid', {
    timeout: 20_000,
  }, async () => {
    const { customerRef, card } = await registerCard(CARD.slow);
    const reference = aReference();
    expect(await charge(customerRef, card.cardRef, reference)).toMatchObject({ kind: 'pending' });
    expect(await processorB.queryStatus({ reference })).toMatchObject({ status: 'pending' });
    // Asking again under the same reference while B decides must not start a second charge.
    expect(await charge(customerRef, card.cardRef, reference)).toMatchObject({ kind: 'pending' });
    await waitFor(() => verifiedOutcomes(reference).length === 1, 15_000);
    expect(verifiedOutcomes(reference)).toMatchObject([{ status: 'paid' }]);
    expect((await sandbox.ledger()).filter((e) => e.reference === reference)).toHaveLength(1);
  });

  it('outage (503): processor-down, nothing charged', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    await sandbox.fault('B', 'outage', 10);
    expect(await charge(customerRef, card.cardRef)).toMatchObject({
      kind: 'declined',
      category: 'processor-down',
    });
    expect(await processorB.queryStatus({ reference: aReference() })).toMatchObject({
      status: 'unreachable',
    });
    await expect(processorB.listCards(customerRef)).rejects.toBeInstanceOf(ProcessorUnavailable);
    expect(await sandbox.ledger()).toEqual([]);
  });

  it('removes a card; removing it again answers false', async () => {
    const { customerRef, card } = await registerCard(CARD.approved);
    expect(await processorB.removeCard({ customerRef, cardRef: card.cardRef })).toBe(true);
    expect(await processorB.listCards(customerRef)).toEqual([]);
    expect(await processorB.removeCard({ customerRef, cardRef: card.cardRef })).toBe(false);
  });
});
