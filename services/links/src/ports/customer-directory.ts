import type { PaymentLink } from '../domain/payment-link';

/** A customer as the merchant reads it (`GET /api/customers`). */
export interface CustomerEntry {
  id: number;
  email: string | null;
  documentNumber: string | null;
  firstName: string;
  lastName: string;
  status: 'active' | 'inactive';
  createdAt: Date;
}

/** The merchant's view over its customers: finding them and their links (reads only). */
export interface CustomerDirectory {
  /**
   * The merchant's customers, newest first (by id), below `beforeId` when given, those whose e-mail, name or
   * document number contains `search` (whatever its case) when given.
   */
  list(
    merchantId: string,
    filter: { search?: string },
    page: { beforeId: number | null; limit: number },
  ): Promise<CustomerEntry[]>;
  find(merchantId: string, customerId: number): Promise<CustomerEntry | undefined>;
  /** The customer's links (made for them as a signed-in user, or paid by them), newest first. */
  linksOf(merchantId: string, customerId: number, limit: number): Promise<PaymentLink[]>;
}
