import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OrderView } from '../src/application/processor-b';
import { processorBTokens } from '../src/application/signatures';
import {
  KEYS,
  type Receiver,
  type RunningSandbox,
  startReceiver,
  startSandbox,
  waitFor,
} from './support/sandbox';

type Notification = { respuesta: boolean; resultado: OrderView[] };

let sandbox: RunningSandbox;
let receiver: Receiver<Notification>;
/** How the receiver answers the next notifications: echo, or not. */
let echo = true;
let order = 0;

beforeAll(async () => {
  receiver = await startReceiver<Notification>((body) =>
    echo ? { status: 200, body: body.resultado } : { status: 200, body: { ok: true } },
  );
  sandbox = await startSandbox({
    SANDBOX_PROCESSOR_B_NOTIFICATION_URL: receiver.url,
    SANDBOX_PROCESSOR_B_RETURN_URL: 'http://shop.test/result/($hash)',
  });
});
afterAll(async () => {
  await sandbox.stop();
  await receiver.close();
});
afterEach(async () => {
  await sandbox.test.reset();
  await sandbox.test.config({
    processorBNotificationUrl: receiver.url,
    processorBReturnUrl: 'http://shop.test/result/($hash)',
  });
  receiver.received.length = 0;
  echo = true;
});

async function newOrder(amount = 150000) {
  const id = `ord${++order}`;
  const started = await sandbox.b.start(id, amount);
  expect(started.status).toBe(200);
  return { id, hash: started.body.resultado[0]!.data };
}

async function savedCardAlias(customer: string, cardNumber: string) {
  await sandbox.b.addCustomer(customer);
  const form = await sandbox.b.addCard(customer);
  const done = await sandbox.test.complete({ hash: form.body.resultado, cardNumber });
  expect(done.body.outcome).toBe('registered');
  await sandbox.b.confirmCard(customer);
  return (await sandbox.b.listCards(customer)).body.resultado[0]!.alias_token;
}

describe('PROCESSOR_B signatures', () => {
  it('accepts a good token and refuses a bad one as {respuesta:false, resultado}', async () => {
    const good = await sandbox.b.start('sig1', 1000);
    expect(good.body).toEqual({ respuesta: true, resultado: [{ data: expect.any(String), pedido: '1001' }] });
    const bad = await sandbox.call('/api/comercios/2.0/iniciar-transaccion', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: processorBTokens.startTransaction('wrong', 'sig2', 1000),
        public_key: KEYS.b.publicKey,
        monto_total: 1000,
        id_pedido_comercio: 'sig2',
      }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ respuesta: false, resultado: 'Token no coincide' });
    const badQuery = await sandbox.call('/api/pedidos/1.1/traer', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'x', token_publico: KEYS.b.publicKey, hash_pedido: 'h' }),
    });
    expect(badQuery.body).toEqual({ respuesta: false, resultado: 'Token no coincide' });
    expect((await sandbox.b.start('sig1', 1000)).body).toEqual({
      respuesta: false,
      resultado: 'El pedido ya existe para ese comercio',
    });
  });
});

