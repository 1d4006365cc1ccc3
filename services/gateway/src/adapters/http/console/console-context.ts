/**
 * The seam between the console's sign-in (users, sessions, CSRF, authorization: `console/auth/`) and its
 * pages (`console/pages/`), fixed before either was built (issue 28). The sign-in middleware sets these
 * variables on every `/console/*` request; a page reads them and acts only through `api`: the public API
 * as the signed-in user, with that user's rights, recorded in the audit log as that user.
 */

import type { ConsoleLanguage, MerchantRole } from '@payrail/contracts';

/**
 * The roles of a merchant's users (issue 28) and the console's languages: defined once in libs/contracts
 * (`access.ts`, beside the permission table), the same names and values as this seam first fixed.
 */
export { type ConsoleLanguage, MERCHANT_ROLES, type MerchantRole } from '@payrail/contracts';

/** Who is signed in. */
export type ConsoleUser =
  | {
      kind: 'merchant-user';
      userId: string;
      merchantId: string;
      email: string;
      name: string | null;
      role: MerchantRole;
      language: ConsoleLanguage;
    }
  | { kind: 'operator'; userId: string; email: string; name: string | null; language: ConsoleLanguage };

/** One call of the public API (`/api/*` for a merchant user, `/admin/*` for the operator). */
export interface ConsoleApiRequest {
  /** `GET`, `POST`, ... */
  method: string;
  /** The public path with its query string, e.g. `/api/subscriptions?status=active`. */
  path: string;
  /** A JSON body. */
  body?: unknown;
  /** Sent as `Idempotency-Key` (a console form carries one, so a double submit acts once). */
  idempotencyKey?: string;
  /** `Accept` (e.g. `text/csv` for an export). */
  accept?: string;
}

/** The public API as the signed-in user: the same answers an integration gets for the same request. */
export interface ConsoleApi {
  call(request: ConsoleApiRequest): Promise<Response>;
}

/** Hono variables under `/console` once signed in (absent on the sign-in pages themselves). */
export interface ConsoleVariables {
  consoleUser: ConsoleUser;
  consoleApi: ConsoleApi;
  /** The CSRF token every form of the page must carry as the hidden field `csrf`. */
  csrfToken: string;
  /** The client's address, for the audit log. */
  clientAddress: string;
}

/**
 * The sign-in's own pages the console links to (added by the pages): signing out (a form posting the
 * CSRF token), the user's password and second factor.
 */
export const CONSOLE_AUTH_PATHS = {
  logout: '/console/logout',
  password: '/console/account/password',
  twoFactor: '/console/account/two-factor',
} as const;
