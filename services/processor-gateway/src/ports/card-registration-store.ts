import type { ProcessorId } from './card-processor';

export interface CardRegistration {
  id: string;
  merchantId: string;
  customerId: number;
  processor: ProcessorId;
  customerRef: string;
  registrationRef: string;
  linkId: number | null;
  status: 'open' | 'completed';
  createdAt: Date;
  completedAt: Date | null;
}

/** The hosted card-registration forms opened for a customer, and whether each was completed. */
export interface CardRegistrationStore {
  insertRegistration(registration: CardRegistration): Promise<void>;
  /** The registration, locked until the transaction ends. */
  lockRegistration(merchantId: string, registrationId: string): Promise<CardRegistration | undefined>;
  saveRegistration(registration: CardRegistration): Promise<void>;
}