describe('PROCESSOR_B one-off payment', () => {
  it('payment page, redirect back, notification echoed once, traer agrees', async () => {
    const { id, hash } = await newOrder();
    const page = await sandbox.call(`/pagos/${hash}`);
    expect(page.status).toBe(200);
    for (const hook of ['card-number', 'card-expiry', 'card-cvv', 'card-holder', 'card-submit']) {
      expect(page.text).toContain(`data-testid="${hook}"`);
    }
    expect(page.text).toContain('data-action="pay-button"');
    const paid = await sandbox.call(`/pagos/${hash}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        card_number: '4242424242424242',
        card_expiry: '11/39',
        card_cvv: '999',
      }).toString(),
    });
    expect(paid.status).toBe(303);
    expect(sandbox.transcript.bodies).toContain(`http://shop.test/result/${hash}`);

    expect(receiver.received).toHaveLength(1);
    const [sent] = receiver.received[0]!.resultado;
    expect(sent).toMatchObject({
      pagado: true,
      cancelado: false,
      hash_pedido: hash,
      id_pedido_comercio: id,
      monto: 150000,
      codigo_respuesta: '00',
      tarjeta_numero: '424242******4242',
      token: processorBTokens.notification(KEYS.b.privateKey, hash),
    });
    expect((await sandbox.test.webhooks()).map((d) => d.echoed)).toEqual([true]);
    const traer = await sandbox.b.query(hash);
    expect(traer.body.resultado[0]).toEqual(sent);
    expect(await sandbox.test.ledger()).toEqual([
      expect.objectContaining({
        processor: 'PARAGUAY.PROCESSOR_B',
        reference: id,
        amount: '150000',
        resultCode: '00',
      }),
    ]);
  });

  it('a declined card leaves the order open, without notification; another card pays it', async () => {
    const { hash } = await newOrder();
    const declined = await sandbox.test.complete({ hash, cardNumber: '4000000000009995' });
    expect(declined.body).toMatchObject({ outcome: 'declined', responseCode: '51' });
    expect(receiver.received).toHaveLength(0);
    expect((await sandbox.b.query(hash)).body.resultado[0]).toMatchObject({
      pagado: false,
      codigo_respuesta: '51',
      ultimo_mensaje_error: 'Fondos insuficientes',
    });
    expect((await sandbox.test.complete({ hash, cardNumber: '5555555555554444' })).body.outcome).toBe(
      'approved',
    );
    expect(receiver.received).toHaveLength(1);
  });

  it('retries the notification every 10 simulated minutes until the answer echoes resultado', async () => {
    echo = false;
    const { hash } = await newOrder();
    await sandbox.test.complete({ hash, cardNumber: '4242424242424242' });
    expect(receiver.received).toHaveLength(1);
    await sandbox.test.advance(9 * 60);
    expect(receiver.received).toHaveLength(1);
    await sandbox.test.advance(60);
    expect(receiver.received).toHaveLength(2);
    await sandbox.test.advance(10 * 60);
    expect(receiver.received).toHaveLength(3);
    echo = true;
    await sandbox.test.advance(10 * 60);
    expect(receiver.received).toHaveLength(4);
    await sandbox.test.advance(60 * 60);
    expect(receiver.received).toHaveLength(4);
    expect((await sandbox.test.webhooks()).map((d) => d.echoed)).toEqual([false, false, false, true]);
    expect(new Set(receiver.raw()).size).toBe(1);
  });

  it('a dropped notification attempt is retried 10 minutes later', async () => {
    await sandbox.test.fault({ processor: 'B', fault: 'drop-webhook' });
    const { hash } = await newOrder();
    await sandbox.test.complete({ hash, cardNumber: '4242424242424242' });
    expect(receiver.received).toHaveLength(0);
    await sandbox.test.advance(600);
    expect(receiver.received).toHaveLength(1);
  });

  it('duplicate, delay and reorder faults apply to notifications too', async () => {
    await sandbox.test.fault({ processor: 'B', fault: 'duplicate-webhook' });
    const first = await newOrder();
    await sandbox.test.complete({ hash: first.hash, cardNumber: '4242424242424242' });
    expect(receiver.received).toHaveLength(2);

    receiver.received.length = 0;
    await sandbox.test.fault({ processor: 'B', fault: 'delay-webhook', seconds: 0.3 });
    const second = await newOrder();
    await sandbox.test.complete({ hash: second.hash, cardNumber: '4242424242424242' });
    expect(receiver.received).toHaveLength(0);
    await waitFor(() => receiver.received.length === 1, 3_000);

    // A payment and its reversal, delivered reversal first.
    receiver.received.length = 0;
    await sandbox.test.fault({ processor: 'B', fault: 'reorder-webhooks', count: 2 });
    const third = await newOrder();
    await sandbox.test.complete({ hash: third.hash, cardNumber: '4242424242424242' });
    await sandbox.b.reverse(third.hash);
    await waitFor(() => receiver.received.length === 2);
    expect(receiver.received.map((body) => body.resultado[0]!.pagado)).toEqual([false, true]);
  });

  it('reverses at once on the day of payment (Inmediata) and schedules it after (Agendada)', async () => {
    await sandbox.test.setClock('2026-11-23T10:00:00-03:00');
    const today = await newOrder(1000);
    await sandbox.test.complete({ hash: today.hash, cardNumber: '4242424242424242' });
    expect((await sandbox.b.reverse(today.hash)).body).toEqual({ respuesta: true, resultado: 'Inmediata' });
    await waitFor(() => receiver.received.length === 2);
    expect(receiver.received[1]!.resultado[0]).toMatchObject({
      pagado: false,
      fecha_reversion: '2026-11-23 10:00:00',
    });
    expect((await sandbox.b.reverse(today.hash)).body).toEqual({
      respuesta: false,
      resultado: 'El pedido ya fue reversado',
    });

    const yesterday = await newOrder(2000);
    await sandbox.test.complete({ hash: yesterday.hash, cardNumber: '4242424242424242' });
    await sandbox.test.setClock('2026-11-24T09:00:00-03:00');
    expect((await sandbox.b.reverse(yesterday.hash)).body).toEqual({
      respuesta: true,
      resultado: 'Agendada',
    });
    expect((await sandbox.b.query(yesterday.hash)).body.resultado[0]).toMatchObject({
      pagado: true,
      fecha_reversion: null,
    });
    await sandbox.test.advance(24 * 3600);
    expect((await sandbox.b.query(yesterday.hash)).body.resultado[0]).toMatchObject({
      pagado: false,
      fecha_reversion: '2026-11-25 09:00:00',
    });
    const kinds = (await sandbox.test.ledger()).map((entry) => `${entry.kind}:${entry.reference}`);
    expect(kinds).toEqual([
      `charge:${today.id}`,
      `reversal:${today.id}`,
      `charge:${yesterday.id}`,
      `reversal:${yesterday.id}`,
    ]);
    const unpaid = await newOrder(3000);
    expect((await sandbox.b.reverse(unpaid.hash)).body.resultado).toBe('El pedido no está pagado');
  });

  it('an unpaid order is cancelled after fecha_maxima_pago', async () => {
    await sandbox.test.setClock('2026-11-23T10:00:00-03:00');
    const started = await sandbox.b.start('late1', 1000, { fecha_maxima_pago: '2026-11-23 12:00:00' });
    const hash = started.body.resultado[0]!.data;
    await sandbox.test.advance(2 * 3600 + 1);
    expect((await sandbox.b.query(hash)).body.resultado[0]).toMatchObject({ pagado: false, cancelado: true });
    expect((await sandbox.test.complete({ hash, cardNumber: '4242424242424242' })).status).toBe(400);
  });
});

describe('PROCESSOR_B stored cards', () => {
  it('a registered card is listed only after confirmar-tarjeta, masked, with a 15-minute single-use alias', async () => {
    await sandbox.b.addCustomer('cust1');
    const form = await sandbox.b.addCard('cust1');
    const page = await sandbox.call(`/pagos/tarjetas/${form.body.resultado}`);
    expect(page.text).toContain('data-action="save-card-button"');
    const saved = await sandbox.call(`/pagos/tarjetas/${form.body.resultado}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        card_number: '4242424242424242',
        card_expiry: '10/35',
        card_cvv: '123',
      }).toString(),
    });
    expect(saved.status).toBe(303);
    expect(sandbox.transcript.bodies).toContain('http://shop.test/card?status=add_new_card_success');
    expect((await sandbox.b.listCards('cust1')).body.resultado).toEqual([]);
    await sandbox.b.confirmCard('cust1');
    const listed = (await sandbox.b.listCards('cust1')).body.resultado;
    expect(listed).toEqual([
      {
        alias_token: expect.any(String),
        id_tarjeta: expect.any(String),
        tarjeta_numero: '424242******4242',
        marca: 'Visa',
        vencimiento: '10/35',
        proveedor: 'Bancard',
        tipo_tarjeta: 'Crédito',
      },
    ]);
    const stale = listed[0]!.alias_token;
    await sandbox.test.advance(15 * 60);
    const { hash } = await newOrder();
    expect((await sandbox.b.pay('cust1', hash, stale)).body).toEqual({
      respuesta: false,
      resultado: 'Alias de tarjeta inválido o expirado',
    });
    const fresh = (await sandbox.b.listCards('cust1')).body.resultado[0]!.alias_token;
    expect((await sandbox.b.pay('cust1', hash, fresh)).body).toEqual({ respuesta: true, resultado: '' });
    const other = await newOrder();
    expect((await sandbox.b.pay('cust1', other.hash, fresh)).body.resultado).toBe(
      'Alias de tarjeta inválido o expirado',
    );
  });

  it('pagar answers at once; the result comes by notification and traer', async () => {
    const alias = await savedCardAlias('cust2', '4242424242424242');
    const { hash } = await newOrder(99000);
    const accepted = await sandbox.b.pay('cust2', hash, alias);
    expect(accepted.body).toEqual({ respuesta: true, resultado: '' });
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]!.resultado[0]).toMatchObject({
      pagado: true,
      codigo_respuesta: '00',
      monto: 99000,
    });
    expect((await sandbox.b.query(hash)).body.resultado[0]).toMatchObject({ pagado: true });
    const again = (await sandbox.b.listCards('cust2')).body.resultado[0]!.alias_token;
    expect((await sandbox.b.pay('cust2', hash, again)).body.resultado).toBe('El pedido ya fue pagado');
  });

  it('a declined stored-card charge is notified with pagado false and its code', async () => {
    const alias = await savedCardAlias('cust3', '4000000000009995');
    const { hash } = await newOrder();
    await sandbox.b.pay('cust3', hash, alias);
    await waitFor(() => receiver.received.length === 1);
    expect(receiver.received[0]!.resultado[0]).toMatchObject({ pagado: false, codigo_respuesta: '51' });
  });

  it('deletes a card with its alias', async () => {
    const alias = await savedCardAlias('cust4', '4242424242424242');
    expect((await sandbox.b.deleteCard('cust4', alias)).body).toEqual({
      respuesta: true,
      resultado: 'Tarjeta eliminada',
    });
    expect((await sandbox.b.listCards('cust4')).body.resultado).toEqual([]);
  });
});
