import type { ConsoleUser, MerchantRole } from '../console-context';

/** The areas a console page writes to (the plan's permission areas). */
export type WriteArea =
  | 'links'
  | 'subscriptions'
  | 'refunds'
  | 'transfers'
  | 'tokens'
  | 'webhooks'
  | 'users'
  | 'settings';

const WRITES: Record<MerchantRole, ReadonlySet<WriteArea>> = {
  owner: new Set([
    'links',
    'subscriptions',
    'refunds',
    'transfers',
    'tokens',
    'webhooks',
    'users',
    'settings',
  ]),
  operations: new Set(['links', 'subscriptions', 'refunds', 'transfers']),
  developer: new Set(['tokens', 'webhooks']),
  viewer: new Set(),
};

/**
 * Whether a page offers the user a button or a form that writes to `area`. For display only: the API
 * decides (the permission table of the sign-in, the same for a token), and answers 403 to a crafted form.
 */
export function mayWrite(user: ConsoleUser, area: WriteArea): boolean {
  if (user.kind === 'operator') return true;
  return WRITES[user.role].has(area);
}
