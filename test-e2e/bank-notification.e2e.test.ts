import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@payrail/contracts';
import { gatewayService } from '@payrail/gateway';
import { linksService } from '@payrail/links';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import { processorGatewayService } from '@payrail/processor-gateway';
import { finishPendingBankTransfers } from '@payrail/processor-gateway/src/application/finish-pending-bank-transfers';
import { bankTransfers } from '@payrail/processor-gateway/src/bank-transfers';
import type { Upstream } from '@payrail/runtime';
import { subscriptionsService } from '@payrail/subscriptions';
import {
  type ServiceUnderTest,
  startService,
  TEST_INTERNAL_SECRET,
  testClock,
  waitFor,
} from '@payrail/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `POST /api/bank-notification/add` as a merchant reaches it: through the gateway (Api-Token) to
// processor-gateway, which has the real owners of the targets settle them (links, subscriptions). In this
// process, each service on its own fresh database with its real migrations, on one in-process bus (links'
// link.paid reaches subscriptions). The owners can be made unreachable, or to lose their reply after settling.

const clock = testClock(new Date('2026-11-22T15:00:00Z'));
const bus = createInProcessBus();
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
let gateway: ServiceUnderTest;
let links: ServiceUnderTest;
let subscriptions: ServiceUnderTest;
let pgw: ServiceUnderTest;
let sql: { pgw: postgres.Sql; links: postgres.Sql; subscriptions: postgres.Sql };

type OwnerMode = 'up' | 'down' | 'lose-reply';
const ownerMode: Record<'links' | 'subscriptions', OwnerMode> = { links: 'up', subscriptions: 'up' };

function owner(name: 'links' | 'subscriptions'): Upstream {
  return async (request) => {
    const target = name === 'links' ? links : subscriptions;
    if (ownerMode[name] === 'down') throw new Error('connect ECONNREFUSED');
    const response = await target.instance.app.fetch(request);
    if (ownerMode[name] === 'lose-reply') throw new Error('socket hang up');
    return response;
  };
}

beforeAll(async () => {
  await bus.start();
  subscriptions = await startService(subscriptionsService, { bus, clock });
  links = await startService(linksService, { bus, clock });
  pgw = await startService(processorGatewayService, {
    bus,
    clock,
    env: { BANK_TRANSFER_SWEEP_INTERVAL_MS: '0' },
    upstreams: { links: owner('links'), subscriptions: owner('subscriptions') },
  });
  gateway = await startService(gatewayService, {
    clock,
    env: { ADMIN_TOKEN },
    upstreams: {
      links: (request) => Promise.resolve(links.instance.app.fetch(request)),
      subscriptions: (request) => Promise.resolve(subscriptions.instance.app.fetch(request)),
      'processor-gateway': (request) => Promise.resolve(pgw.instance.app.fetch(request)),
    },
  });
  const open = (url: string) => postgres(url, { max: 2, onnotice: () => {} });
  sql = {
    pgw: open(pgw.testDatabase.url),
    links: open(links.testDatabase.url),
    subscriptions: open(subscriptions.testDatabase.url),
  };
});

afterAll(async () => {
  for (const connection of Object.values(sql ?? {})) await connection.end();
  for (const service of [gateway, pgw, links, subscriptions]) await service?.stop();
  await bus.close();
});

const ADD = '/api/bank-notification/add';

const oneOff = {
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
};

const recurrent = (customIdentifier: string) => ({
  ...oneOff,
  customIdentifier,
  singlePayment: false,
  recurrentPayment: true,
  installmentAmount: 120000,
  totalPeriods: 4,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
});

interface Merchant {
  merchantId: string;
  token: string;
}

