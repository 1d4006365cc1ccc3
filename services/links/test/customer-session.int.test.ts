import type { MerchantContext } from '@payrail/contracts';
import { aMerchant, aOneOffLink, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CustomerVariables,
  customerSession,
  SESSION_COOKIE,
  setSessionCookie,
} from '../src/adapters/http/pay/session';
import { postgresCustomerRepository } from '../src/adapters/postgres/customer-repository';
import { postgresCustomerSessionRepository } from '../src/adapters/postgres/customer-session-repository';
import { postgresPaymentLinkRepository } from '../src/adapters/postgres/payment-link-repository';
import { customerSessions } from '../src/adapters/postgres/schema';
import { endCustomerSession, startCustomerSession } from '../src/application/customer-sessions';
import { CUSTOMER_SESSION_LIFETIME_MS } from '../src/domain/customer-session';
import { linksService } from '../src/service';

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, { clock });
});
afterAll(async () => svc?.stop());

const deps = () => ({ sessions: postgresCustomerSessionRepository(svc.database.db), clock });

/** A page app with the middleware, as the pay pages use it: each page answers who `c.var.customer` is. */
function pages(secureCookies = false) {
  const app = new Hono<{ Variables: CustomerVariables }>();
  app.use(
    '/pay/*',
    customerSession({
      ...deps(),
      secureCookies,
      merchantOfSlug: async (slug) =>
        (await postgresPaymentLinkRepository(svc.database.db).findBySlug(slug))?.merchantId,
    }),
  );
  app.post('/pay/test-login/:merchantId/:customerId', async (c) => {
    const session = await startCustomerSession(deps(), {
      merchantId: c.req.param('merchantId'),
      customerId: Number(c.req.param('customerId')),
    });
    setSessionCookie(c, session, secureCookies, clock.now());
    return c.body(null, 204);
  });
  app.get('/pay/account/cards', (c) => c.json({ customer: c.var.customer }));
  app.get('/pay/:slug', (c) => c.json({ customer: c.var.customer }));
  return app;
}

async function linkOf(merchant: MerchantContext): Promise<string> {
  const response = await svc.request('POST', '/api/saleitems/add', { body: aOneOffLink(), merchant });
  expect(response.status).toBe(200);
  return String(((await response.json()) as { slug: string }).slug);
}

async function aCustomer(merchantId: string, documentNumber = `doc-${Math.random()}`) {
  return postgresCustomerRepository(svc.database.db).findOrCreateByDocument({
    merchantId,
    documentNumber,
    now: clock.now(),
  });
}

async function signIn(app: Hono<{ Variables: CustomerVariables }>, merchantId: string, customerId: number) {
  const response = await app.request(`/pay/test-login/${merchantId}/${customerId}`, { method: 'POST' });
  const cookie = response.headers.get('set-cookie') ?? '';
  const token = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(cookie)?.[1] ?? '';
  return { cookie, token, header: { cookie: `${SESSION_COOKIE}=${token}` } };
}

async function whoIs(
  app: Hono<{ Variables: CustomerVariables }>,
  path: string,
  headers: Record<string, string>,
) {
  const response = await app.request(path, { headers });
  return ((await response.json()) as { customer: unknown }).customer;
}

describe('customer sessions', () => {
  it('the cookie is HttpOnly, SameSite=Lax, for /pay only, lasting the session; not Secure on http', async () => {
    const merchant = aMerchant();
    const { cookie, token } = await signIn(
      pages(false),
      merchant.merchantId,
      await aCustomer(merchant.merchantId),
    );
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/pay');
    expect(cookie).toContain(`Max-Age=${CUSTOMER_SESSION_LIFETIME_MS / 1000}`);
    expect(cookie).not.toContain('Secure');
  });

  it('the cookie is Secure when the public base URL is https', async () => {
    const merchant = aMerchant();
    const { cookie } = await signIn(pages(true), merchant.merchantId, await aCustomer(merchant.merchantId));
    expect(cookie).toContain('Secure');
  });

  it("on a link's page the session is its customer; the token is kept only as a hash", async () => {
    const merchant = aMerchant();
    const slug = await linkOf(merchant);
    const customerId = await aCustomer(merchant.merchantId);
    const app = pages();
    const { token, header } = await signIn(app, merchant.merchantId, customerId);
    expect(await whoIs(app, `/pay/${slug}`, header)).toEqual({ merchantId: merchant.merchantId, customerId });
    expect(await whoIs(app, '/pay/account/cards', header)).toEqual({
      merchantId: merchant.merchantId,
      customerId,
    });
    const stored = await svc.database.db.select().from(customerSessions);
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("another merchant's session is nobody on this merchant's link", async () => {
    const mine = aMerchant();
    const theirs = aMerchant();
    const theirSlug = await linkOf(theirs);
    const app = pages();
    const { header } = await signIn(app, mine.merchantId, await aCustomer(mine.merchantId));
    expect(await whoIs(app, `/pay/${theirSlug}`, header)).toBeNull();
    expect(await whoIs(app, '/pay/no-such-link', header)).toBeNull();
  });

  it('no cookie, a made-up token, an expired or an ended session: nobody', async () => {
    const merchant = aMerchant();
    const slug = await linkOf(merchant);
    const app = pages();
    expect(await whoIs(app, `/pay/${slug}`, {})).toBeNull();
    expect(await whoIs(app, `/pay/${slug}`, { cookie: `${SESSION_COOKIE}=${'A'.repeat(43)}` })).toBeNull();

    const expiring = await signIn(app, merchant.merchantId, await aCustomer(merchant.merchantId));
    clock.advance(CUSTOMER_SESSION_LIFETIME_MS - 1000);
    expect(await whoIs(app, `/pay/${slug}`, expiring.header)).not.toBeNull();
    clock.advance(1000);
    expect(await whoIs(app, `/pay/${slug}`, expiring.header)).toBeNull();

    const ended = await signIn(app, merchant.merchantId, await aCustomer(merchant.merchantId));
    await endCustomerSession(deps(), ended.token);
    expect(await whoIs(app, `/pay/${slug}`, ended.header)).toBeNull();
  });

  it('a document number is one customer per merchant', async () => {
    const merchant = aMerchant();
    const [a, b] = await Promise.all([
      aCustomer(merchant.merchantId, '4.123.456'),
      aCustomer(merchant.merchantId, '4.123.456'),
    ]);
    expect(a).toBe(b);
    expect(await aCustomer(aMerchant().merchantId, '4.123.456')).not.toBe(a);
  });

  it('starting a session stores when it ends', async () => {
    const merchant = aMerchant();
    const session = await startCustomerSession(deps(), {
      merchantId: merchant.merchantId,
      customerId: await aCustomer(merchant.merchantId),
    });
    expect(session.expiresAt.getTime() - clock.now().getTime()).toBe(CUSTOMER_SESSION_LIFETIME_MS);
  });
});
