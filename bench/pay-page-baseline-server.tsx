/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The bare baseline of `npm run bench:pay-page`: Hono rendering the pay page's own JSX (`LinkPage` in the
 * page's `htmlDocument`) for a link held in memory, as a customer who has not signed in first sees it. No
 * gateway hop, no database, no merchant lookup, no security headers, no session or language cookie: what
 * the page costs to render and send. Run as its own process: PORT, and PAGE_LINK (JSON: label, amount,
 * currency, merchantName) for the same words as the system's page.
 */
import { randomBytes } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { htmlDocument } from '../services/links/src/adapters/http/pay/layout';
import { LinkPage } from '../services/links/src/adapters/http/pay/link-page';

const given = JSON.parse(process.env.PAGE_LINK ?? '{}') as {
  label?: string;
  amount?: string;
  currency?: string;
  merchantName?: string;
};
const link = {
  label: given.label ?? 'Gym membership',
  amount: given.amount ?? '150000.00',
  currency: given.currency ?? 'PYG',
  recurrence: null,
};

const app = new Hono();
app.get('/pay/:slug', (c) => {
  const slug = c.req.param('slug');
  return c.html(
    htmlDocument(
      <LinkPage
        lang="es"
        nonce={randomBytes(16).toString('base64')}
        path={c.req.path}
        merchantName={given.merchantName ?? 'Demo'}
        link={link}
        status="pending"
        panel={{ kind: 'sign-in', noLogin: false, href: `/pay/${encodeURIComponent(slug)}/login?lang=es` }}
      />,
    ),
  );
});
app.get('/readyz', (c) => c.json({ status: 'ready' }));

serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
