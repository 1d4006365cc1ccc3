import type { ProcessorId } from './charge';

/** A saved card. Only what the processor shows: never a number beyond its mask, never a CVV. */
export interface PaymentMethod {
  id: string;
  merchantId: string;
  customerId: number;
  processor: ProcessorId;
  customerRef: string;
  cardRef: string;
  maskedNumber: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  blockedUntil: Date | null;
  createdAt: Date;
  removedAt: Date | null;
}

/**
 * A mask as the processor sends it could, by a processor's mistake, hold the whole number. We keep at most
 * the first six and last four digits (the card industry's own limit for a displayed number).
 */
export function safeMask(masked: string, last4: string): string {
  const digits = masked.replace(/\D/g, '');
  if (digits.length <= 10) return masked;
  return `${digits.slice(0, 6)}${'*'.repeat(Math.max(0, digits.length - 10))}${last4}`;
}
