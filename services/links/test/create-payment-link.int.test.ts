import type { MerchantContext } from '@payrail/contracts';
import {
  aDynamicLink,
  aMerchant,
  aOneOffLink,
  aStaticLink,
  type ServiceUnderTest,
  startService,
  testClock,
  without,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox, paymentLinks } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, { clock });
});
afterAll(async () => svc?.stop());

const PROCESSOR_A = 'PARAGUAY.PROCESSOR_A';
const PROCESSOR_B = 'PARAGUAY.PROCESSOR_B';

const oneOff = aOneOffLink();
const staticSubscription = aStaticLink({ installmentAmount: 100000 });

async function linkCount(): Promise<number> {
  return (await svc.database.db.select({ id: paymentLinks.id }).from(paymentLinks)).length;
}

async function create(body: unknown, merchant: MerchantContext = aMerchant()) {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function storedLink(id: unknown) {
  const [row] = await svc.database.db
    .select()
    .from(paymentLinks)
    .where(eq(paymentLinks.id, Number(id)));
  if (!row) throw new Error(`link ${id} not stored`);
  return row;
}

type Problem = { code: string; errors: Array<{ path: string }> };

describe('POST /api/saleitems/add', () => {
  it('stores the link with its link.created event and answers the spec 2.2 fields', async () => {
    const { status, body } = await create(oneOff);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual([
      'ammount',
      'currency',
      'id',
      'publicPayUrl',
      'slug',
      'statusId',
    ]);
    expect(body).toMatchObject({ currency: 'PYG', ammount: '150000.00', statusId: 1 });
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body.slug).toMatch(/^[\w-]{22,}$/);
    expect(body.publicPayUrl).toBe(`http://pay.test/pay/${body.slug}`);
    const events = await svc.database.db.select().from(outbox);
    expect(events.some((e) => e.type === 'link.created' && JSON.parse(e.body).data.linkId === body.id)).toBe(
      true,
    );
  });

  it('numbers links increasingly and gives each an unguessable, distinct slug', async () => {
    const first = await create(oneOff);
    const second = await create(oneOff);
    expect(second.body.id as number).toBeGreaterThan(first.body.id as number);
    expect(second.body.slug).not.toBe(first.body.slug);
  });

  it('refuses a request without the signed merchant context (an internal port reached directly)', async () => {
    const before = await linkCount();
    const response = await svc.request('POST', '/api/saleitems/add', { body: oneOff });
    expect(response.status).toBe(401);
    expect(await linkCount()).toBe(before);
  });

  const badRequests: Array<[string, unknown, string[]]> = [
    ['label missing', without(oneOff, 'label'), ['label']],
    ['amount missing', without(oneOff, 'amount'), ['amount']],
    ['handleValue missing', without(oneOff, 'handleValue'), ['handleValue']],
    ['handleLabel missing', without(oneOff, 'handleLabel'), ['handleLabel']],
    ['singlePayment missing', without(oneOff, 'singlePayment'), ['singlePayment']],
    ['creditAndDebitCard missing', without(oneOff, 'creditAndDebitCard'), ['creditAndDebitCard']],
    ['label of the wrong type', { ...oneOff, label: 12 }, ['label']],
    ['empty label', { ...oneOff, label: '  ' }, ['label']],
    ['amount of the wrong type', { ...oneOff, amount: true }, ['amount']],
    ['amount not a number', { ...oneOff, amount: 'abc' }, ['amount']],
    ['singlePayment of the wrong type', { ...oneOff, singlePayment: 'yes' }, ['singlePayment']],
    ['recurrentPayment of the wrong type', { ...oneOff, recurrentPayment: 'true' }, ['recurrentPayment']],
    ['customIdentifier of the wrong type', { ...oneOff, customIdentifier: { id: 1 } }, ['customIdentifier']],
    [
      'unknown recurrentPaymentType',
      { ...staticSubscription, recurrentPaymentType: 'WEEKLY' },
      ['recurrentPaymentType'],
    ],
    [
      'STATIC without installmentAmount',
      without(staticSubscription, 'installmentAmount'),
      ['installmentAmount'],
    ],
    ['STATIC without totalPeriods', without(staticSubscription, 'totalPeriods'), ['totalPeriods']],
    ['STATIC without dayOfMonth', without(staticSubscription, 'dayOfMonth'), ['dayOfMonth']],
    [
      'STATIC without monthForSecondInstallment',
      without(staticSubscription, 'monthForSecondInstallment'),
      ['monthForSecondInstallment'],
    ],
    [
      'STATIC type by default, every STATIC field missing',
      without(
        staticSubscription,
        'recurrentPaymentType',
        'installmentAmount',
        'totalPeriods',
        'dayOfMonth',
        'monthForSecondInstallment',
      ),
      ['installmentAmount', 'totalPeriods', 'dayOfMonth', 'monthForSecondInstallment'],
    ],
    ['dayOfMonth 0', { ...staticSubscription, dayOfMonth: 0 }, ['dayOfMonth']],
    ['dayOfMonth 29', { ...staticSubscription, dayOfMonth: 29 }, ['dayOfMonth']],
    ['dayOfMonth not an integer', { ...staticSubscription, dayOfMonth: 5.5 }, ['dayOfMonth']],
    ['totalPeriods 0', { ...staticSubscription, totalPeriods: 0 }, ['totalPeriods']],
    ['totalPeriods negative', { ...staticSubscription, totalPeriods: -3 }, ['totalPeriods']],
    [
      'monthForSecondInstallment negative',
      { ...staticSubscription, monthForSecondInstallment: -1 },
      ['monthForSecondInstallment'],
    ],
    ['amount 0', { ...oneOff, amount: 0 }, ['amount']],
    ['amount negative', { ...oneOff, amount: -10 }, ['amount']],
    ['amount with three decimals', { ...oneOff, amount: 10.123 }, ['amount']],
    ['amount string with three decimals', { ...oneOff, amount: '10.125' }, ['amount']],
    ['installmentAmount 0', { ...staticSubscription, installmentAmount: 0 }, ['installmentAmount']],
    [
      'installmentAmount with three decimals',
      { ...staticSubscription, installmentAmount: 99.999 },
      ['installmentAmount'],
    ],
    ['paymentMethods a string', { ...oneOff, paymentMethods: PROCESSOR_A }, ['paymentMethods']],
    ['paymentMethods an object', { ...oneOff, paymentMethods: { first: PROCESSOR_A } }, ['paymentMethods']],
    ['paymentMethods a number', { ...oneOff, paymentMethods: 1 }, ['paymentMethods']],
    ['noLoginRequired without documentNumber', { ...oneOff, noLoginRequired: true }, ['documentNumber']],
    [
      'noLoginRequired with an empty documentNumber',
      { ...oneOff, noLoginRequired: true, documentNumber: '' },
      ['documentNumber'],
    ],
    ['neither singlePayment nor recurrentPayment', { ...oneOff, singlePayment: false }, ['singlePayment']],
    [
      'neither, recurrentPayment absent',
      without({ ...oneOff, singlePayment: false }, 'recurrentPayment'),
      ['singlePayment'],
    ],
    [
      'recurrentPayment without creditAndDebitCard',
      { ...staticSubscription, creditAndDebitCard: false },
      ['creditAndDebitCard'],
    ],
    ['payWaitHours negative', { ...oneOff, payWaitHours: -1 }, ['payWaitHours']],
    ['payWaitHours not an integer', { ...oneOff, payWaitHours: 1.5 }, ['payWaitHours']],
    ['redirectUrl not a URL', { ...oneOff, redirectUrl: 'shop.example.com/done' }, ['redirectUrl']],
    ['redirectUrl not http(s)', { ...oneOff, redirectUrl: 'javascript:alert(1)' }, ['redirectUrl']],
    ['currency of the wrong type', { ...oneOff, currency: 600 }, ['currency']],
    [
      'several problems at once are all named',
      { ...without(staticSubscription, 'label', 'dayOfMonth'), amount: 0 },
      ['label', 'amount', 'dayOfMonth'],
    ],
    ['a JSON array instead of an object', [oneOff], ['(body)']],
  ];

  it.each(badRequests)('400 for %s, naming %j, and stores nothing', async (_case, body, paths) => {
    const before = await linkCount();
    const { status, body: problem } = await create(body);
    expect(status).toBe(400);
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect((problem as unknown as Problem).errors.map((e) => e.path).sort()).toEqual([...paths].sort());
    expect(await linkCount()).toBe(before);
  });

  it('400 MALFORMED_JSON for a body that is not JSON, and stores nothing', async () => {
    const before = await linkCount();
    const response = await svc.request('POST', '/api/saleitems/add', {
      rawBody: '{"label": ',
      merchant: aMerchant(),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(((await response.json()) as Problem).code).toBe('MALFORMED_JSON');
    expect(await linkCount()).toBe(before);
  });

  const plain = aMerchant();
  const withCallback = aMerchant({ callbackUrl: 'https://shop.example.com/payments/callback' });
  const international = aMerchant({ instance: 'INTERNATIONAL', currency: 'USD' });
  const refused: Array<[string, MerchantContext, unknown, string, string[]]> = [
    [
      'noLoginRequired for a merchant without it',
      plain,
      { ...oneOff, noLoginRequired: true, documentNumber: '4567890' },
      'NO_LOGIN_NOT_ENABLED',
      ['noLoginRequired'],
    ],
    [
      'DYNAMIC without a SaaS contract',
      plain,
      { ...oneOff, recurrentPayment: true, recurrentPaymentType: 'DYNAMIC' },
      'SAAS_CONTRACT_REQUIRED',
      ['recurrentPaymentType'],
    ],
    [
      'redirectUrl without a configured callback URL',
      plain,
      { ...oneOff, redirectUrl: 'https://shop.example.com/done' },
      'CALLBACK_URL_NOT_CONFIGURED',
      ['redirectUrl'],
    ],
    [
      'redirectUrl on another host',
      withCallback,
      { ...oneOff, redirectUrl: 'https://evil.example.net/done' },
      'REDIRECT_ORIGIN_MISMATCH',
      ['redirectUrl'],
    ],
    [
      'redirectUrl on another scheme',
      withCallback,
      { ...oneOff, redirectUrl: 'http://shop.example.com/done' },
      'REDIRECT_ORIGIN_MISMATCH',
      ['redirectUrl'],
    ],
    [
      'redirectUrl on another port',
      withCallback,
      { ...oneOff, redirectUrl: 'https://shop.example.com:8443/done' },
      'REDIRECT_ORIGIN_MISMATCH',
      ['redirectUrl'],
    ],
    [
      'USD on a national instance',
      plain,
      { ...oneOff, currency: 'USD' },
      'CURRENCY_NOT_OFFERED',
      ['currency'],
    ],
    [
      'PYG on an international instance',
      international,
      { ...oneOff, currency: 'PYG' },
      'CURRENCY_NOT_OFFERED',
      ['currency'],
    ],
    [
      'an unknown currency',
      international,
      { ...oneOff, currency: 'BTC' },
      'CURRENCY_NOT_OFFERED',
      ['currency'],
    ],
  ];

  it.each(refused)('422 for %s, and stores nothing', async (_case, merchant, body, code, paths) => {
    const before = await linkCount();
    const { status, body: problem } = await create(body, merchant);
    expect(status).toBe(422);
    expect(problem.code).toBe(code);
    expect((problem as unknown as Problem).errors.map((e) => e.path)).toEqual(paths);
    expect(await linkCount()).toBe(before);
  });

  // Design 5: what clients in the field send.
  const realClientShapes: Array<[string, MerchantContext, Record<string, unknown>]> = [
    [
      'one-off without recurrentPayment, with an extra currency and integer amount',
      plain,
      {
        label: 'Cuota social',
        amount: 150000,
        handleValue: 'socio@example.com',
        handleLabel: 'Socio',
        singlePayment: true,
        creditAndDebitCard: true,
        currency: 'PYG',
      },
    ],
    [
      'customIdentifier "" and redirectUrl ""',
      plain,
      { ...oneOff, customIdentifier: '', customIdentifier2: '', redirectUrl: '' },
    ],
    [
      'customIdentifier as digits, handleValue a phone number',
      plain,
      { ...oneOff, customIdentifier: '4567890', handleValue: '+595981123456' },
    ],
    [
      'customIdentifier as a JSON number, handleValue free text',
      plain,
      { ...oneOff, customIdentifier: 4567890, handleValue: 'Ana, mostrador 3' },
    ],
    [
      'redirectUrl with its own query string',
      withCallback,
      { ...oneOff, redirectUrl: 'https://shop.example.com/payments/done?order=117&src=api' },
    ],
    ['STATIC subscription with integer amounts', plain, { ...staticSubscription }],
    [
      'amounts as decimal strings',
      plain,
      { ...staticSubscription, amount: '150000', installmentAmount: '100000.00' },
    ],
    [
      'amounts in cents (USD)',
      international,
      { ...staticSubscription, amount: '150.5', installmentAmount: 99.99 },
    ],
    [
      'optional fields sent as null',
      plain,
      {
        ...oneOff,
        customIdentifier: null,
        payWaitHours: null,
        redirectUrl: null,
        noLoginRequired: null,
        documentNumber: null,
        paymentMethods: null,
        recurrentPaymentType: null,
      },
    ],
    ['EUR on an international instance', international, { ...oneOff, amount: 49.9, currency: 'eur' }],
  ];

  it.each(realClientShapes)('accepts %s', async (_case, merchant, body) => {
    const before = await linkCount();
    const { status, body: created } = await create(body, merchant);
    expect(status).toBe(200);
    expect(typeof created.publicPayUrl).toBe('string');
    expect(await linkCount()).toBe(before + 1);
  });

  it('stores what was asked: normalised amounts, "" as none, digits as text, the redirect as given', async () => {
    const { body } = await create(
      {
        ...staticSubscription,
        amount: 1500.5,
        installmentAmount: 990,
        customIdentifier: '',
        customIdentifier2: 117,
        redirectUrl: 'https://shop.example.com/payments/done?order=117',
      },
      { ...withCallback, instance: 'INTERNATIONAL', currency: 'USD' },
    );
    const row = await storedLink(body.id);
    expect(body.ammount).toBe('1500.50');
    expect(row.amount).toBe('1500.50');
    expect(row.customIdentifier).toBeNull();
    expect(row.customIdentifier2).toBe('117');
    expect(row.redirectUrl).toBe('https://shop.example.com/payments/done?order=117');
    expect(row.recurrence).toEqual({
      type: 'STATIC',
      installmentAmount: '990.00',
      totalPeriods: 12,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    });
  });

  it('totalPeriods: null on a STATIC subscription is open-ended (every month until cancelled); absent is 400', async () => {
    const { status, body } = await create({ ...staticSubscription, totalPeriods: null }, plain);
    expect(status).toBe(200);
    expect((await storedLink(body.id)).recurrence).toEqual({
      type: 'STATIC',
      installmentAmount: '100000.00',
      totalPeriods: null,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    });
    const events = await svc.database.db.select().from(outbox).where(eq(outbox.type, 'link.created'));
    const created = events
      .map((event) => JSON.parse(event.body).data)
      .find((data) => data.linkId === body.id);
    expect(created.recurrence).toEqual({
      type: 'STATIC',
      installmentAmount: '100000.00',
      totalPeriods: null,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    });
    const details = await svc.request('GET', `/api/payrequests/${body.id}`, { merchant: plain });
    expect(await details.json()).toMatchObject({ recurrentPaymentType: 'STATIC', totalPeriods: null });

    const before = await linkCount();
    const absent = await create(without(staticSubscription, 'totalPeriods'));
    expect(absent.status).toBe(400);
    expect((absent.body as unknown as Problem).errors.map((e) => e.path)).toEqual(['totalPeriods']);
    expect(await linkCount()).toBe(before);
  });

  it('a DYNAMIC subscription needs none of the STATIC fields (SaaS merchant)', async () => {
    const { status, body } = await create(aDynamicLink(), aMerchant({ saasContract: true }));
    expect(status).toBe(200);
    expect((await storedLink(body.id)).recurrence).toEqual({ type: 'DYNAMIC' });
  });

  it('noLoginRequired with a documentNumber is accepted for a merchant that has it', async () => {
    const { status, body } = await create(
      { ...oneOff, noLoginRequired: true, documentNumber: '4567890' },
      aMerchant({ noLoginEnabled: true }),
    );
    expect(status).toBe(200);
    expect(await storedLink(body.id)).toMatchObject({ noLoginRequired: true, documentNumber: '4567890' });
  });

  it('uses the instance currency: the merchant default, or the one asked for', async () => {
    expect((await create(oneOff, international)).body.currency).toBe('USD');
    expect((await create({ ...oneOff, currency: 'EUR' }, international)).body.currency).toBe('EUR');
    expect((await create({ ...oneOff, currency: '' }, plain)).body.currency).toBe('PYG');
  });

  it('refuses a PYG amount with a fraction (400 naming each field), stores nothing; USD and EUR keep cents', async () => {
    const before = await linkCount();
    const fractional = await create({
      ...staticSubscription,
      amount: 99000.5,
      installmentAmount: '150000.01',
    });
    expect(fractional.status).toBe(400);
    const problem = fractional.body as unknown as Problem & { detail: string };
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors.map((error) => error.path)).toEqual(['amount', 'installmentAmount']);
    expect(problem.detail).toBe('amount must be a whole number: PYG has no decimals (and 1 more problem)');
    expect((await create({ ...oneOff, amount: '99000.50' })).status).toBe(400);
    expect(await linkCount()).toBe(before);
    // Whole guaraníes, written with or without zero decimals, are whole.
    expect((await create({ ...oneOff, amount: '99000.00' })).status).toBe(200);
    const usd = await create(
      { ...staticSubscription, amount: 19.99, installmentAmount: '9.5' },
      international,
    );
    expect(usd.status).toBe(200);
    expect(usd.body.ammount).toBe('19.99');
    expect((await create({ ...oneOff, currency: 'EUR', amount: 0.01 }, international)).body.ammount).toBe(
      '0.01',
    );
  });

  const processorCases: Array<[string, unknown, string[], string[]]> = [
    ['absent', undefined, [PROCESSOR_A, PROCESSOR_B], [PROCESSOR_A, PROCESSOR_B]],
    ['one known', [PROCESSOR_B], [PROCESSOR_A, PROCESSOR_B], [PROCESSOR_B]],
    [
      'known mixed with junk',
      [PROCESSOR_B, 'VISA', 3, { id: PROCESSOR_A }, null, 'paraguay.processor_a'],
      [PROCESSOR_A, PROCESSOR_B],
      [PROCESSOR_B],
    ],
    ['only junk', ['VISA', 42], [PROCESSOR_A, PROCESSOR_B], [PROCESSOR_A, PROCESSOR_B]],
    ['empty', [], [PROCESSOR_A, PROCESSOR_B], [PROCESSOR_A, PROCESSOR_B]],
    ['one the merchant does not have', [PROCESSOR_B], [PROCESSOR_A], [PROCESSOR_A]],
    ['duplicates', [PROCESSOR_A, PROCESSOR_A], [PROCESSOR_A, PROCESSOR_B], [PROCESSOR_A]],
  ];

  it.each(processorCases)(
    'paymentMethods %s: enables what remains, else all of the merchant',
    async (_case, methods, has, enabled) => {
      const merchant = aMerchant({ processors: has as MerchantContext['processors'] });
      const body = methods === undefined ? oneOff : { ...oneOff, paymentMethods: methods };
      const { status, body: created } = await create(body, merchant);
      expect(status).toBe(200);
      expect((await storedLink(created.id)).paymentMethods).toEqual(enabled);
    },
  );

  it('payWaitHours: 0 or absent never expires; otherwise that many hours after creation', async () => {
    const never = await create({ ...oneOff, payWaitHours: 0 });
    const absent = await create(oneOff);
    const twoDays = await create({ ...oneOff, payWaitHours: 48 });
    expect((await storedLink(never.body.id)).expiresAt).toBeNull();
    expect((await storedLink(absent.body.id)).expiresAt).toBeNull();
    expect((await storedLink(twoDays.body.id)).expiresAt?.toISOString()).toBe('2026-11-24T12:00:00.000Z');
  });
});

describe('GET /api/payrequests/{id}', () => {
  const merchant = aMerchant({ timezone: 'America/New_York', instance: 'INTERNATIONAL', currency: 'USD' });

  it("answers the link's state, amounts as 2-decimal strings, times in the merchant's zone", async () => {
    const { body: created } = await create(
      { ...oneOff, amount: 1500.5, customIdentifier: 'C-1', customIdentifier2: 'K-9', payWaitHours: 48 },
      merchant,
    );
    const response = await svc.request('GET', `/api/payrequests/${created.id}`, { merchant });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: created.id,
      statusId: 1,
      paid: false,
      currency: 'USD',
      amount: '1500.50',
      refundedAmount: '0.00',
      label: 'Gym membership',
      handleValue: 'ana@example.com',
      handleLabel: 'Ana',
      customIdentifier: 'C-1',
      customIdentifier2: 'K-9',
      // 12:00 UTC is 07:00 in New York in November (EST, UTC-5): ISO 8601 with the offset.
      createTime: '2026-11-22T07:00:00-05:00',
      expireTime: '2026-11-24T07:00:00-05:00',
      slug: created.slug,
      publicPayUrl: created.publicPayUrl,
      singlePayment: true,
      creditAndDebitCard: true,
      paymentMethods: [PROCESSOR_A, PROCESSOR_B],
      recurrentPayment: false,
      recurrentPaymentType: null,
      installmentAmount: null,
      totalPeriods: null,
      dayOfMonth: null,
      monthForSecondInstallment: null,
      // Not paid: every field of its payment is null.
      paymentId: null,
      paidAt: null,
      method: null,
      processor: null,
      cardBrand: null,
      cardLast4: null,
      paidBy: null,
    });
  });

  it('shows the subscription terms of a recurrent link, and null expireTime without expiry', async () => {
    const { body: created } = await create(staticSubscription, merchant);
    const response = await svc.request('GET', `/api/payrequests/${created.id}`, { merchant });
    expect(await response.json()).toMatchObject({
      expireTime: null,
      recurrentPayment: true,
      recurrentPaymentType: 'STATIC',
      installmentAmount: '100000.00',
      totalPeriods: 12,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    });
  });

  it('reports a pending link past its validity as expired (statusId 6)', async () => {
    const { body: created } = await create({ ...oneOff, payWaitHours: 1 }, merchant);
    clock.advance(2 * 3_600_000);
    try {
      const response = await svc.request('GET', `/api/payrequests/${created.id}`, { merchant });
      expect(await response.json()).toMatchObject({ statusId: 6, paid: false });
    } finally {
      clock.set(new Date('2026-11-22T12:00:00Z'));
    }
  });

  it("is 404 PAYMENT_LINK_NOT_FOUND for another merchant's link and an unknown id", async () => {
    const { body: created } = await create(oneOff, merchant);
    for (const [path, who] of [
      [`/api/payrequests/${created.id}`, aMerchant()],
      ['/api/payrequests/999999999', merchant],
    ] as const) {
      const response = await svc.request('GET', path, { merchant: who });
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('PAYMENT_LINK_NOT_FOUND');
    }
  });

  it('is 400 with errors[].path "id" for a malformed id', async () => {
    for (const path of ['/api/payrequests/abc', '/api/payrequests/-1', '/api/payrequests/0']) {
      const response = await svc.request('GET', path, { merchant });
      expect(response.status, path).toBe(400);
      const problem = (await response.json()) as { code: string; errors: Array<{ path: string }> };
      expect(problem.code).toBe('VALIDATION_ERROR');
      expect(problem.errors.map((error) => error.path)).toEqual(['id']);
    }
  });

  it('is 405 with Allow for a method the path does not have', async () => {
    const response = await svc.request('DELETE', '/api/payrequests/1', { merchant });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(((await response.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
    const onCreate = await svc.request('GET', '/api/saleitems/add', { merchant });
    expect(onCreate.status).toBe(405);
    expect(onCreate.headers.get('allow')).toBe('POST');
  });
});