async function newMerchant(): Promise<Merchant> {
  const response = await gateway.request('POST', '/admin/merchants', {
    body: { name: 'Gym', instance: 'NATIONAL' },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(response.status).toBe(201);
  const created = (await response.json()) as { id: string; apiToken: string };
  return { merchantId: created.id, token: created.apiToken };
}

function call(merchant: Merchant, method: string, path: string, body?: unknown) {
  return gateway.request(method, path, { body, headers: { 'api-token': merchant.token } });
}

async function createLink(merchant: Merchant, body: Record<string, unknown> = oneOff): Promise<number> {
  const response = await call(merchant, 'POST', '/api/saleitems/add', body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: number }).id;
}

const notification = (target: Record<string, unknown>, overrides: Record<string, unknown> = {}) => ({
  ...target,
  amount: 150000,
  bankName: 'Banco Nacional',
  reference: `TRF-${randomUUID()}`,
  transferDate: '2026-11-21',
  ...overrides,
});

function notify(merchant: Merchant, body: unknown) {
  return call(merchant, 'POST', ADD, body);
}

async function linkStatus(merchant: Merchant, id: number): Promise<number> {
  const response = await call(merchant, 'GET', `/api/payrequests/${id}`);
  return ((await response.json()) as { statusId: number }).statusId;
}

async function outboxEvents(connection: postgres.Sql, schema: string, type: string) {
  const rows = await connection`select body from ${connection(schema)}.outbox where type = ${type}`;
  return rows.map((row) => JSON.parse(row.body as string) as EventEnvelope);
}

async function transfersOf(merchantId: string) {
  return sql.pgw`select id::int as id, reference, status from processor_gateway.bank_transfers where merchant_id = ${merchantId} order by id`;
}

/** Everything a notification could change, in all three services. */
async function everything() {
  return {
    transfers: await sql.pgw`select * from processor_gateway.bank_transfers order by id`,
    pgwOutbox: (await sql.pgw`select id from processor_gateway.outbox`).length,
    links: await sql.links`select id, status_id, paid_at from links.payment_links order by id`,
    linkSettlements: (await sql.links`select link_id from links.bank_transfer_settlements`).length,
    linksOutbox: (await sql.links`select id from links.outbox`).length,
    installments:
      await sql.subscriptions`select id, status, paid_at from subscriptions.installments order by id`,
    subscriptionsOutbox: (await sql.subscriptions`select id from subscriptions.outbox`).length,
  };
}

type Problem = { status: number; code: string; detail: string; errors: Array<{ path: string }> };

async function expectRefused(
  merchant: Merchant,
  body: unknown,
  expected: { status: number; code: string; paths?: string[] },
) {
  const before = await everything();
  const response = await notify(merchant, body);
  const problem = (await response.json()) as Problem;
  expect({ status: response.status, code: problem.code }).toEqual({
    status: expected.status,
    code: expected.code,
  });
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  if (expected.paths) expect(problem.errors.map((error) => error.path)).toEqual(expected.paths);
  expect(await everything()).toEqual(before);
  return problem;
}

async function activeSubscription(merchant: Merchant, customIdentifier: string) {
  const linkId = await createLink(merchant, recurrent(customIdentifier));
  await waitFor(
    async () =>
      (await sql.subscriptions`select id from subscriptions.subscriptions where link_id = ${linkId}`)[0],
  );
  const paid = await notify(merchant, notification({ payRequestId: linkId }));
  expect(paid.status).toBe(200);
  const [subscription] = await waitFor(async () => {
    const rows =
      await sql.subscriptions`select id, status from subscriptions.subscriptions where link_id = ${linkId} and status = 'active'`;
    return rows.length > 0 ? rows : undefined;
  });
  const installments = await sql.subscriptions`
    select id, number, status, payment_date::text as payment_date, amount::text as amount
    from subscriptions.installments where subscription_id = ${subscription?.id} order by number`;
  return { linkId, subscriptionId: Number(subscription?.id), installments };
}

describe('POST /api/bank-notification/add (processor-gateway with links and subscriptions)', () => {
  it('settles a pending link: paid (statusId 200), link.paid BANK_TRANSFER, bank-transfer.registered', async () => {
    const merchant = await newMerchant();
    const id = await createLink(merchant);
    const body = notification({ payRequestId: id }, { currency: 'PYG', note: 'Paid at the branch' });
    const response = await notify(merchant, body);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toEqual({
      id: expect.any(Number),
      reference: body.reference,
      bankName: 'Banco Nacional',
      amount: '150000.00',
      currency: 'PYG',
      transferDate: '2026-11-21',
      note: 'Paid at the branch',
      status: 'SETTLED',
      target: { type: 'PAY_REQUEST', payRequestId: id, statusId: 200 },
      registeredAt: clock.now().toISOString(),
    });
    expect(await linkStatus(merchant, id)).toBe(200);
    // The transfer is one money movement, named by processor-gateway's id of it wherever it is told.
    const [{ tx_id: txId }] = (await sql.pgw`
      select tx_id::text from processor_gateway.bank_transfers where id = ${answer.id as number}`) as unknown as [
      { tx_id: string },
    ];
    expect(txId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const paid = (await outboxEvents(sql.links, 'links', 'link.paid')).filter(
      (event) => (event.data as { linkId: number }).linkId === id,
    );
    expect(paid.map((event) => event.data)).toEqual([
      expect.objectContaining({
        method: 'BANK_TRANSFER',
        txId,
        bankReference: body.reference,
        bankTransfer: {
          reference: body.reference,
          bankName: 'Banco Nacional',
          transferDate: '2026-11-21',
          note: 'Paid at the branch',
        },
        recurrent: false,
      }),
    ]);
    const registered = (await outboxEvents(sql.pgw, 'processor_gateway', 'bank-transfer.registered')).filter(
      (event) => (event.data as { bankTransferId: number }).bankTransferId === answer.id,
    );
    expect(registered.map((event) => event.data)).toEqual([
      {
        bankTransferId: answer.id,
        txId,
        merchantId: merchant.merchantId,
        reference: body.reference,
        bankName: 'Banco Nacional',
        amount: '150000.00',
        currency: 'PYG',
        transferDate: '2026-11-21',
        note: 'Paid at the branch',
        target: { type: 'PAY_REQUEST', linkId: id },
        registeredAt: clock.now().toISOString(),
      },
    ]);
    expect(await transfersOf(merchant.merchantId)).toEqual([
      { id: answer.id, reference: body.reference, status: 'settled' },
    ]);
  });

  it('a recurrent link paid by transfer activates its subscription, installment 1 paid by BANK_TRANSFER', async () => {
    const merchant = await newMerchant();
    const { linkId, subscriptionId, installments } = await activeSubscription(merchant, 'member-1');
    expect(installments.map((i) => i.status)).toEqual(['paid', 'pending', 'pending', 'pending']);
    const paid = (await outboxEvents(sql.subscriptions, 'subscriptions', 'installment.paid')).filter(
      (event) => (event.data as { subscriptionId: number }).subscriptionId === subscriptionId,
    );
    // Installment 1 is the link's payment: the same movement, the same txId.
    const [linkPaid] = (await outboxEvents(sql.links, 'links', 'link.paid'))
      .map((event) => event.data as { linkId: number; txId: string; bankReference: string })
      .filter((data) => data.linkId === linkId);
    expect(linkPaid?.txId).toEqual(expect.any(String));
    expect(paid.map((event) => event.data)).toEqual([
      expect.objectContaining({
        number: 1,
        method: 'BANK_TRANSFER',
        txId: linkPaid?.txId,
        bankReference: linkPaid?.bankReference,
      }),
    ]);
  });

  it('settles an installment by id and another by identifiers and date; neither is pending any more', async () => {
    const merchant = await newMerchant();
    const { installments } = await activeSubscription(merchant, 'member-2');
    const [, second, third] = installments;
    const byId = await notify(merchant, notification({ installmentId: second?.id }, { amount: '120000' }));
    expect(byId.status).toBe(200);
    expect(((await byId.json()) as { target: unknown }).target).toEqual({
      type: 'INSTALLMENT',
      installmentId: Number(second?.id),
      paymentDate: second?.payment_date,
      status: 'paid',
      customIdentifier: 'member-2',
      customIdentifier2: null,
    });
    const byIdentifiers = await notify(
      merchant,
      notification({ customIdentifier: 'member-2', paymentDate: third?.payment_date }, { amount: 120000 }),
    );
    expect(byIdentifiers.status).toBe(200);
    expect(((await byIdentifiers.json()) as { target: { installmentId: number } }).target.installmentId).toBe(
      Number(third?.id),
    );
    const pending = await call(merchant, 'GET', '/api/subscriptions/installments?custom_identifier=member-2');
    const listed = ((await pending.json()) as { installments: Array<{ installment_id: number }> })
      .installments;
    expect(listed.map((i) => i.installment_id)).toEqual([Number(installments[3]?.id)]);
  });

  it('the same reference again answers the first result and changes nothing', async () => {
    const merchant = await newMerchant();
    const id = await createLink(merchant);
    const body = notification({ payRequestId: id });
    const first = await notify(merchant, body);
    const firstAnswer = await first.json();
    const before = await everything();
    clock.advance(60_000);
    const again = await notify(merchant, body);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstAnswer);
    expect(await everything()).toEqual(before);
  });

  it('the same reference with other content is 409 BANK_REFERENCE_REUSED, changing nothing', async () => {
    const merchant = await newMerchant();
    const id = await createLink(merchant);
    const other = await createLink(merchant);
    const body = notification({ payRequestId: id });
    expect((await notify(merchant, body)).status).toBe(200);
    const problem = await expectRefused(
      merchant,
      { ...body, payRequestId: other },
      { status: 409, code: 'BANK_REFERENCE_REUSED' },
    );
    const [first] = await transfersOf(merchant.merchantId);
    expect(problem).toMatchObject({
      detail:
        `The reference ${body.reference} already registered another transfer (${first?.id}); ` +
        'the same notification again answers its first result',
      errors: [],
    });
    expect(await linkStatus(merchant, other)).toBe(1);
  });

  it('concurrent duplicates pay once and all answer the one result', async () => {
    const merchant = await newMerchant();
    const id = await createLink(merchant);
    const body = notification({ payRequestId: id });
    const responses = await Promise.all(Array.from({ length: 10 }, () => notify(merchant, body)));
    const answers = await Promise.all(responses.map((response) => response.json()));
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(await transfersOf(merchant.merchantId)).toHaveLength(1);
    const paid = (await outboxEvents(sql.links, 'links', 'link.paid')).filter(
      (event) => (event.data as { linkId: number }).linkId === id,
    );
    expect(paid).toHaveLength(1);
    const registered = (await outboxEvents(sql.pgw, 'processor_gateway', 'bank-transfer.registered')).filter(
      (event) => (event.data as { merchantId: string }).merchantId === merchant.merchantId,
    );
    expect(registered).toHaveLength(1);
  });

  describe('each refusal registers nothing and changes nothing', () => {
    it('404 for an unknown link and for another merchant’s', async () => {
      const merchant = await newMerchant();
      const id = await createLink(merchant);
      await expectRefused(merchant, notification({ payRequestId: 987_654_321 }), {
        status: 404,
        code: 'PAYMENT_LINK_NOT_FOUND',
        paths: ['payRequestId'],
      });
      await expectRefused(await newMerchant(), notification({ payRequestId: id }), {
        status: 404,
        code: 'PAYMENT_LINK_NOT_FOUND',
      });
      await expectRefused(merchant, notification({ installmentId: 2_000_000_000 }), {
        status: 404,
        code: 'INSTALLMENT_NOT_FOUND',
      });
    });

    it('409 for a link already paid and for a cancelled installment', async () => {
      const merchant = await newMerchant();
      const id = await createLink(merchant);
      expect((await notify(merchant, notification({ payRequestId: id }))).status).toBe(200);
      await expectRefused(merchant, notification({ payRequestId: id }), {
        status: 409,
        code: 'PAYMENT_LINK_ALREADY_PAID',
      });
      const { installments } = await activeSubscription(merchant, 'member-3');
      const cancelled = await call(
        merchant,
        'POST',
        `/api/subscriptions/installments/${installments[2]?.id}/cancel`,
      );
      expect(cancelled.status).toBe(200);
      await expectRefused(
        merchant,
        notification({ installmentId: installments[2]?.id }, { amount: 120000 }),
        {
          status: 409,
          code: 'INSTALLMENT_CANCELLED',
        },
      );
    });

    it('422 for an amount other than what is due', async () => {
      const merchant = await newMerchant();
      const id = await createLink(merchant);
      await expectRefused(merchant, notification({ payRequestId: id }, { amount: 149999.99 }), {
        status: 422,
        code: 'AMOUNT_MISMATCH',
        paths: ['amount'],
      });
    });

    it('400 for the shape, with the path of each field', async () => {
      const merchant = await newMerchant();
      const id = await createLink(merchant);
      const cases: Array<[unknown, string[]]> = [
        [notification({}), ['payRequestId']],
        [notification({ payRequestId: id, installmentId: 5 }), ['installmentId']],
        [notification({ customIdentifier: 'member-1' }), ['paymentDate']],
        [notification({ payRequestId: id }, { amount: 'lots' }), ['amount']],
        [notification({ payRequestId: id }, { amount: 10.001 }), ['amount']],
        [notification({ payRequestId: id }, { reference: ' ' }), ['reference']],
        [notification({ payRequestId: id }, { bankName: undefined }), ['bankName']],
        [notification({ payRequestId: id }, { transferDate: '2026-02-30' }), ['transferDate']],
        [notification({ payRequestId: id }, { transferDate: '2026-11-23' }), ['transferDate']],
        [notification({ payRequestId: id }, { currency: 'ARS' }), ['currency']],
        [notification({ payRequestId: 'abc' }), ['payRequestId']],
      ];
      for (const [body, paths] of cases) {
        await expectRefused(merchant, body, { status: 400, code: 'VALIDATION_ERROR', paths });
      }
      // The schema takes the date; the merchant's calendar refuses it.
      const tomorrow = await expectRefused(
        merchant,
        notification({ payRequestId: id }, { transferDate: '2026-11-23' }),
        { status: 400, code: 'VALIDATION_ERROR' },
      );
      expect(tomorrow).toMatchObject({
        detail: 'Request body is invalid',
        errors: [
          {
            path: 'transferDate',
            message: expect.stringMatching(/^is after today \(2026-11-2\d\) in the merchant's time zone$/),
          },
        ],
      });
      expect(await linkStatus(merchant, id)).toBe(1);
    });

    it('a refused reference stays free: corrected, the same reference settles', async () => {
      const merchant = await newMerchant();
      const id = await createLink(merchant);
      const wrong = notification({ payRequestId: id }, { amount: 15000 });
      await expectRefused(merchant, wrong, { status: 422, code: 'AMOUNT_MISMATCH' });
      const corrected = await notify(merchant, { ...wrong, amount: 150000 });
      expect(corrected.status).toBe(200);
      expect(await linkStatus(merchant, id)).toBe(200);
    });
  });

  describe('when the owner cannot answer', () => {
    it('503 with nothing settled; the same notification later settles it', async () => {
      const merchant = await newMerchant();
      const id = await createLink(merchant);
      const body = notification({ payRequestId: id });
      ownerMode.links = 'down';
      try {
        const response = await notify(merchant, body);
        expect(response.status).toBe(503);
        expect(await response.json()).toMatchObject({
          code: 'SETTLEMENT_UNAVAILABLE',
          detail:
            'The target could not be settled now; send the same notification again (it never pays twice)',
          errors: [],
        });
      } finally {
        ownerMode.links = 'up';
      }
      expect(await linkStatus(merchant, id)).toBe(1);
      expect(await transfersOf(merchant.merchantId)).toEqual([
        expect.objectContaining({ reference: body.reference, status: 'pending' }),
      ]);
      const again = await notify(merchant, body);
      expect(again.status).toBe(200);
      expect(await linkStatus(merchant, id)).toBe(200);
    });

    it('a reply lost after the owner settled: the retry answers the settlement, paid once', async () => {
      const merchant = await newMerchant();
      const { installments } = await activeSubscription(merchant, 'member-4');
      const body = notification({ installmentId: installments[1]?.id }, { amount: 120000 });
      ownerMode.subscriptions = 'lose-reply';
      try {
        expect((await notify(merchant, body)).status).toBe(503);
      } finally {
        ownerMode.subscriptions = 'up';
      }
      const again = await notify(merchant, body);
      expect(again.status).toBe(200);
      const paid = (await outboxEvents(sql.subscriptions, 'subscriptions', 'installment.paid')).filter(
        (event) => (event.data as { installmentId: number }).installmentId === Number(installments[1]?.id),
      );
      expect(paid).toHaveLength(1);
    });

    it('the sweep finishes a transfer left pending: settled with its event, or released when refused', async () => {
      const merchant = await newMerchant();
      const payable = await createLink(merchant);
      const alreadyPaid = await createLink(merchant);
      expect((await notify(merchant, notification({ payRequestId: alreadyPaid }))).status).toBe(200);
      const settles = notification({ payRequestId: payable });
      const refused = notification({ payRequestId: alreadyPaid });
      ownerMode.links = 'lose-reply';
      try {
        expect((await notify(merchant, settles)).status).toBe(503);
        ownerMode.links = 'down';
        expect((await notify(merchant, refused)).status).toBe(503);
      } finally {
        ownerMode.links = 'up';
      }
      expect((await transfersOf(merchant.merchantId)).map((row) => row.status)).toEqual([
        'settled',
        'pending',
        'pending',
      ]);
      const module = bankTransfers({
        db: pgw.database.db,
        clock,
        logger: createLogger('test', 'silent'),
        internalSecret: TEST_INTERNAL_SECRET,
        upstream: (name) => owner(name as 'links' | 'subscriptions'),
        sweepIntervalMs: 60_000,
      });
      clock.advance(5 * 60_000);
      const result = await finishPendingBankTransfers(module.deps, { olderThanMs: 60_000, limit: 100 });
      expect(result).toMatchObject({ settled: 1, released: 1, stillPending: 0 });
      expect(await transfersOf(merchant.merchantId)).toEqual([
        expect.objectContaining({ status: 'settled' }),
        expect.objectContaining({ reference: settles.reference, status: 'settled' }),
      ]);
      const registered = (
        await outboxEvents(sql.pgw, 'processor_gateway', 'bank-transfer.registered')
      ).filter((event) => (event.data as { reference: string }).reference === settles.reference);
      expect(registered).toHaveLength(1);
      expect(await linkStatus(merchant, payable)).toBe(200);
    });
  });
});
