import { HttpProblem, type Upstream } from '@payrail/http';
import type { DevMailbox, MailboxEntry } from '@payrail/mail';
import { Hono } from 'hono';

/**
 * `GET /dev/mailbox`: the mail the system would have sent, newest first (JSON): links' login codes (its
 * development mailbox, asked over `/internal/dev/mailbox`) and the gateway's own console invitations and
 * password resets. 404 when neither keeps a mailbox (production, SMTP, or a process start without
 * `DEV_MAILBOX=true`). No token: it is a developer's tool.
 */
export function devMailboxRoute(links: Upstream, own?: DevMailbox) {
  const routes = new Hono();
  routes.get('/dev/mailbox', async () => {
    let response: Response;
    try {
      response = await links(new Request('http://internal/internal/dev/mailbox'));
    } catch (error) {
      throw new HttpProblem(502, 'UPSTREAM_UNAVAILABLE', `links did not answer: ${(error as Error).message}`);
    }
    const headers = new Headers({ 'cache-control': 'no-store' });
    if (own && (response.ok || response.status === 404)) {
      const theirs = response.ok ? ((await response.json()) as MailboxEntry[]) : [];
      // ISO 8601 instants in UTC sort as text; a stable sort keeps each mailbox's own order on a tie.
      const all = [...own.messages(), ...theirs].sort((a, b) =>
        a.sentAt < b.sentAt ? 1 : a.sentAt > b.sentAt ? -1 : 0,
      );
      headers.set('content-type', 'application/json');
      return new Response(JSON.stringify(all), { status: 200, headers });
    }
    const contentType = response.headers.get('content-type');
    if (contentType) headers.set('content-type', contentType);
    return new Response(response.body, { status: response.status, headers });
  });
  return routes;
}
