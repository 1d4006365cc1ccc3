import type { Hono } from 'hono';
import { type OpenCareLinkDeps, openCareLink } from '../../../application/customer-emails/open-care-link';
import { type CustomerSessionDeps, startCustomerSession } from '../../../application/customer-sessions';
import { MESSAGES } from './i18n';
import { MessagePage } from './link-page';
import { type PayEnv, page } from './routes';
import { setSessionCookie } from './session';

export interface CareRoutesDeps extends OpenCareLinkDeps {
  sessions: CustomerSessionDeps['sessions'];
  secureCookies: boolean;
}

/** Where a signed link leads: the card change of the subscription (the customer's page, issue 29 item 1). */
export const cardChangePath = (subscriptionId: number) => `/pay/account/subscriptions/${subscriptionId}/card`;

/**
 * `GET /pay/care/{token}`: the button of a customer e-mail. A valid link is used up, opens a session for
 * that customer at that merchant (as the login code would) and goes to the subscription's card change.
 */
export function careRoutes(deps: CareRoutesDeps) {
  return (pay: Hono<PayEnv>) => {
    pay.get('/care/:token', async (c) => {
      const outcome = await openCareLink(deps, c.req.param('token'));
      const m = MESSAGES[c.var.lang];
      const refused = (title: string, text: string, status: 404 | 409) =>
        page(
          c,
          <MessagePage
            lang={c.var.lang}
            nonce={c.var.cspNonce}
            path={c.req.path}
            title={title}
            text={text}
          />,
          status,
        );
      c.header('cache-control', 'no-store');
      switch (outcome.kind) {
        case 'invalid':
          return refused(m.careInvalidTitle, m.careInvalidText, 404);
        case 'used':
          return refused(m.careUsedTitle, m.careUsedText, 409);
        case 'expired':
          return refused(m.careExpiredTitle, m.careExpiredText, 409);
        case 'opened': {
          const session = await startCustomerSession(deps, {
            merchantId: outcome.merchantId,
            customerId: outcome.customerId,
          });
          setSessionCookie(c, session, deps.secureCookies, deps.clock.now());
          return c.redirect(cardChangePath(outcome.subscriptionId), 303);
        }
      }
    });
  };
}
