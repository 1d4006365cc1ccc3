// A customer on the hosted pay page, played by fetch: a cookie jar, forms posted with their CSRF token,
// redirects handed back rather than followed, and the card typed on the processor sandbox's form through
// its test API (`/__sandbox/complete`, what submitting the hosted form does). End-to-end tests, the
// automatic-debit chaos run and the billing benchmark subscribe customers this way, as a browser would.

export type PayProcessor = 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';

export interface PageAnswer {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

export interface PayPageCustomer {
  get(path: string): Promise<PageAnswer>;
  post(path: string, form: Record<string, string>): Promise<PageAnswer>;
  /** A `noLoginRequired` link: the customer confirms the document number and gets a session. */
  identify(slug: string, documentNumber: string): Promise<void>;
  /** Follows a return URL until the pay page answers with a redirect (not the "confirming" page). */
  comeBack(returnUrl: string, timeoutMs?: number): Promise<PageAnswer>;
}

const unescapeHtml = (text: string) => text.replace(/&amp;/g, '&');
export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export function payPageCustomer(gatewayUrl: string, acceptLanguage = 'es-PY,es;q=0.9'): PayPageCustomer {
  const jar = new Map<string, string>();
  async function request(method: string, path: string, form?: Record<string, string>): Promise<PageAnswer> {
    const response = await fetch(new URL(path, gatewayUrl), {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        'accept-language': acceptLanguage,
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const index = pair.indexOf('=');
      jar.set(pair.slice(0, index), pair.slice(index + 1));
    }
    return {
      status: response.status,
      html: await response.text(),
      location: response.headers.get('location'),
      headers: response.headers,
    };
  }
  return {
    get: (path) => request('GET', path),
    post: (path, form) => request('POST', path, form),
    async identify(slug, documentNumber) {
      const page = await request('GET', `/pay/${slug}`);
      const href = /href="([^"]+)" data-testid="pay-sign-in"/.exec(page.html)?.[1];
      if (!href) throw new Error(`the pay page of ${slug} offers no sign-in (status ${page.status})`);
      const identify = await request('GET', unescapeHtml(href));
      const action = /<form[^>]*action="([^"]+)"/.exec(identify.html)?.[1] ?? `/pay/${slug}/identify`;
      const done = await request('POST', unescapeHtml(action), {
        _csrf: csrfOf(identify.html),
        documentNumber,
      });
      if (done.status !== 303) throw new Error(`identifying on ${slug} answered ${done.status}`);
    },
    async comeBack(returnUrl, timeoutMs = 30_000) {
      const target = new URL(returnUrl, gatewayUrl);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const answer = await request('GET', target.pathname + target.search);
        if (answer.status === 303) return answer;
        if (Date.now() > deadline) throw new Error(`${returnUrl} still answered ${answer.status}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  };
}

export interface SubscribeOnPayPage {
  gatewayUrl: string;
  sandboxUrl: string;
  /** The link's slug; the link must be `noLoginRequired` with `documentNumber`. */
  slug: string;
  documentNumber: string;
  processor?: PayProcessor;
  cardNumber: string;
  /** 'subscription' for a recurrent link (the card is registered, then charged). */
  option?: 'subscription' | 'single';
}

/**
 * Pays a link's first payment on the hosted page with a new card, as a customer does: identifies, chooses
 * the option and processor, types the card on the sandbox's form, comes back. Answers where the page sent
 * the customer in the end (the receipt when paid, the link's page when refused) and the sandbox's outcome.
 */
export async function payOnPayPage(
  request: SubscribeOnPayPage,
): Promise<{ outcome: string; location: string | null }> {
  const processor = request.processor ?? 'PARAGUAY.PROCESSOR_A';
  const customer = payPageCustomer(request.gatewayUrl);
  await customer.identify(request.slug, request.documentNumber);
  const page = await customer.get(`/pay/${request.slug}`);
  const opened = await customer.post(`/pay/${request.slug}/pay`, {
    _csrf: csrfOf(page.html),
    option: request.option ?? 'subscription',
    processor,
  });
  let target: Record<string, string>;
  if (processor === 'PARAGUAY.PROCESSOR_A') {
    const frame = /<iframe src="([^"]+)"/.exec(opened.html)?.[1];
    if (!frame) throw new Error(`no PROCESSOR_A form for ${request.slug} (status ${opened.status})`);
    target = { processId: new URL(unescapeHtml(frame)).searchParams.get('process_id') ?? '' };
  } else {
    if (opened.status !== 303 || !opened.location)
      throw new Error(`no PROCESSOR_B redirect for ${request.slug}`);
    target = { hash: new URL(opened.location).pathname.split('/').at(-1) ?? '' };
  }
  const typed = await fetch(`${request.sandboxUrl}/__sandbox/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...target, cardNumber: request.cardNumber, expiry: '12/30', cvv: '123' }),
  });
  if (!typed.ok) throw new Error(`the sandbox's form answered ${typed.status}: ${await typed.text()}`);
  const { outcome, redirectUrl } = (await typed.json()) as { outcome: string; redirectUrl: string };
  const back = await customer.comeBack(redirectUrl);
  return { outcome, location: back.location };
}
