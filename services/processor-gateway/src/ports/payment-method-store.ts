import type { PaymentMethod } from '../domain/payment-method';

/** The card vault: saved cards (processor references and masks, never a number), by merchant and customer. */
export interface PaymentMethodStore {
  findPaymentMethod(merchantId: string, paymentMethodId: string): Promise<PaymentMethod | undefined>;
  /** The card, locked until the transaction ends. */
  lockPaymentMethod(paymentMethodId: string): Promise<PaymentMethod | undefined>;
  /** The merchant's customer's cards that are not removed, across processors, oldest first. */
  listPaymentMethods(merchantId: string, customerId: number): Promise<PaymentMethod[]>;
  /** Inserts the card unless the same processor card is already saved; returns the stored one either way. */
  saveNewPaymentMethod(method: PaymentMethod): Promise<{ method: PaymentMethod; created: boolean }>;
  savePaymentMethod(method: PaymentMethod): Promise<void>;
}
