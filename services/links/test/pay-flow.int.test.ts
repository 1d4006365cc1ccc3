import { createEvent, type MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aOneOffLink,
  aStaticLink,
  type ServiceUnderTest,
  startService,
  testClock,
  waitFor,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerVariables } from '../src/adapters/http/pay/session';
import { postgresLinkPaymentRepository } from '../src/adapters/postgres/link-payment-repository';
import { customers, linkPayments, outbox, paymentLinks } from '../src/adapters/postgres/schema';
import { linkExpiredEvent } from '../src/application/events';
import { createLinksService } from '../src/service';
import { processorGatewayStub } from './support/processor-gateway-stub';
import { subscriptionsStub } from './support/subscriptions-stub';

/** The test's customer session: `x-test-customer: <merchantId>:<customerId>` (pay-identity owns the real one). */
const testSession: MiddlewareHandler<{ Variables: CustomerVariables }> = async (c, next) => {
  const [merchantId, customerId] = (c.req.header('x-test-customer') ?? '').split(':');
  c.set('customer', merchantId && customerId ? { merchantId, customerId: Number(customerId) } : null);
  await next();
};

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
const stub = processorGatewayStub();
// subscriptions has made no subscription: the page shows the links' own terms and offers them.
const subscriptions = subscriptionsStub();
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(createLinksService({ customerSession: testSession }), {
    clock,
    env: { PROCESSOR_SANDBOX_URL: 'http://sandbox.test:3005', LINK_EXPIRY_SWEEP_MS: '0' },
    upstreams: {
      'processor-gateway': (request) => stub.handle(request),
      subscriptions: (request) => subscriptions.handle(request),
    },
  });
});
afterAll(async () => svc?.stop());

const shop = aMerchant({
  name: 'Shop',
  callbackUrl: 'https://shop.example.com/payments/callback',
  processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
});
let nextCustomer = 1000;

async function createLink(body: Record<string, unknown>, merchant: MerchantContext = shop) {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: number; slug: string };
}

