import { createHash } from 'node:crypto';
import type { MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aSignedInUserRequest,
  type ServiceUnderTest,
  startService,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresLoginCodeRepository } from '../src/adapters/postgres/login-code-repository';
import { customers, loginCodes, paymentLinks } from '../src/adapters/postgres/schema';
import { consumeLoginCode } from '../src/application/consume-login-code';
import { linksService } from '../src/service';

const START = new Date('2026-11-22T12:00:00Z');
const clock = testClock(START);
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, { clock });
});
afterAll(async () => svc?.stop());

const saas = aMerchant({ saasContract: true, timezone: 'America/New_York' });

const request = aSignedInUserRequest();

type Problem = { code: string; errors: Array<{ path: string }> };

async function create(body: unknown, merchant: MerchantContext = saas) {
  const response = await svc.request('POST', '/api/ext-app/payrequests/signed-in-user', { body, merchant });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function counts() {
  const db = svc.database.db;
  return {
    links: (await db.select({ id: paymentLinks.id }).from(paymentLinks)).length,
    customers: (await db.select({ id: customers.id }).from(customers)).length,
    codes: (await db.select({ id: loginCodes.id }).from(loginCodes)).length,
  };
}

const loginCodeOf = (publicPayUrl: unknown) => new URL(String(publicPayUrl)).searchParams.get('login') ?? '';
const consume = (slug: unknown, code: string) =>
  consumeLoginCode(
    { loginCodes: postgresLoginCodeRepository(svc.database.db), clock },
    { slug: String(slug), code },
  );

describe('POST /api/ext-app/payrequests/signed-in-user', () => {
  it('answers exactly the spec 2.3 fields: 2-decimal amount, expireTime in the merchant zone, userId', async () => {
    const { status, body } = await create(request);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      ['amount', 'currency', 'expireTime', 'id', 'publicPayUrl', 'slug', 'statusId', 'userId'].sort(),
    );
    expect(body).toMatchObject({ currency: 'PYG', amount: '99000.00', statusId: 1 });
    // 48 h after 2026-11-22 12:00 UTC is 2026-11-24 07:00 in New York (EST).
    expect(body.expireTime).toBe('2026-11-24 07:00:00');
    expect(Number.isInteger(body.id)).toBe(true);
    expect(Number.isInteger(body.userId)).toBe(true);
    expect(String(body.publicPayUrl).startsWith(`http://pay.test/pay/${body.slug}?login=`)).toBe(true);
  });

  it('totalPeriods: null on a STATIC subscription is open-ended; absent is 400, storing nothing', async () => {
    const subscription = {
      ...request,
      singlePayment: false,
      recurrentPayment: true,
      recurrentPaymentType: 'STATIC',
      installmentAmount: 120000,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    };
    const openEnded = await create({ ...subscription, totalPeriods: null });
    expect(openEnded.status).toBe(200);
    const [row] = await svc.database.db
      .select()
      .from(paymentLinks)
      .where(eq(paymentLinks.id, Number(openEnded.body.id)));
    expect(row?.recurrence).toMatchObject({ type: 'STATIC', totalPeriods: null });

    const before = await counts();
    const absent = await create(subscription);
    expect(absent.status).toBe(400);
    expect((absent.body as unknown as Problem).errors.map((e) => e.path)).toEqual(['totalPeriods']);
    expect(await counts()).toEqual(before);
  });

  it('expireTime is null for a link without expiry', async () => {
    const { body } = await create({ ...request, payWaitHours: 0 });
    expect(body.expireTime).toBeNull();
  });

  it('finds the user by e-mail whatever its case; another merchant has its own user', async () => {
    const first = await create({
      ...request,
      signedInUser: { ...request.signedInUser, email: 'Bruno@Example.com' },
    });
    const second = await create({
      ...request,
      signedInUser: { email: 'bruno@example.COM', firstName: 'B', lastName: 'X' },
    });
    const elsewhere = await create(
      { ...request, signedInUser: { ...request.signedInUser, email: 'bruno@example.com' } },
      aMerchant({ saasContract: true }),
    );
    expect(second.body.userId).toBe(first.body.userId);
    expect(elsewhere.body.userId).not.toBe(first.body.userId);
    const [user] = await svc.database.db
      .select()
      .from(customers)
      .where(eq(customers.id, Number(first.body.userId)));
    // Created activated, with the names of the first request (a known user is not renamed).
    expect(user).toMatchObject({
      email: 'Bruno@Example.com',
      emailKey: 'bruno@example.com',
      firstName: 'Ana',
      status: 'active',
    });
    expect(user?.activatedAt).not.toBeNull();
  });

  it('two concurrent first requests for one new e-mail make one user', async () => {
    const body = { ...request, signedInUser: { ...request.signedInUser, email: 'race@example.com' } };
    const results = await Promise.all([create(body), create(body), create(body)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.userId)).size).toBe(1);
  });

  it('links the stored link to the user and ignores paymentMethods (2.3 has none)', async () => {
    const { body } = await create({ ...request, paymentMethods: ['PARAGUAY.PROCESSOR_B'] });
    const [link] = await svc.database.db
      .select()
      .from(paymentLinks)
      .where(eq(paymentLinks.id, Number(body.id)));
    expect(link?.customerId).toBe(body.userId);
    expect(link?.paymentMethods).toEqual(['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B']);
  });

  it('422 for a merchant without a SaaS contract, storing nothing', async () => {
    const before = await counts();
    const { status, body } = await create(request, aMerchant({ saasContract: false }));
    expect(status).toBe(422);
    expect(body.code).toBe('SAAS_CONTRACT_REQUIRED');
    expect(await counts()).toEqual(before);
  });

  const badRequests: Array<[string, unknown, string[]]> = [
    ['signedInUser missing', { ...request, signedInUser: undefined }, ['signedInUser']],
    [
      'an e-mail without @',
      { ...request, signedInUser: { ...request.signedInUser, email: 'ana.example.com' } },
      ['signedInUser.email'],
    ],
    [
      'an e-mail without domain',
      { ...request, signedInUser: { ...request.signedInUser, email: 'ana@' } },
      ['signedInUser.email'],
    ],
    [
      'an e-mail of the wrong type',
      { ...request, signedInUser: { ...request.signedInUser, email: 7 } },
      ['signedInUser.email'],
    ],
    [
      'firstName missing',
      { ...request, signedInUser: { email: 'ana@example.com', lastName: 'G' } },
      ['signedInUser.firstName'],
    ],
    [
      'lastName empty',
      { ...request, signedInUser: { ...request.signedInUser, lastName: '' } },
      ['signedInUser.lastName'],
    ],
    ['label missing (rules of 2.1 apply)', { ...request, label: undefined }, ['label']],
    ['amount with three decimals', { ...request, amount: 1.005 }, ['amount']],
    [
      'STATIC without its fields',
      { ...request, singlePayment: false, recurrentPayment: true },
      ['installmentAmount', 'totalPeriods', 'dayOfMonth', 'monthForSecondInstallment'],
    ],
    [
      'dayOfMonth 31',
      {
        ...request,
        recurrentPayment: true,
        installmentAmount: 10,
        totalPeriods: 3,
        dayOfMonth: 31,
        monthForSecondInstallment: 1,
      },
      ['dayOfMonth'],
    ],
  ];

  it.each(badRequests)('400 for %s, naming %j, storing nothing', async (_case, body, paths) => {
    const before = await counts();
    const { status, body: problem } = await create(body);
    expect(status).toBe(400);
    expect((problem as unknown as Problem).errors.map((e) => e.path).sort()).toEqual([...paths].sort());
    expect(await counts()).toEqual(before);
  });

  it('422 for a 2.1 merchant rule (noLoginRequired not enabled), storing nothing', async () => {
    const before = await counts();
    const { status, body } = await create({ ...request, noLoginRequired: true, documentNumber: '123' });
    expect(status).toBe(422);
    expect((body as unknown as Problem).errors.map((e) => e.path)).toEqual(['noLoginRequired']);
    expect(await counts()).toEqual(before);
  });
});

