import { problems } from '@payrail/http';
import { Hono } from 'hono';
import type { DevMailbox } from '@payrail/mail';

/**
 * `GET /internal/dev/mailbox`: what the development mailbox holds, newest first (the gateway shows it at
 * `GET /dev/mailbox`). Without the mailbox (production, SMTP, or a process start without
 * `DEV_MAILBOX=true`) it is a 404 like any unknown path.
 */
export function devMailboxRoutes(mailbox: DevMailbox | undefined) {
  const routes = new Hono();
  routes.get('/dev/mailbox', (c) => {
    if (!mailbox) throw problems.notFound('The development mailbox is off (DEV_MAILBOX)');
    c.header('cache-control', 'no-store');
    return c.json(mailbox.messages());
  });
  return routes;
}
