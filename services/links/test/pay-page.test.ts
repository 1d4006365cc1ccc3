import { listen } from '@payrail/http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { pickLang } from '../src/adapters/http/pay/i18n';
import { formatMoney } from '../src/adapters/http/pay/money-format';
import {
  contentSecurityPolicy,
  type PayVariables,
  processorOrigins,
  securityHeaders,
} from '../src/adapters/http/pay/security-headers';
import { loadConfig } from '../src/config';
import { payOptions, processorsForLink } from '../src/domain/pay-page';

describe('money on the pay page', () => {
  it.each([
    ['150000.00', 'PYG', 'es', 'Gs. 150.000'],
    ['150000.00', 'PYG', 'en', 'Gs. 150,000'],
    ['1000', 'PYG', 'es', 'Gs. 1.000'],
    ['999', 'PYG', 'es', 'Gs. 999'],
    ['12345678901234.00', 'PYG', 'es', 'Gs. 12.345.678.901.234'],
    ['150000.50', 'PYG', 'es', 'Gs. 150.000,50'],
    ['1234.5', 'USD', 'es', 'US$ 1.234,50'],
    ['1234.5', 'USD', 'en', 'US$ 1,234.50'],
    ['0.05', 'EUR', 'es', '0,05 €'],
    ['1234567.89', 'EUR', 'en', '€1,234,567.89'],
  ] as const)('%s %s in %s is %s', (amount, currency, lang, expected) => {
    expect(formatMoney(amount, currency, lang)).toBe(expected);
  });
});

describe('the customer language', () => {
  it('?lang wins, then the remembered choice, then Accept-Language by weight, else Spanish', () => {
    expect(pickLang('en', 'es')).toBe('en');
    expect(pickLang('fr', 'en')).toBe('en');
    expect(pickLang(undefined, 'es', 'en')).toBe('en');
    expect(pickLang(undefined, 'de, en;q=0.4, es;q=0.7')).toBe('es');
    expect(pickLang(undefined, 'en-GB;q=0.9, es;q=0')).toBe('en');
    expect(pickLang(undefined, 'de, fr')).toBe('es');
    expect(pickLang(undefined, undefined)).toBe('es');
  });
});

