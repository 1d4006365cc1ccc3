import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, type RunningSandbox, startReceiver, startSandbox, waitFor } from './support/sandbox';

let sandbox: RunningSandbox;
let receiver: Receiver;
let spid = 5000;

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

async function paidBuy(cardNumber = '4242424242424242') {
  const buy = await sandbox.a.singleBuy(++spid, '1000.00');
  const done = await sandbox.test.complete({ processId: buy.body.process_id, cardNumber });
  return { spid, processId: buy.body.process_id as string, done };
}

describe('API faults', () => {
  it('outage: 503 in the processor error shape for the next N calls, nothing done', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'outage', count: 2 });
    for (let i = 0; i < 2; i += 1) {
      const refused = await sandbox.a.singleBuy(++spid, '1000.00');
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({
        status: 'error',
        messages: [{ key: 'PosCommunicationError', level: 'error', dsc: expect.any(String) }],
      });
    }
    // Nothing was done: the processor never heard of either buy.
    expect((await sandbox.a.getConfirmation(spid)).body.messages[0]!.key).toBe('BuyNotFoundError');
    expect((await sandbox.a.getConfirmation(spid - 1)).body.messages[0]!.key).toBe('BuyNotFoundError');
    expect((await sandbox.a.singleBuy(++spid, '1000.00')).status).toBe(200);

    await sandbox.test.fault({ processor: 'B', fault: 'outage' });
    const b = await sandbox.b.start('outage-1', 1000);
    expect(b.status).toBe(503);
    expect(b.body).toEqual({ respuesta: false, resultado: 'Servicio no disponible' });
    expect((await sandbox.b.start('outage-1', 1000)).status).toBe(200);
  });

  it('lose-reply: the call is done and committed, the connection is cut', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'lose-reply' });
    await expect(sandbox.a.singleBuy(++spid, '1000.00')).rejects.toThrow();
    // The buy exists: the same shop_process_id is taken, the status query knows it.
    expect((await sandbox.a.singleBuy(spid, '1000.00')).body.messages[0]!.key).toBe('InvalidOperationError');
    expect((await sandbox.a.getConfirmation(spid)).body.messages[0]!.key).toBe('PaymentNotFoundError');
  });
});

describe('API faults on refunds (a rollback, a reversal)', () => {
  async function paidOrder(id: string) {
    const started = await sandbox.b.start(id, 1000);
    const hash = started.body.resultado[0]!.data as string;
    await sandbox.test.complete({ hash, cardNumber: '4242424242424242' });
    return hash;
  }
  const refunds = async () =>
    (await sandbox.test.ledger()).filter((entry) => entry.kind !== 'charge').map((entry) => entry.kind);

  it('outage: the rollback and the reversal are not done, and can be asked again', async () => {
    const { spid: id } = await paidBuy();
    const hash = await paidOrder('refund-outage');
    await sandbox.test.fault({ processor: 'A', fault: 'outage' });
    await sandbox.test.fault({ processor: 'B', fault: 'outage' });
    const rollback = await sandbox.a.rollback(id);
    expect(rollback.status).toBe(503);
    expect(rollback.body.messages[0]!.key).toBe('PosCommunicationError');
    const reversal = await sandbox.b.reverse(hash);
    expect(reversal.status).toBe(503);
    expect(reversal.body).toEqual({ respuesta: false, resultado: 'Servicio no disponible' });
    expect(await refunds()).toEqual([]);
    expect((await sandbox.a.getConfirmation(id)).body.confirmation.response_code).toBe('00');
    expect((await sandbox.b.query(hash)).body.resultado[0]).toMatchObject({ pagado: true });
    expect((await sandbox.a.rollback(id)).body.status).toBe('success');
    expect((await sandbox.b.reverse(hash)).body.resultado).toBe('Inmediata');
    expect(await refunds()).toEqual(['rollback', 'reversal']);
  });

  it('lose-reply: the rollback and the reversal are done and in the ledger, the answer is cut', async () => {
    const { spid: id } = await paidBuy();
    const hash = await paidOrder('refund-lost');
    await sandbox.test.fault({ processor: 'A', fault: 'lose-reply' });
    await expect(sandbox.a.rollback(id)).rejects.toThrow();
    await sandbox.test.fault({ processor: 'B', fault: 'lose-reply' });
    await expect(sandbox.b.reverse(hash)).rejects.toThrow();
    expect(await refunds()).toEqual(['rollback', 'reversal']);
    // The status queries show both, and asking again changes nothing.
    expect((await sandbox.a.getConfirmation(id)).body.messages[0]!.key).toBe('AlreadyRollbackedError');
    expect((await sandbox.b.query(hash)).body.resultado[0]).toMatchObject({ pagado: false });
    expect((await sandbox.a.rollback(id)).body.messages[0]!.key).toBe('AlreadyRollbackedError');
    expect((await sandbox.b.reverse(hash)).body.resultado).toBe('El pedido ya fue reversado');
    expect(await refunds()).toEqual(['rollback', 'reversal']);
  });
});

