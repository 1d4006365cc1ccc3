import type { MiddlewareHandler } from 'hono';

/** Who is paying: a customer of the link's merchant (links' `customers.id`), or nobody yet. */
export interface PayCustomer {
  merchantId: string;
  customerId: number;
}

export interface CustomerVariables {
  customer: PayCustomer | null;
}

/**
 * Placeholder until the customer session lands (pay-identity): nobody is signed in. The real middleware
 * reads the HttpOnly session cookie and sets the same variable.
 */
export function customerSession(): MiddlewareHandler<{ Variables: CustomerVariables }> {
  return async (c, next) => {
    c.set('customer', null);
    await next();
  };
}
