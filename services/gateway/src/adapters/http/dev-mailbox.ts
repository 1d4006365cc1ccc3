import { HttpProblem, type Upstream } from '@payrail/http';
import { Hono } from 'hono';

/**
 * `GET /dev/mailbox`: the login codes and other mail links would have sent, kept by its development
 * mailbox (JSON, newest first). The gateway only shows what links answers: 404 when links has no mailbox
 * (production, SMTP, or a process start without `DEV_MAILBOX=true`). No token: it is a developer's tool.
 */
export function devMailboxRoute(links: Upstream) {
  const routes = new Hono();
  routes.get('/dev/mailbox', async () => {
    let response: Response;
    try {
      response = await links(new Request('http://internal/internal/dev/mailbox'));
    } catch (error) {
      throw new HttpProblem(502, 'UPSTREAM_UNAVAILABLE', `links did not answer: ${(error as Error).message}`);
    }
    const headers = new Headers({ 'cache-control': 'no-store' });
    const contentType = response.headers.get('content-type');
    if (contentType) headers.set('content-type', contentType);
    return new Response(response.body, { status: response.status, headers });
  });
  return routes;
}
