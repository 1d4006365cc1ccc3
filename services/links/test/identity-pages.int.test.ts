import type { MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aOneOffLink,
  aSignedInUserRequest,
  type ServiceUnderTest,
  startService,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, customerSessions } from '../src/adapters/postgres/schema';
import { DOCUMENT_FAILURE_WINDOW_MS, DOCUMENT_FAILURES_PER_LINK } from '../src/domain/customer';
import { CUSTOMER_SESSION_LIFETIME_MS } from '../src/domain/customer-session';
import { CODE_REQUESTS_PER_EMAIL } from '../src/domain/email-login';
import { linksService } from '../src/service';

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let svc: ServiceUnderTest;

/** processor-gateway's vault as the panel sees it: a fake of its two internal routes, per customer. */
const vault = new Map<number, Array<Record<string, unknown>>>();
const vaultCalls: string[] = [];

beforeAll(async () => {
  svc = await startService(linksService, {
    clock,
    env: { DEV_MAILBOX: 'true' },
    upstreams: {
      'processor-gateway': async (request) => {
        const url = new URL(request.url);
        vaultCalls.push(`${request.method} ${url.pathname}`);
        const match = /^\/internal\/customers\/(\d+)\/payment-methods(?:\/([\w-]+))?$/.exec(url.pathname);
        if (!match || !request.headers.get('x-merchant-signature'))
          return new Response(null, { status: 401 });
        const cards = vault.get(Number(match[1])) ?? [];
        if (request.method === 'GET') return Response.json({ paymentMethods: cards });
        const index = cards.findIndex((card) => card.paymentMethodId === match[2]);
        if (index < 0) return Response.json({ code: 'NOT_FOUND' }, { status: 404 });
        cards.splice(index, 1);
        return new Response(null, { status: 204 });
      },
    },
  });
});
afterAll(async () => svc?.stop());

const gym = aMerchant({ name: 'Gym & Co', saasContract: true, noLoginEnabled: true });

