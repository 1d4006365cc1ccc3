/** A customer's session on the pay pages ends this long after it began (no sliding renewal). */
export const CUSTOMER_SESSION_LIFETIME_MS = 2 * 3_600_000;

/** Who is paying: a customer of one merchant. A session never spans merchants. */
export interface SessionCustomer {
  merchantId: string;
  customerId: number;
}