describe('the login code in publicPayUrl', () => {
  it('is random, not the user id, and stored only as its hash, with an expiry', async () => {
    const { body } = await create(request);
    const code = loginCodeOf(body.publicPayUrl);
    expect(code).toMatch(/^[\w-]{43}$/);
    // The URL carries the code and nothing else: no user id, which would let anyone log in as any user.
    expect(code).not.toBe(String(body.userId));
    expect([...new URL(String(body.publicPayUrl)).searchParams.keys()]).toEqual(['login']);
    expect(new URL(String(body.publicPayUrl)).pathname).toBe(`/pay/${body.slug}`);
    const rows = await svc.database.db
      .select()
      .from(loginCodes)
      .where(eq(loginCodes.linkId, Number(body.id)));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.codeHash).toBe(createHash('sha256').update(code).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(code);
    // The link lives 48 h, the code at most 24 h.
    expect(rows[0]?.expiresAt.toISOString()).toBe('2026-11-23T12:00:00.000Z');
  });

  it('expires with the link when the link is shorter-lived than a day', async () => {
    const { body } = await create({ ...request, payWaitHours: 2 });
    const [row] = await svc.database.db
      .select()
      .from(loginCodes)
      .where(eq(loginCodes.linkId, Number(body.id)));
    expect(row?.expiresAt.toISOString()).toBe('2026-11-22T14:00:00.000Z');
  });

  it('grants that user on that link exactly once', async () => {
    const { body } = await create(request);
    const code = loginCodeOf(body.publicPayUrl);
    expect(await consume(body.slug, code)).toEqual({
      merchantId: saas.merchantId,
      customerId: body.userId,
      linkId: body.id,
    });
    expect(await consume(body.slug, code)).toBeUndefined();
  });

  it('grants nothing for another link, an unknown code or an empty one', async () => {
    const first = await create(request);
    const second = await create(request);
    expect(await consume(second.body.slug, loginCodeOf(first.body.publicPayUrl))).toBeUndefined();
    expect(await consume(first.body.slug, 'not-a-code')).toBeUndefined();
    expect(await consume(first.body.slug, '')).toBeUndefined();
    // Those tries did not use it up.
    expect(await consume(first.body.slug, loginCodeOf(first.body.publicPayUrl))).toBeDefined();
  });

  it('grants nothing once expired', async () => {
    const { body } = await create(request);
    clock.advance(24 * 3_600_000);
    try {
      expect(await consume(body.slug, loginCodeOf(body.publicPayUrl))).toBeUndefined();
    } finally {
      clock.set(START);
    }
  });

  it('of two concurrent uses, one wins', async () => {
    const { body } = await create(request);
    const code = loginCodeOf(body.publicPayUrl);
    const grants = await Promise.all([
      consume(body.slug, code),
      consume(body.slug, code),
      consume(body.slug, code),
    ]);
    expect(grants.filter(Boolean)).toHaveLength(1);
  });
});
