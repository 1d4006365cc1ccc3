import type { DECLINE_CATEGORIES, Processor } from '@payrail/contracts';

export type ProcessorId = Processor;
export type DeclineCategory = (typeof DECLINE_CATEGORIES)[number];

export type ChargeStatus = 'pending' | 'succeeded' | 'failed' | 'unknown';
export type ChargeKind = 'stored-card' | 'hosted';

export interface Charge {
  id: string;
  idempotencyKey: string;
  merchantId: string;
  kind: ChargeKind;
  installmentId: number | null;
  attempt: number | null;
  linkId: number | null;
  paymentMethodId: string | null;
  processor: ProcessorId;
  reference: string;
  processorReference: string | null;
  /** Decimal string, two places. */
  amount: string;
  currency: string;
  status: ChargeStatus;
  declineCode: string | null;
  declineCategory: DeclineCategory | null;
  retryable: boolean | null;
  authorizationCode: string | null;
  hostedForm: Record<string, unknown> | null;
  processorCalls: number;
  statusChecks: number;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  nextCheckAt: Date;
  settledAt: Date | null;
}

/** A stored-card charge row as it is first committed, `pending`, but for its processor (the card's). */
export type StoredCardDraft = Omit<Charge, 'processor'>;

/** The counters of a charge row as one send of it left them. */
export type SentAs = Pick<Charge, 'processorCalls' | 'statusChecks'>;

/** A settled outcome, or what to do while the processor has not decided. */
export type Settlement =
  | { status: 'succeeded'; authorizationCode: string | null; processorReference: string | null }
  | {
      status: 'failed';
      declineCode: string;
      category: DeclineCategory;
      retryable: boolean;
      processorReference: string | null;
      /**
       * The failure is the answer to one send, made when the row read so: applied only while it still does
       * (`applySettlement`). Absent: the processor's own word on the reference (a status query).
       */
      sentAs?: SentAs;
    }
  /** The processor accepted and will decide later (B's asynchronous charge, A's 3DS). */
  | { status: 'pending'; processorReference: string | null }
  /** We do not know whether the processor charged: only a status query may settle it. */
  | { status: 'unknown'; reason: string; processorReference: string | null };

/**
 * Whether a failed charge may be tried again for the same debt. A hard decline will not pass with this
 * card; a blocked card must not be tried while the block lasts (30 days, longer than any dunning plan).
 */
export function isRetryable(category: DeclineCategory): boolean {
  return category === 'soft' || category === 'processor-down';
}

/** Code of a charge the processor never received: nothing was taken, so it may be tried again. */
export const NOT_PROCESSED = 'NOT_PROCESSED';
/** Code of a hosted payment nobody completed before it expired. */
export const ABANDONED = 'ABANDONED';
/** Code of a payment the processor took and then gave back (rollback or reversal). */
export const REVERSED = 'REVERSED';

export function isSettled(status: ChargeStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}