describe('what the page offers', () => {
  it('processors: the link’s paymentMethods the merchant has enabled', () => {
    const merchant = ['PARAGUAY.PROCESSOR_A'];
    expect(
      processorsForLink({ paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'] }, merchant),
    ).toEqual(['PARAGUAY.PROCESSOR_A']);
    expect(processorsForLink({ paymentMethods: ['PARAGUAY.PROCESSOR_B'] }, merchant)).toEqual([]);
  });

  it('single, subscription or both; a subscription only by card', () => {
    const terms = { type: 'DYNAMIC' as const };
    expect(payOptions({ singlePayment: true, recurrence: null, creditAndDebitCard: true })).toEqual([
      'single',
    ]);
    expect(payOptions({ singlePayment: true, recurrence: terms, creditAndDebitCard: true })).toEqual([
      'single',
      'subscription',
    ]);
    expect(payOptions({ singlePayment: false, recurrence: terms, creditAndDebitCard: true })).toEqual([
      'subscription',
    ]);
    expect(payOptions({ singlePayment: false, recurrence: terms, creditAndDebitCard: false })).toEqual([]);
  });
});

describe('the CSP', () => {
  it('frames only the processors’ origins, from their settings', () => {
    const origins = processorOrigins(
      loadConfig({
        PROCESSOR_SANDBOX_URL: 'http://127.0.0.1:4005/',
        PROCESSOR_SANDBOX_PUBLIC_URL: 'http://localhost:4005',
        PROCESSOR_A_URL: 'https://vpos.processor-a.example/api',
        PROCESSOR_B_URL: 'not a url',
      }),
    );
    expect(origins).toEqual([
      'https://vpos.processor-a.example',
      'http://localhost:4005',
      'http://127.0.0.1:4005',
    ]);
    const csp = contentSecurityPolicy('abc', origins);
    expect(csp).toContain(
      'frame-src https://vpos.processor-a.example http://localhost:4005 http://127.0.0.1:4005;',
    );
    expect(csp).toContain("script-src 'nonce-abc'");
    expect(csp).not.toContain('unsafe-inline');
  });
});

describe('the security headers', () => {
  function pageApp() {
    const app = new Hono<{ Variables: PayVariables }>();
    app.use('*', securityHeaders(['https://vpos.processor-a.example']));
    const made: Response[] = [];
    app.get('/page', (c) => {
      const page = c.html(`<p nonce="${c.var.cspNonce}">page</p>`);
      made.push(page);
      return page;
    });
    app.get('/checkout', (c) => {
      c.set('formRedirectOrigins', ['https://shop.example']);
      return c.html('<p>checkout</p>');
    });
    app.get('/raw', () => new Response('raw', { headers: { 'content-type': 'text/plain' } }));
    return { app, made };
  }

  function expectSecurityHeaders(headers: Headers, formTargets = ''): string {
    const csp = headers.get('content-security-policy') ?? '';
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1] ?? '';
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(csp).toContain(`form-action 'self' https://vpos.processor-a.example${formTargets};`);
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('no-store');
    return nonce;
  }

  it('are on the page the handler made, not on a copy of it around a stream of its body', async () => {
    const { app, made } = pageApp();
    const answer = await app.fetch(new Request('http://pay.test/page'));
    // The same response: the Node server writes its text in one piece with its length (a rebuilt one's body
    // is a stream, read back to be written).
    expect(answer).toBe(made[0]);
    const nonce = expectSecurityHeaders(answer.headers);
    expect(await answer.text()).toBe(`<p nonce="${nonce}">page</p>`);
    expect(answer.headers.get('content-security-policy')).toBe(
      contentSecurityPolicy(nonce, ['https://vpos.processor-a.example']),
    );
  });

  it("name the merchant's site where the page asks, and reach a response made without Hono's helpers", async () => {
    const { app } = pageApp();
    const checkout = await app.fetch(new Request('http://pay.test/checkout'));
    expectSecurityHeaders(checkout.headers, ' https://shop.example');
    expectSecurityHeaders((await app.fetch(new Request('http://pay.test/raw'))).headers);
  });

  it('reach a reader in memory under the Node server adapter (the embedded system), body read first', async () => {
    // A running server installs @hono/node-server's own Response, as in the embedded system, where the
    // gateway reads links' answers in memory: the body first, then the headers.
    const server = await listen({ fetch: () => new Response('') }, 0, '127.0.0.1');
    await server.close();
    const { app } = pageApp();
    for (const path of ['/page', '/checkout', '/raw']) {
      const answer = await app.fetch(new Request(`http://pay.test${path}`));
      await answer.arrayBuffer();
      expectSecurityHeaders(new Headers(answer.headers), path === '/checkout' ? ' https://shop.example' : '');
    }
  });

  it("add the merchant's site to form-action only where a page asks for it", () => {
    const processors = ['https://a.example', 'https://b.example'];
    const plain = contentSecurityPolicy('n0nce', processors);
    expect(plain).toBe(
      "default-src 'none'; style-src 'nonce-n0nce'; script-src 'nonce-n0nce'; img-src 'self' data:; " +
        "frame-src https://a.example https://b.example; form-action 'self' https://a.example https://b.example; " +
        "frame-ancestors 'none'; base-uri 'none'; connect-src 'self'",
    );
    const withShop = contentSecurityPolicy('n0nce', processors, [
      'https://shop.example',
      'https://a.example',
    ]);
    expect(withShop).toContain(
      "form-action 'self' https://a.example https://b.example https://shop.example;",
    );
    expect(contentSecurityPolicy('n0nce', [])).toContain("frame-src 'none'; form-action 'self';");
  });
});
