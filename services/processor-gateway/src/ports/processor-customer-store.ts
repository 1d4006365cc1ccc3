import type { ProcessorId } from './card-processor';

/** Our id for a merchant's customer at each processor (A's `user_id`, B's `identificador`). */
export interface ProcessorCustomerStore {
  /** The customer's id at the processor, created on first use. */
  processorCustomerRef(
    merchantId: string,
    customerId: number,
    processor: ProcessorId,
    at: Date,
  ): Promise<string>;
}
