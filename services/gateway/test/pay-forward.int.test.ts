import { type ServiceUnderTest, startService } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayService } from '../src/service';

/** Stands in for links: tells what it was given, and answers like the pay page (cookie, CSP, redirect). */
async function payPage(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const seen = {
    path: url.pathname + url.search,
    method: request.method,
    cookie: request.headers.get('cookie'),
    acceptLanguage: request.headers.get('accept-language'),
    merchantContext: request.headers.get('x-merchant-context'),
    apiToken: request.headers.get('api-token'),
    body: request.method === 'POST' ? await request.text() : null,
  };
  const headers = new Headers({
    'content-type': 'application/json',
    'content-security-policy': "default-src 'none'",
    'x-internal-only': 'secret',
  });
  if (!url.pathname.endsWith('/no-cookies')) {
    headers.append('set-cookie', 'a=1; Path=/pay; HttpOnly');
    headers.append('set-cookie', 'b=2; Path=/pay; HttpOnly');
  }
  if (url.pathname.endsWith('/go')) {
    headers.set('location', 'https://shop.example.com/done?order=1&x=2');
    return new Response(null, { status: 303, headers });
  }
  return new Response(JSON.stringify(seen), { status: 200, headers });
}

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startService(gatewayService, { env: {}, upstreams: { links: payPage } });
});
afterAll(async () => gateway?.stop());

describe('/pay/* through the gateway', () => {
  it('reaches links without any token, with the browser cookies and language, and nothing of a merchant', async () => {
    const response = await gateway.request('GET', '/pay/abc?lang=en', {
      headers: { cookie: 'payrail_csrf=xyz', 'accept-language': 'en', 'api-token': 'not-forwarded' },
    });
    expect(response.status).toBe(200);
    const seen = (await response.json()) as Record<string, unknown>;
    expect(seen).toMatchObject({
      path: '/pay/abc?lang=en',
      method: 'GET',
      cookie: 'payrail_csrf=xyz',
      acceptLanguage: 'en',
      merchantContext: null,
      apiToken: null,
    });
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/pay; HttpOnly', 'b=2; Path=/pay; HttpOnly']);
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(response.headers.get('x-internal-only')).toBeNull();
  });

  it('passes form posts and gives the redirect back as it is', async () => {
    const posted = await gateway.request('POST', '/pay/abc/pay', {
      rawBody: 'option=single&_csrf=t',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(((await posted.json()) as { body: string }).body).toBe('option=single&_csrf=t');
    const redirect = await gateway.request('GET', '/pay/abc/go');
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('https://shop.example.com/done?order=1&x=2');
  });

  it('an answer without cookies keeps the same headers and no others (a customer first opening a link)', async () => {
    const response = await gateway.request('GET', '/pay/abc/no-cookies');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(response.headers.get('x-internal-only')).toBeNull();
    expect(response.headers.getSetCookie()).toEqual([]);
    expect(((await response.json()) as { path: string }).path).toBe('/pay/abc/no-cookies');
  });
});