/** A browser: its cookies, and the customer it is signed in as. */
function browser(merchant: MerchantContext = shop, customerId = ++nextCustomer) {
  const jar = new Map<string, string>();
  const headers = () => ({
    'x-test-customer': `${merchant.merchantId}:${customerId}`,
    cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
  });
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const [name = '', value = ''] = pair.split('=');
      jar.set(name, value);
    }
    return response;
  };
  return {
    customerId,
    async get(path: string) {
      return keep(await svc.request('GET', path, { headers: headers() }));
    },
    async post(path: string, form: Record<string, string>) {
      return keep(
        await svc.request('POST', path, {
          rawBody: new URLSearchParams(form).toString(),
          headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
    },
    /** Opens the page and reads the form's CSRF token. */
    async open(slug: string) {
      const response = await this.get(`/pay/${slug}`);
      const html = await response.text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      return { html, csrf };
    },
  };
}

async function linkRow(id: number) {
  const [row] = await svc.database.db.select().from(paymentLinks).where(eq(paymentLinks.id, id));
  return row!;
}

async function eventsOf(type: string, linkId: number) {
  const rows = await svc.database.db.select().from(outbox).where(eq(outbox.type, type));
  return rows
    .map((row) => JSON.parse(row.body) as { data: Record<string, unknown> & { linkId: number } })
    .filter((event) => event.data.linkId === linkId)
    .map((event) => event.data);
}

describe('paying a link on the pay page', () => {
  it('a signed-in customer sees the processors of link ∩ merchant and their saved cards', async () => {
    const onlyB = await createLink(aOneOffLink({ paymentMethods: ['PARAGUAY.PROCESSOR_B'] }));
    const customer = browser();
    stub.addCard({
      customerId: customer.customerId,
      processor: 'PARAGUAY.PROCESSOR_B',
      last4: '4444',
      brand: 'Mastercard',
      expiryMonth: 3,
      expiryYear: 2029,
      merchantId: shop.merchantId,
    });
    // A card at a processor this link does not take is not offered.
    stub.addCard({
      customerId: customer.customerId,
      processor: 'PARAGUAY.PROCESSOR_A',
      last4: '4242',
      brand: 'Visa',
      expiryMonth: 12,
      expiryYear: 2028,
      merchantId: shop.merchantId,
    });
    const { html, csrf } = await customer.open(onlyB.slug);
    expect(csrf).not.toBe('');
    expect(html).toContain('data-testid="pay-processor-PROCESSOR_B"');
    expect(html).not.toContain('data-testid="pay-processor-PROCESSOR_A"');
    expect(html).toMatch(/data-testid="pay-saved-card" data-last4="4444">Mastercard •••• 4444, vence 03\/29/);
    expect(html).not.toContain('data-last4="4242"');
    expect(html).toContain('data-testid="pay-option-single"');
    expect(html).not.toContain('data-testid="pay-option-subscription"');
    expect(html).toContain('data-testid="pay-save-card"');
    expect(html).toContain('data-testid="pay-submit"');
    // A signed-in customer reaches the saved-cards panel from the link.
    expect(html).toMatch(
      /<a href="\/pay\/account\/cards\?lang=es" data-testid="pay-account-cards">Mis tarjetas<\/a>/,
    );
  });

  it('new card on PROCESSOR_A: its form in an iframe, then paid once with link.paid filled, then the receipt', async () => {
    const link = await createLink(aOneOffLink({ label: 'Cuota', amount: 150000 }));
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    const posted = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
      newCard: 'yes',
    });
    expect(posted.status).toBe(200);
    const html = await posted.text();
    const charge = stub.chargeOfKey(`link:${link.id}:payment:1`)!;
    expect(charge.amount).toBe('150000.00');
    // The processor's form, told the page's language and amount (display hints the sandbox reads).
    expect(html).toContain(
      `<iframe src="http://sandbox.test:3005/checkout/new?process_id=${charge.processId}&amp;lang=es&amp;amount=150000.00&amp;currency=PYG"`,
    );
    expect(html).toMatch(
      /<a href="[^"]+" data-testid="pay-continue">¿Ya pagaste y esta página no cambió\? Ver cómo quedó tu pago<\/a>/,
    );
    expect(posted.headers.get('content-security-policy')).toContain('frame-src http://sandbox.test:3005;');

    // Before the processor confirms, the return page waits.
    const early = await customer.get(`/pay/${link.slug}/return/1?status=payment_success`);
    expect(early.status).toBe(200);
    expect(await early.text()).toContain('data-testid="pay-waiting"');

    stub.settle(`link:${link.id}:payment:1`, 'succeeded');
    const back = await customer.get(`/pay/${link.slug}/return/1?status=payment_success`);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/pay/${link.slug}/receipt`);
    const row = await linkRow(link.id);
    expect(row.statusId).toBe(200);
    expect(row.paidChargeId).toBe(charge.chargeId);
    const paid = await eventsOf('link.paid', link.id);
    expect(paid).toEqual([
      expect.objectContaining({
        method: 'CARD',
        processor: 'PARAGUAY.PROCESSOR_A',
        chargeId: charge.chargeId,
        txId: charge.chargeId,
        customerId: customer.customerId,
        recurrent: false,
        amount: '150000.00',
        // What the processor knows the charge by, beside our charge id (the money movement).
        processorReference: `REF-link:${link.id}:payment:1`,
        authorizationCode: '654321',
        bankReference: null,
        bankTransfer: null,
      }),
    ]);
    // Coming back again changes nothing.
    await customer.get(`/pay/${link.slug}/return/1`);
    expect(await eventsOf('link.paid', link.id)).toHaveLength(1);

    const receipt = await customer.get(`/pay/${link.slug}/receipt`);
    const receiptHtml = await receipt.text();
    expect(receiptHtml).toContain('data-testid="pay-receipt"');
    expect(receiptHtml).toContain(charge.chargeId);
    const page = await (await customer.get(`/pay/${link.slug}`)).text();
    expect(page).toMatch(/data-status="paid"/);
    expect(page).not.toContain('pay-submit');
  });

  it('after payment the browser goes to redirectUrl exactly as given, its own query string kept', async () => {
    const redirectUrl = 'https://shop.example.com/thanks?order=77&from=pay&x=%20y';
    const link = await createLink(aOneOffLink({ redirectUrl }));
    const customer = browser();
    const opened = await customer.get(`/pay/${link.slug}`);
    // A one-click payment answers 303 to the merchant's page: the page's forms may lead there.
    expect(opened.headers.get('content-security-policy')).toMatch(
      /form-action 'self' http:\/\/sandbox\.test:3005 https:\/\/shop\.example\.com;/,
    );
    const { csrf } = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    stub.settle(`link:${link.id}:payment:1`, 'succeeded');
    const back = await customer.get(`/pay/${link.slug}/return/1`);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(redirectUrl);
  });

  it('a declined card makes the link 5 with the reason in the customer language; the next attempt pays it', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay?lang=en`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    stub.settle(`link:${link.id}:payment:1`, 'failed', { code: '51', category: 'soft' });
    const back = await customer.get(`/pay/${link.slug}/return/1?status=payment_fail`);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/pay/${link.slug}`);
    expect((await linkRow(link.id)).statusId).toBe(5);
    expect(await eventsOf('link.payment-failed', link.id)).toEqual([
      expect.objectContaining({
        declineCode: '51',
        category: 'soft',
        processor: 'PARAGUAY.PROCESSOR_A',
        processorReference: `REF-link:${link.id}:payment:1`,
      }),
    ]);
    // The language chosen with ?lang=en stays across the processor's form.
    const page = await (await customer.get(`/pay/${link.slug}`)).text();
    expect(page).toMatch(/data-status="rejected"/);
    expect(page).toContain('Your payment was declined: the card has insufficient funds');
    expect(page).toContain('data-testid="pay-submit"');

    const retry = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: retry.csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    expect(stub.chargeOfKey(`link:${link.id}:payment:2`)).toBeDefined();
    stub.settle(`link:${link.id}:payment:2`, 'succeeded');
    await customer.get(`/pay/${link.slug}/return/2`);
    expect((await linkRow(link.id)).statusId).toBe(200);
  });

  it('twenty clicks at once on a saved card make one charge and one link.paid', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const card = stub.addCard({
      customerId: customer.customerId,
      processor: 'PARAGUAY.PROCESSOR_A',
      last4: '1111',
      brand: 'Visa',
      expiryMonth: 1,
      expiryYear: 2030,
      merchantId: shop.merchantId,
    });
    const { html, csrf } = await customer.open(link.slug);
    expect(html).toContain('data-last4="1111"');
    const before = stub.calls.filter((call) => call === 'POST /payments/saved-card').length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        customer.post(`/pay/${link.slug}/pay`, {
          _csrf: csrf,
          option: 'single',
          savedCard: card.paymentMethodId,
        }),
      ),
    );
    // A click the service takes up after the charge settled goes back to the link's page (which shows it
    // paid), as a late click does; which clicks those are depends on timing.
    for (const answer of answers) {
      expect(answer.status).toBe(303);
      expect([`/pay/${link.slug}/receipt`, `/pay/${link.slug}`]).toContain(answer.headers.get('location'));
    }
    expect(answers.map((answer) => answer.headers.get('location'))).toContain(`/pay/${link.slug}/receipt`);
    const keys = [...stub.charges.keys()].filter((key) => key.startsWith(`link:${link.id}:`));
    expect(keys).toEqual([`link:${link.id}:payment:1`]);
    // Every click that charged (under the one key) went to the receipt; the others charged nothing.
    const receipts = answers.filter((answer) => answer.headers.get('location')?.endsWith('/receipt')).length;
    expect(stub.calls.filter((call) => call === 'POST /payments/saved-card').length - before).toBe(receipts);
    expect(await eventsOf('link.paid', link.id)).toHaveLength(1);
    const attempts = await svc.database.db
      .select()
      .from(linkPayments)
      .where(eq(linkPayments.linkId, link.id));
    expect(attempts).toHaveLength(1);
    // A click after it was paid charges nothing more.
    const late = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      savedCard: card.paymentMethodId,
    });
    expect(late.headers.get('location')).toBe(`/pay/${link.slug}`);
    expect(stub.charges.has(`link:${link.id}:payment:2`)).toBe(false);
  });

  it('two tabs opening the card form at once get the same form: one charge can be made', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    const tabs = await Promise.all(
      Array.from({ length: 8 }, () =>
        customer.post(`/pay/${link.slug}/pay`, {
          _csrf: csrf,
          option: 'single',
          processor: 'PARAGUAY.PROCESSOR_A',
        }),
      ),
    );
    const frames = new Set(
      await Promise.all(tabs.map(async (tab) => /<iframe src="([^"]+)"/.exec(await tab.text())?.[1])),
    );
    expect(frames.size).toBe(1);
    expect([...stub.charges.keys()].filter((key) => key.startsWith(`link:${link.id}:`))).toHaveLength(1);
  });

  it('a subscription on PROCESSOR_B: card registered by redirect, then charged; link.paid carries the card', async () => {
    const link = await createLink(
      aStaticLink({ amount: 150000, installmentAmount: 100000, totalPeriods: 3 }),
    );
    const customer = browser();
    const { html, csrf } = await customer.open(link.slug);
    expect(html).toContain('data-testid="pay-option-subscription"');
    const posted = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'subscription',
      processor: 'PARAGUAY.PROCESSOR_B',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toMatch(
      /^http:\/\/sandbox\.test:3005\/pagos\/[^?]+\?lang=es&amount=150000\.00&currency=PYG$/,
    );
    // The customer types the card on B's page; it sends the browser back to our return URL.
    const [registrationId, registration] = [...stub.registrations].at(-1)!;
    expect(registration.customerId).toBe(customer.customerId);
    registration.cardLast4 = '4242';
    const back = await customer.get(`/pay/${link.slug}/return/1?status=add_new_card_success`);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/pay/${link.slug}/receipt`);
    expect(registrationId).toBeTruthy();
    const saved = stub.cards.find(
      (card) => card.customerId === customer.customerId && card.last4 === '4242',
    )!;
    const paid = await eventsOf('link.paid', link.id);
    expect(paid).toEqual([
      expect.objectContaining({
        recurrent: true,
        processor: 'PARAGUAY.PROCESSOR_B',
        paymentMethodId: saved.paymentMethodId,
        customerId: customer.customerId,
      }),
    ]);
  });

  it('a card the processor refuses to register leaves the link 5 and payable', async () => {
    const link = await createLink(aStaticLink());
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'subscription',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const back = await customer.get(`/pay/${link.slug}/return/1?status=add_new_card_fail`);
    expect(back.headers.get('location')).toBe(`/pay/${link.slug}`);
    expect((await linkRow(link.id)).statusId).toBe(5);
    expect(stub.charges.has(`link:${link.id}:payment:1`)).toBe(false);
  });

  it('PROCESSOR_B sends the browser back with its hash only: it reaches the attempt it belongs to', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    const posted = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_B',
    });
    const hash = new URL(posted.headers.get('location')!).pathname.split('/pagos/')[1]!;
    const back = await customer.get(`/pay/processor-b/return?hash=${hash}`);
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/pay/${link.slug}/return/1`);
  });

  it('payment.succeeded pays the link even when the browser never comes back', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const charge = stub.settle(`link:${link.id}:payment:1`, 'succeeded');
    const event = createEvent(
      'payment.succeeded',
      {
        idempotencyKey: charge.idempotencyKey,
        chargeId: charge.chargeId,
        merchantId: shop.merchantId,
        processor: 'PARAGUAY.PROCESSOR_A',
        amount: charge.amount,
        currency: 'PYG',
        installmentId: null,
        attempt: null,
        linkId: link.id,
        paymentMethodId: null,
        paidAt: clock.now().toISOString(),
        authorizationCode: '123456',
        processorReference: '000000004711',
      },
      clock.now(),
    );
    // Delivered twice: the inbox makes the second a no-op.
    await svc.bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
    await svc.bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });
    await waitFor(async () => (await linkRow(link.id)).statusId === 200);
    await customer.get(`/pay/${link.slug}/return/1`);
    expect(await eventsOf('link.paid', link.id)).toEqual([
      expect.objectContaining({
        txId: charge.chargeId,
        processorReference: '000000004711',
        authorizationCode: '123456',
      }),
    ]);
  });

  it("a paid link's retrieval names its payment: the charge as paymentId, the card's brand and last 4, who paid", async () => {
    const link = await createLink(aOneOffLink());
    const [payer] = await svc.database.db
      .insert(customers)
      .values({
        merchantId: shop.merchantId,
        email: 'rosa@example.com',
        emailKey: 'rosa@example.com',
        firstName: 'Rosa',
        lastName: 'Benítez',
        status: 'active',
        createdAt: clock.now(),
      })
      .returning();
    const customer = browser(shop, payer!.id);
    const card = stub.addCard({
      customerId: customer.customerId,
      processor: 'PARAGUAY.PROCESSOR_B',
      last4: '0005',
      brand: 'Mastercard',
      expiryMonth: 3,
      expiryYear: 2031,
      merchantId: shop.merchantId,
    });
    const unpaid = await svc.request('GET', `/api/payrequests/${link.id}`, { merchant: shop });
    expect(await unpaid.json()).toMatchObject({
      paid: false,
      paymentId: null,
      paidAt: null,
      method: null,
      processor: null,
      cardBrand: null,
      cardLast4: null,
      paidBy: null,
    });
    const { csrf } = await customer.open(link.slug);
    const paid = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      savedCard: card.paymentMethodId,
    });
    expect(paid.headers.get('location')).toBe(`/pay/${link.slug}/receipt`);
    const charge = stub.charges.get(`link:${link.id}:payment:1`)!;
    const response = await svc.request('GET', `/api/payrequests/${link.id}`, { merchant: shop });
    const body = (await response.json()) as { paidAt: string };
    expect(body).toMatchObject({
      statusId: 200,
      paid: true,
      // The movement's id: the charge, the txId of its webhooks and of the ledger.
      paymentId: charge.chargeId,
      // 12:00 UTC in the merchant's zone, with its offset.
      paidAt: expect.stringMatching(/^2026-11-22T\d{2}:00:00[+-]\d{2}:\d{2}$/),
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_B',
      cardBrand: 'Mastercard',
      cardLast4: '0005',
      paidBy: {
        userId: payer!.id,
        email: 'rosa@example.com',
        documentNumber: null,
        firstName: 'Rosa',
        lastName: 'Benítez',
      },
    });
    expect(new Date(body.paidAt).toISOString()).toBe(clock.now().toISOString());
    // The list says the same.
    const list = await svc.request('GET', `/api/payrequests?status=paid`, { merchant: shop });
    const listed = ((await list.json()) as { payRequests: Array<{ id: number }> }).payRequests.find(
      (item) => item.id === link.id,
    );
    expect(listed).toEqual(body);
  });

  it('payment.succeeded names the card to a link its browser settled first without it; an older message without it changes nothing', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const charge = stub.settle(`link:${link.id}:payment:1`, 'succeeded');
    // The browser comes back first: a hosted form's card is not in the vault, nothing says its last 4.
    await customer.get(`/pay/${link.slug}/return/1`);
    expect(await linkRow(link.id)).toMatchObject({ statusId: 200, paidCardLast4: null });
    const succeeded = (card: { cardBrand?: string | null; cardLast4?: string | null }) => {
      const event = createEvent(
        'payment.succeeded',
        {
          idempotencyKey: charge.idempotencyKey,
          chargeId: charge.chargeId,
          merchantId: shop.merchantId,
          processor: 'PARAGUAY.PROCESSOR_A',
          amount: charge.amount,
          currency: 'PYG',
          installmentId: null,
          attempt: null,
          linkId: link.id,
          paymentMethodId: null,
          paidAt: clock.now().toISOString(),
          authorizationCode: '123456',
          processorReference: '000000004712',
          ...card,
        },
        clock.now(),
      );
      return { id: event.id, type: event.type, body: JSON.stringify(event) };
    };
    const older = succeeded({});
    // An older message: no card fields at all in its body.
    const olderBody = JSON.parse(older.body);
    delete olderBody.data.cardBrand;
    delete olderBody.data.cardLast4;
    await svc.bus.publish({ ...older, body: JSON.stringify(olderBody) });
    await svc.bus.publish(succeeded({ cardBrand: 'Visa', cardLast4: '4242' }));
    await waitFor(async () => (await linkRow(link.id)).paidCardLast4 !== null);
    const response = await svc.request('GET', `/api/payrequests/${link.id}`, { merchant: shop });
    expect(await response.json()).toMatchObject({
      paymentId: charge.chargeId,
      method: 'CARD',
      processor: 'PARAGUAY.PROCESSOR_A',
      cardBrand: 'Visa',
      cardLast4: '4242',
    });
    expect(await eventsOf('link.paid', link.id)).toHaveLength(1);
  });

  it('payment.failed rejects the link (5) once; a form left unused until it expired rejects nothing', async () => {
    const link = await createLink(aOneOffLink());
    const customer = browser();
    const failedEvent = (key: string, chargeId: string, declineCode: string) =>
      createEvent(
        'payment.failed',
        {
          idempotencyKey: key,
          chargeId,
          merchantId: shop.merchantId,
          processor: 'PARAGUAY.PROCESSOR_A',
          amount: '150000.00',
          currency: 'PYG',
          installmentId: null,
          attempt: null,
          linkId: link.id,
          paymentMethodId: null,
          failedAt: clock.now().toISOString(),
          retryable: true,
          declineCode,
          category: 'soft',
        },
        clock.now(),
      );
    const publish = async (event: ReturnType<typeof failedEvent>) =>
      svc.bus.publish({ id: event.id, type: event.type, body: JSON.stringify(event) });

    const first = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: first.csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const abandoned = stub.settle(`link:${link.id}:payment:1`, 'failed', {
      code: 'ABANDONED',
      category: 'soft',
    });
    await publish(failedEvent(abandoned.idempotencyKey, abandoned.chargeId, 'ABANDONED'));
    await waitFor(async () => {
      const [attempt] = await svc.database.db
        .select()
        .from(linkPayments)
        .where(eq(linkPayments.linkId, link.id));
      return attempt?.status === 'failed';
    });
    expect((await linkRow(link.id)).statusId).toBe(1);
    expect(await eventsOf('link.payment-failed', link.id)).toEqual([]);

    const second = await customer.open(link.slug);
    await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: second.csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    const declined = stub.settle(`link:${link.id}:payment:2`, 'failed', { code: '51', category: 'soft' });
    const event = failedEvent(declined.idempotencyKey, declined.chargeId, '51');
    await publish(event);
    await publish(event);
    await waitFor(async () => (await linkRow(link.id)).statusId === 5);
    await customer.get(`/pay/${link.slug}/return/2`);
    expect(await eventsOf('link.payment-failed', link.id)).toEqual([
      expect.objectContaining({ declineCode: '51', chargeId: declined.chargeId }),
    ]);
  });

  it('a link past payWaitHours is written expired on read (link.expired once) and nothing can be paid', async () => {
    const link = await createLink(aOneOffLink({ payWaitHours: 1 }));
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    clock.advance(2 * 3_600_000);
    const page = await (await customer.get(`/pay/${link.slug}`)).text();
    expect(page).toMatch(/data-status="expired"/);
    expect(page).not.toContain('pay-submit');
    expect((await linkRow(link.id)).statusId).toBe(6);
    await customer.get(`/pay/${link.slug}`);
    expect(await eventsOf('link.expired', link.id)).toHaveLength(1);
    const posted = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    expect(posted.headers.get('location')).toBe(`/pay/${link.slug}`);
    expect(stub.charges.has(`link:${link.id}:payment:1`)).toBe(false);
  });

  it('the sweep writes every link past its validity expired once, with link.expired', async () => {
    const links = await Promise.all([1, 2, 3].map(() => createLink(aOneOffLink({ payWaitHours: 1 }))));
    const lasting = await createLink(aOneOffLink({ payWaitHours: 48 }));
    clock.advance(2 * 3_600_000);
    const payments = postgresLinkPaymentRepository(svc.database.db);
    const now = clock.now();
    const expired = await payments.expireDue(now, 100, (link) => linkExpiredEvent(link, now));
    expect(expired.map((link) => link.id)).toEqual(expect.arrayContaining(links.map((link) => link.id)));
    expect(expired.map((link) => link.id)).not.toContain(lasting.id);
    expect(await payments.expireDue(now, 100, (link) => linkExpiredEvent(link, now))).toEqual([]);
    for (const link of links) {
      expect((await linkRow(link.id)).statusId).toBe(6);
      expect(await eventsOf('link.expired', link.id)).toHaveLength(1);
    }
    expect((await linkRow(lasting.id)).statusId).toBe(1);
  });

  it('a choice the page did not offer starts nothing', async () => {
    const link = await createLink(aOneOffLink({ paymentMethods: ['PARAGUAY.PROCESSOR_B'] }));
    const customer = browser();
    const { csrf } = await customer.open(link.slug);
    const posted = await customer.post(`/pay/${link.slug}/pay`, {
      _csrf: csrf,
      option: 'single',
      processor: 'PARAGUAY.PROCESSOR_A',
    });
    expect(posted.status).toBe(303);
    expect(await svc.database.db.select().from(linkPayments).where(eq(linkPayments.linkId, link.id))).toEqual(
      [],
    );
  });
});
