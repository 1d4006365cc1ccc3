/** A service user (customer) of one merchant, found by e-mail regardless of case. */
export interface Customer {
  id: number;
  merchantId: string;
  email: string;
  firstName: string;
  lastName: string;
}

/**
 * E-mail addresses are matched case-insensitively (spec 2.3: the user "matching signedInUser.email"):
 * `Ana@Example.com` and `ana@example.com` are one user.
 */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}
