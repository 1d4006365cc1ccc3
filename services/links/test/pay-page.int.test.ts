import type { MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aOneOffLink,
  aStaticLink,
  type ServiceUnderTest,
  startService,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentLinks } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';
import { subscriptionsStub } from './support/subscriptions-stub';

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
// No subscription made yet for any link: the page shows a link's own terms (pay-page-schedule.int.test.ts).
const subscriptions = subscriptionsStub();
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, {
    clock,
    env: { PROCESSOR_SANDBOX_URL: 'http://sandbox.test:3005' },
    upstreams: { subscriptions: (request) => subscriptions.handle(request) },
  });
});
afterAll(async () => svc?.stop());

const gym = aMerchant({ name: 'Gym Asunción & Co' });

async function createLink(body: Record<string, unknown>, merchant: MerchantContext = gym) {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: number; slug: string };
}

async function open(slug: string, headers: Record<string, string> = {}, query = '') {
  const response = await svc.request('GET', `/pay/${slug}${query}`, { headers });
  return { response, html: await response.text() };
}

/** The text inside the element with that test id (first one; none of its own kind inside), tags stripped. */
function testId(html: string, id: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, '').trim();
}

describe('GET /pay/{slug}', () => {
  it('shows the merchant on top, the label, the amount in guaraníes without decimals and the status, in Spanish', async () => {
    const { slug } = await createLink(aOneOffLink({ label: 'Cuota de noviembre', amount: 150000 }));
    const { response, html } = await open(slug);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<html lang="es">');
    expect(testId(html, 'pay-merchant')).toBe('Gym Asunción &amp; Co');
    expect(testId(html, 'pay-label')).toBe('Cuota de noviembre');
    expect(testId(html, 'pay-amount')).toBe('Gs. 150.000');
    expect(html).toMatch(/data-testid="pay-status" data-status="pending"/);
    expect(testId(html, 'pay-status')).toBe('Pendiente de pago');
  });

  it('speaks English by Accept-Language or ?lang=en, with English digit grouping', async () => {
    const { slug } = await createLink(aOneOffLink({ amount: 1500000 }));
    const byHeader = await open(slug, { 'accept-language': 'en-US,en;q=0.9,es;q=0.5' });
    expect(byHeader.html).toContain('<html lang="en">');
    expect(testId(byHeader.html, 'pay-amount')).toBe('Gs. 1,500,000');
    expect(testId(byHeader.html, 'pay-status')).toBe('Awaiting payment');
    const byQuery = await open(slug, { 'accept-language': 'es' }, '?lang=en');
    expect(byQuery.html).toContain('<html lang="en">');
    // Spanish is preferred over English when the browser says so.
    const spanish = await open(slug, { 'accept-language': 'fr, es;q=0.8, en;q=0.5' });
    expect(spanish.html).toContain('<html lang="es">');
  });

  it('shows dollars with cents in the customer locale', async () => {
    const usd = aMerchant({ instance: 'INTERNATIONAL', currency: 'USD' });
    const { slug } = await createLink(aOneOffLink({ amount: 1234.5, currency: 'USD' }), usd);
    expect(testId((await open(slug)).html, 'pay-amount')).toBe('US$ 1.234,50');
    expect(testId((await open(slug, {}, '?lang=en')).html, 'pay-amount')).toBe('US$ 1,234.50');
  });

  it('escapes the label and the merchant name: markup in them is text, never markup', async () => {
    const evil = aMerchant({ name: '<img src=x onerror=alert(1)>' });
    const { slug } = await createLink(aOneOffLink({ label: '<script>alert("x")</script>' }), evil);
    const { html } = await open(slug);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('a subscription shows its schedule in words and as a table, dates in the merchant calendar', async () => {
    const { slug } = await createLink(
      aStaticLink({ amount: 150000, installmentAmount: 120000, totalPeriods: 14, dayOfMonth: 5 }),
    );
    const { html } = await open(slug);
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego 13 cuotas de Gs. 120.000, el día 5 de cada mes desde diciembre de 2026.',
    );
    const table = /<table data-testid="pay-schedule-table">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
    const rows = [
      ...table.matchAll(
        /<tr data-testid="pay-schedule-row"[^>]*><td>(\d+)<\/td><td>([^<]*)<\/td><td class="num"><span class="money">([^<]*)<\/span><\/td>/g,
      ),
    ].map((row) => row.slice(1));
    expect(rows[0]).toEqual(['1', 'Hoy', 'Gs. 150.000']);
    expect(rows[1]).toEqual(['2', '5 de diciembre de 2026', 'Gs. 120.000']);
    expect(rows[2]).toEqual(['3', '5 de enero de 2027', 'Gs. 120.000']);
    // Twelve rows in the table, the other two one tap away.
    expect(rows).toHaveLength(12);
    expect(html).toMatch(
      /<details data-testid="pay-schedule-rest"><summary>Ver las 2 cuotas siguientes<\/summary>/,
    );
    const english = await open(slug, {}, '?lang=en');
    expect(testId(english.html, 'pay-schedule-words')).toBe(
      'A first payment of Gs. 150,000 today, then 13 installments of Gs. 120,000 on day 5 of each month from December 2026.',
    );
  });

  it('a customer not signed in is asked to sign in (or confirm the document for a no-login link)', async () => {
    const { slug } = await createLink(aOneOffLink());
    const { html } = await open(slug);
    expect(html).toMatch(new RegExp(`href="/pay/${slug}/login\\?lang=es" data-testid="pay-sign-in"`));
    expect(html).not.toContain('data-testid="pay-submit"');
  });

  it('an expired link says so and offers nothing to pay; cancelled and paid likewise', async () => {
    const expiring = await createLink(aOneOffLink({ payWaitHours: 1 }));
    clock.advance(2 * 3_600_000);
    const expired = await open(expiring.slug);
    expect(expired.html).toMatch(/data-testid="pay-status" data-status="expired"/);
    expect(expired.html).not.toContain('pay-sign-in');

    const cancelled = await createLink(aOneOffLink());
    await svc.database.db.update(paymentLinks).set({ statusId: 7 }).where(eq(paymentLinks.id, cancelled.id));
    const cancelledPage = await open(cancelled.slug);
    expect(cancelledPage.html).toMatch(/data-status="cancelled"/);
    expect(cancelledPage.html).not.toContain('pay-sign-in');

    const paid = await createLink(aOneOffLink());
    await svc.database.db.update(paymentLinks).set({ statusId: 200 }).where(eq(paymentLinks.id, paid.id));
    const paidPage = await open(paid.slug, {}, '?lang=en');
    expect(paidPage.html).toMatch(/data-status="paid"/);
    expect(paidPage.html).toContain('This link is already paid.');
  });

  it('an unknown slug is a 404 page, not the JSON of the API', async () => {
    const { response, html } = await open('no-such-link');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('Enlace no encontrado');
  });

  it('sends a CSP whose frame-src names only the processors, and no framing of the page itself', async () => {
    const { slug } = await createLink(aOneOffLink());
    const { response, html } = await open(slug);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('frame-src http://sandbox.test:3005;');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('refuses a form post without this browser CSRF token', async () => {
    const { slug } = await createLink(aOneOffLink());
    const response = await svc.request('POST', `/pay/${slug}/pay`, {
      rawBody: 'option=single&processor=PARAGUAY.PROCESSOR_A',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(403);
  });
});