describe('webhook faults (PROCESSOR_A)', () => {
  it('drop-webhook: the confirmation is never sent, get_confirmation still has it', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'drop-webhook' });
    const { spid: id } = await paidBuy();
    expect(receiver.received).toHaveLength(0);
    expect((await sandbox.test.webhooks())[0]).toMatchObject({ note: 'dropped', status: null });
    expect((await sandbox.a.getConfirmation(id)).body.confirmation.response_code).toBe('00');
    await paidBuy();
    expect(receiver.received).toHaveLength(1);
  });

  it('duplicate-webhook: the same confirmation arrives twice', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'duplicate-webhook' });
    await paidBuy();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]).toEqual(receiver.received[0]);
  });

  it('delay-webhook: sent in the background after the given seconds', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'delay-webhook', seconds: 0.5 });
    const started = Date.now();
    await paidBuy();
    expect(receiver.received).toHaveLength(0);
    await waitFor(() => receiver.received.length === 1, 3_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('reorder-webhooks: the next N are held and sent last first', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'reorder-webhooks', count: 2 });
    const first = await paidBuy();
    expect(receiver.received).toHaveLength(0);
    const second = await paidBuy('4000000000000002');
    expect(receiver.received.map((body) => body.operation.shop_process_id)).toEqual([
      second.spid,
      first.spid,
    ]);
  });

  it('reorder-webhooks held fewer than N: flush sends them', async () => {
    await sandbox.test.fault({ processor: 'A', fault: 'reorder-webhooks', count: 3 });
    await paidBuy();
    await paidBuy();
    expect(receiver.received).toHaveLength(0);
    await sandbox.test.flush();
    expect(receiver.received).toHaveLength(2);
  });
});

describe('test API', () => {
  it('outcomes: the next charges of a card get the scripted codes, in order', async () => {
    await sandbox.test.outcomes({ last4: '4242', codes: ['51', '96', '00'] });
    const codes: (string | null)[] = [];
    for (let i = 0; i < 4; i += 1) codes.push((await paidBuy()).done.body.responseCode);
    expect(codes).toEqual(['51', '96', '00', '00']);
  });

  it('refuses a bad fault, a bad code and a non-test card', async () => {
    expect((await sandbox.test.fault({ processor: 'C', fault: 'outage' })).status).toBe(400);
    expect((await sandbox.test.fault({ processor: 'A', fault: 'meteor' })).status).toBe(400);
    expect((await sandbox.test.outcomes({ last4: '4242', codes: ['77'] })).status).toBe(400);
    const buy = await sandbox.a.singleBuy(++spid, '1000.00');
    const refused = await sandbox.test.complete({
      processId: buy.body.process_id,
      cardNumber: '4111111111111111',
    });
    expect(refused.status).toBe(400);
    expect(await sandbox.test.ledger()).toEqual([]);
  });

  it('reset forgets buys, ledger and faults', async () => {
    await paidBuy();
    await sandbox.test.fault({ processor: 'A', fault: 'outage', count: 5 });
    await sandbox.test.reset();
    expect(await sandbox.test.ledger()).toEqual([]);
    expect(await sandbox.test.faults()).toEqual([]);
    expect((await sandbox.a.getConfirmation(spid)).body.messages[0]!.key).toBe('BuyNotFoundError');
  });
});
