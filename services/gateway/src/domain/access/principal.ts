import { type ApiTokenScope, grants, type MerchantRole, type Permission } from '@payrail/contracts';

/**
 * Who makes a merchant request: an API token (its scope) or a console user (its role). Both are checked
 * against the one permission table (`OPERATION_PERMISSIONS` of libs/contracts), so a console page can do
 * nothing a token with the same rights cannot.
 */
export type MerchantPrincipal =
  | { kind: 'token'; tokenId: string; scope: ApiTokenScope; name: string | null }
  | { kind: 'user'; userId: string; email: string; role: MerchantRole };

/** Who makes an operator request: the bearer `ADMIN_TOKEN`, or an operator's console account. */
export type OperatorPrincipal =
  | { kind: 'operator-token' }
  | { kind: 'operator-user'; userId: string; email: string };

export function mayDo(principal: MerchantPrincipal, permission: Permission): boolean {
  return grants(principal.kind === 'token' ? principal.scope : principal.role, permission);
}

/** How a refusal names the one refused, for the problem's detail. */
export function describePrincipal(principal: MerchantPrincipal): string {
  return principal.kind === 'token'
    ? `A ${principal.scope} API token`
    : `A console user with the role ${principal.role}`;
}
