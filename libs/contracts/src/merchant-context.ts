import { z } from 'zod';
import { customerEmailSettings } from './api/customer-emails';

export const PROCESSORS = ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'] as const;
export type Processor = (typeof PROCESSORS)[number];

export const INSTANCES = ['NATIONAL', 'INTERNATIONAL'] as const;
export const CURRENCIES = ['PYG', 'USD', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

/**
 * What the gateway tells a service about the authenticated merchant (signed, see libs/http). Services
 * learn merchant settings only from here; they never read the gateway's tables.
 */
export const merchantContextSchema = z.object({
  merchantId: z.string().uuid(),
  name: z.string(),
  instance: z.enum(INSTANCES),
  currency: z.enum(CURRENCIES),
  saasContract: z.boolean(),
  noLoginEnabled: z.boolean(),
  callbackUrl: z.string().nullable(),
  timezone: z.string(),
  processors: z.array(z.enum(PROCESSORS)),
  /**
   * The customer may cancel their own subscription on their page (`/pay/account`, issue 29); off by
   * default, and absent from contexts signed before the setting existed.
   */
  customerCancelAllowed: z.boolean().optional(),
  /**
   * The e-mails to the merchant's customers (issue 29): which kinds, and the reminder's days before a debit.
   * Absent in contexts signed before it: every kind on, 3 days.
   */
  customerEmails: customerEmailSettings.optional(),
  /** The `Reply-To` of the customers' e-mails; null or absent: none. */
  contactEmail: z.string().nullable().optional(),
});

export type MerchantContext = z.infer<typeof merchantContextSchema>;