/** A browser: keeps the cookies links sets, sends them back. */
function browser() {
  const jar = new Map<string, string>();
  const remember = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  return {
    jar,
    async get(path: string) {
      const response = remember(await svc.request('GET', path, { headers: { cookie: cookieHeader() } }));
      return { response, html: await response.text() };
    },
    async post(path: string, fields: Record<string, string>) {
      const response = remember(
        await svc.request('POST', path, {
          rawBody: new URLSearchParams(fields).toString(),
          headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
      return { response, html: await response.text() };
    },
  };
}

const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const hasTestId = (html: string, id: string) => html.includes(`data-testid="${id}"`);

async function createLink(body: Record<string, unknown>, merchant: MerchantContext = gym) {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: number; slug: string };
}

async function mailbox() {
  const response = await svc.request('GET', '/internal/dev/mailbox');
  return (await response.json()) as Array<{ to: string; subject: string; text: string; sentAt: string }>;
}

async function codeMailedTo(email: string): Promise<string> {
  const mail = (await mailbox()).find((message) => message.to === email);
  const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
  if (!code) throw new Error(`no code mailed to ${email}`);
  return code;
}

/** Signs a new browser in by e-mail code on that link's login page. */
async function logIn(slug: string, email: string) {
  const customer = browser();
  const form = await customer.get(`/pay/${slug}/login`);
  const sent = await customer.post(`/pay/${slug}/login?lang=es`, {
    _csrf: csrfIn(form.html),
    step: 'send',
    email,
  });
  const verified = await customer.post(`/pay/${slug}/login?lang=es`, {
    _csrf: csrfIn(sent.html),
    step: 'verify',
    email,
    code: await codeMailedTo(email),
  });
  return { customer, verified };
}

describe('login by e-mail code (/pay/{slug}/login)', () => {
  it('e-mail, then the mailed code: the session cookie, and back to the link, where the customer may pay', async () => {
    const { slug } = await createLink(aOneOffLink());
    const customer = browser();
    const before = await customer.get(`/pay/${slug}`);
    expect(before.html).toContain(`href="/pay/${slug}/login?lang=es"`);

    const form = await customer.get(`/pay/${slug}/login`);
    expect(form.response.status).toBe(200);
    expect(hasTestId(form.html, 'login-email')).toBe(true);
    expect(hasTestId(form.html, 'login-send')).toBe(true);
    expect(form.html).toContain('Gym &amp; Co');

    const sent = await customer.post(`/pay/${slug}/login?lang=es`, {
      _csrf: csrfIn(form.html),
      step: 'send',
      email: 'ana@example.com',
    });
    expect(sent.response.status).toBe(200);
    expect(hasTestId(sent.html, 'login-code')).toBe(true);
    expect(hasTestId(sent.html, 'login-verify')).toBe(true);
    const [mail] = await mailbox();
    expect(mail).toMatchObject({ to: 'ana@example.com', subject: 'Tu código para pagar a Gym & Co' });
    expect(mail?.text).toMatch(/\b\d{6}\b/);

    const verified = await customer.post(`/pay/${slug}/login?lang=es`, {
      _csrf: csrfIn(sent.html),
      step: 'verify',
      email: 'ana@example.com',
      code: await codeMailedTo('ana@example.com'),
    });
    expect(verified.response.status).toBe(303);
    expect(verified.response.headers.get('location')).toBe(`/pay/${slug}?lang=es`);
    const cookie = verified.response.headers.getSetCookie().find((c) => c.startsWith('payrail_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);

    const after = await customer.get(`/pay/${slug}`);
    expect(hasTestId(after.html, 'pay-form')).toBe(true);
    expect(after.html).not.toContain(`/pay/${slug}/login`);
  });

  it('the mail and the page speak English with ?lang=en', async () => {
    const { slug } = await createLink(aOneOffLink());
    const customer = browser();
    const form = await customer.get(`/pay/${slug}/login?lang=en`);
    expect(form.html).toContain('Sign in with your e-mail');
    await customer.post(`/pay/${slug}/login?lang=en`, {
      _csrf: csrfIn(form.html),
      step: 'send',
      email: 'en@example.com',
    });
    expect((await mailbox())[0]?.subject).toBe('Your code to pay Gym & Co');
  });

  it('a wrong code says how many tries are left; after 5 the code is dead and a new one is asked for', async () => {
    const { slug } = await createLink(aOneOffLink());
    const customer = browser();
    const form = await customer.get(`/pay/${slug}/login`);
    const csrf = csrfIn(form.html);
    await customer.post(`/pay/${slug}/login?lang=en`, {
      _csrf: csrf,
      step: 'send',
      email: 'tries@example.com',
    });
    const code = await codeMailedTo('tries@example.com');
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const verify = (typed: string) =>
      customer.post(`/pay/${slug}/login?lang=en`, {
        _csrf: csrf,
        step: 'verify',
        email: 'tries@example.com',
        code: typed,
      });
    const first = await verify(wrong);
    expect(first.response.status).toBe(400);
    expect(first.html).toContain('You have 4 tries left');
    expect(hasTestId(first.html, 'login-code')).toBe(true);
    for (let i = 0; i < 4; i++) await verify(wrong);
    const dead = await verify(code);
    expect(dead.response.status).toBe(400);
    expect(dead.html).toContain('Ask for a new one');
    expect(hasTestId(dead.html, 'login-email')).toBe(true);
    expect(customer.jar.has('payrail_session')).toBe(false);
  });

  it(`refuses the ${CODE_REQUESTS_PER_EMAIL + 1}th code in an hour with 429 and Retry-After`, async () => {
    const { slug } = await createLink(aOneOffLink());
    const customer = browser();
    const csrf = csrfIn((await customer.get(`/pay/${slug}/login`)).html);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i <= CODE_REQUESTS_PER_EMAIL; i++) {
      const sent = await customer.post(`/pay/${slug}/login`, {
        _csrf: csrf,
        step: 'send',
        email: 'many@example.com',
      });
      statuses.push(sent.response.status);
      last = sent.response;
    }
    expect(statuses).toEqual([...Array(CODE_REQUESTS_PER_EMAIL).fill(200), 429]);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await mailbox()).filter((mail) => mail.to === 'many@example.com')).toHaveLength(
      CODE_REQUESTS_PER_EMAIL,
    );
  });

  it("a form posted without this browser's CSRF token is refused and sends nothing", async () => {
    const { slug } = await createLink(aOneOffLink());
    const before = (await mailbox()).length;
    const forged = await browser().post(`/pay/${slug}/login`, { step: 'send', email: 'victim@example.com' });
    expect(forged.response.status).toBe(403);
    expect((await mailbox()).length).toBe(before);
  });

  it("a session at one merchant is nobody on another merchant's link", async () => {
    const { slug } = await createLink(aOneOffLink());
    const other = await createLink(aOneOffLink(), aMerchant({ name: 'Other shop' }));
    const { customer } = await logIn(slug, 'two-shops@example.com');
    const there = await customer.get(`/pay/${other.slug}`);
    expect(there.html).toContain(`/pay/${other.slug}/login`);
    expect(hasTestId(there.html, 'pay-form')).toBe(false);
  });

  it('an unknown link has no login page', async () => {
    expect((await browser().get('/pay/no-such-link/login')).response.status).toBe(404);
  });
});

describe('signed-in-user link (publicPayUrl with ?login=)', () => {
  async function signedInUserLink() {
    const response = await svc.request('POST', '/api/ext-app/payrequests/signed-in-user', {
      body: aSignedInUserRequest({
        signedInUser: { email: `user-${Math.random()}@example.com`, firstName: 'Una', lastName: 'User' },
      }),
      merchant: gym,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { publicPayUrl: string; slug: string; userId: number };
    const url = new URL(body.publicPayUrl);
    return { path: `${url.pathname}${url.search}`, slug: body.slug, userId: body.userId };
  }

  it("opening it starts that user's session and lands on the clean link", async () => {
    const link = await signedInUserLink();
    const customer = browser();
    const opened = await customer.get(link.path);
    expect(opened.response.status).toBe(303);
    expect(opened.response.headers.get('location')).toBe(`/pay/${link.slug}?lang=es`);
    expect(customer.jar.has('payrail_session')).toBe(true);
    const page = await customer.get(`/pay/${link.slug}`);
    expect(hasTestId(page.html, 'pay-form')).toBe(true);
    const [session] = await svc.database.db
      .select()
      .from(customerSessions)
      .where(eq(customerSessions.customerId, link.userId));
    expect(session?.merchantId).toBe(gym.merchantId);
  });

  it('the credential works once: another browser opening the same URL is asked to log in', async () => {
    const link = await signedInUserLink();
    await browser().get(link.path);
    const second = await browser().get(link.path);
    expect(second.response.status).toBe(303);
    expect(second.response.headers.get('location')).toBe(`/pay/${link.slug}/login?lang=es&credential=used`);
    const login = await browser().get(`/pay/${link.slug}/login?lang=en&credential=used`);
    expect(login.html).toContain('The sign-in link was already used or has expired');
  });

  it('opened again in the same browser: the session still open; after it expired, the login', async () => {
    const link = await signedInUserLink();
    const customer = browser();
    await customer.get(link.path);
    const again = await customer.get(link.path);
    expect(again.response.headers.get('location')).toBe(`/pay/${link.slug}?lang=es`);
    clock.advance(CUSTOMER_SESSION_LIFETIME_MS);
    const expired = await customer.get(link.path);
    expect(expired.response.headers.get('location')).toBe(`/pay/${link.slug}/login?lang=es&credential=used`);
  });
});

describe('noLoginRequired links (/pay/{slug}/identify)', () => {
  const noLogin = (documentNumber: string) => aOneOffLink({ noLoginRequired: true, documentNumber });

  it('the right document number (with or without dots) is the customer with that number at the merchant', async () => {
    const { slug } = await createLink(noLogin('4.123.456'));
    const customer = browser();
    const page = await customer.get(`/pay/${slug}`);
    expect(page.html).toContain(`/pay/${slug}/identify`);
    const form = await customer.get(`/pay/${slug}/identify`);
    expect(hasTestId(form.html, 'nologin-document')).toBe(true);
    expect(hasTestId(form.html, 'nologin-continue')).toBe(true);

    const wrong = await customer.post(`/pay/${slug}/identify`, {
      _csrf: csrfIn(form.html),
      documentNumber: '4123457',
    });
    expect(wrong.response.status).toBe(400);
    expect(customer.jar.has('payrail_session')).toBe(false);

    const right = await customer.post(`/pay/${slug}/identify`, {
      _csrf: csrfIn(form.html),
      documentNumber: '4123456',
    });
    expect(right.response.status).toBe(303);
    expect(hasTestId((await customer.get(`/pay/${slug}`)).html, 'pay-form')).toBe(true);

    // A second link for the same document number: the same customer.
    const second = await createLink(noLogin('4123456'));
    const other = browser();
    const otherForm = await other.get(`/pay/${second.slug}/identify`);
    await other.post(`/pay/${second.slug}/identify`, {
      _csrf: csrfIn(otherForm.html),
      documentNumber: '4.123.456',
    });
    const rows = await svc.database.db
      .select()
      .from(customers)
      .where(eq(customers.merchantId, gym.merchantId));
    expect(rows.filter((row) => row.documentNumber === '4123456')).toHaveLength(1);
    const sessions = await svc.database.db.select().from(customerSessions);
    const ofThatCustomer = sessions.filter(
      (s) => s.customerId === rows.find((r) => r.documentNumber === '4123456')?.id,
    );
    expect(ofThatCustomer).toHaveLength(2);
  });

  it(`after ${DOCUMENT_FAILURES_PER_LINK} wrong numbers in an hour the link refuses every try, the right one too (429)`, async () => {
    const { slug } = await createLink(noLogin('80012345-6'));
    const customer = browser();
    const csrf = csrfIn((await customer.get(`/pay/${slug}/identify?lang=en`)).html);
    const statuses: number[] = [];
    for (let i = 0; i < DOCUMENT_FAILURES_PER_LINK; i++) {
      statuses.push(
        (await customer.post(`/pay/${slug}/identify?lang=en`, { _csrf: csrf, documentNumber: `${i}` }))
          .response.status,
      );
    }
    expect(statuses).toEqual(Array(DOCUMENT_FAILURES_PER_LINK).fill(400));
    const right = await customer.post(`/pay/${slug}/identify?lang=en`, {
      _csrf: csrf,
      documentNumber: '800123456',
    });
    expect(right.response.status).toBe(429);
    expect(Number(right.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.html).toContain('Too many wrong numbers');
    expect(customer.jar.has('payrail_session')).toBe(false);

    clock.advance(DOCUMENT_FAILURE_WINDOW_MS);
    const later = await customer.post(`/pay/${slug}/identify?lang=en`, {
      _csrf: csrf,
      documentNumber: '800123456',
    });
    expect(later.response.status).toBe(303);
  });

  it('a link that asks for a login sends /identify to /login', async () => {
    const { slug } = await createLink(aOneOffLink());
    const answer = await browser().get(`/pay/${slug}/identify`);
    expect(answer.response.status).toBe(303);
    expect(answer.response.headers.get('location')).toBe(`/pay/${slug}/login?lang=es`);
  });
});

describe('saved cards panel (/pay/account/cards) and logout', () => {
  const card = (id: string, last4: string, processor: string) => ({
    paymentMethodId: id,
    customerId: 0,
    processor,
    maskedNumber: `************${last4}`,
    last4,
    brand: 'Visa',
    expiryMonth: 12,
    expiryYear: 2028,
    blocked: false,
    createdAt: '2026-11-22T12:00:00.000Z',
  });

  it("lists every card of both processors, each removable with this browser's CSRF token", async () => {
    const { slug } = await createLink(aOneOffLink());
    const { customer } = await logIn(slug, 'cards@example.com');
    const [row] = await svc.database.db
      .select()
      .from(customers)
      .where(eq(customers.emailKey, 'cards@example.com'));
    const customerId = Number(row?.id);
    const a = '11111111-1111-4111-8111-111111111111';
    const b = '22222222-2222-4222-8222-222222222222';
    vault.set(customerId, [card(a, '4242', 'PARAGUAY.PROCESSOR_A'), card(b, '5555', 'PARAGUAY.PROCESSOR_B')]);

    const panel = await customer.get('/pay/account/cards');
    expect(panel.response.status).toBe(200);
    expect(
      [...panel.html.matchAll(/data-testid="account-card" data-last4="(\d{4})"/g)].map((m) => m[1]),
    ).toEqual(['4242', '5555']);
    expect(panel.html.match(/data-testid="account-card-remove"/g)).toHaveLength(2);
    expect(panel.html).toContain('cards@example.com');
    expect(panel.html).not.toContain('************');

    const forged = await customer.post(`/pay/account/cards/${a}/remove`, { _csrf: 'forged' });
    expect(forged.response.status).toBe(403);
    expect(vault.get(customerId)).toHaveLength(2);

    const removed = await customer.post(`/pay/account/cards/${a}/remove`, { _csrf: csrfIn(panel.html) });
    expect(removed.response.status).toBe(303);
    expect(vaultCalls).toContain(`DELETE /internal/customers/${customerId}/payment-methods/${a}`);
    const after = await customer.get('/pay/account/cards');
    expect(
      [...after.html.matchAll(/data-testid="account-card" data-last4="(\d{4})"/g)].map((m) => m[1]),
    ).toEqual(['5555']);
  });

  it('nobody signed in: no cards, and nothing asked of the vault', async () => {
    const calls = vaultCalls.length;
    const panel = await browser().get('/pay/account/cards');
    expect(panel.response.status).toBe(403);
    expect(panel.html).not.toContain('account-card');
    expect(vaultCalls.length).toBe(calls);
  });

  it('logout ends the session: the link asks for a login again', async () => {
    const { slug } = await createLink(aOneOffLink());
    const { customer } = await logIn(slug, 'bye@example.com');
    const panel = await customer.get('/pay/account/cards');
    const out = await customer.post('/pay/account/logout', { _csrf: csrfIn(panel.html) });
    expect(out.response.status).toBe(200);
    expect(customer.jar.has('payrail_session')).toBe(false);
    expect((await customer.get(`/pay/${slug}`)).html).toContain(`/pay/${slug}/login`);
  });
});
