import type { ChargeResult, DeclineCategory, ProcessorId, ProcessorStatus } from '../ports/card-processor';

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

/** A settled outcome, or what to do while the processor has not decided. */
export type Settlement =
  | { status: 'succeeded'; authorizationCode: string | null; processorReference: string | null }
  | {
      status: 'failed';
      declineCode: string;
      category: DeclineCategory;
      retryable: boolean;
      processorReference: string | null;
    }
  /** The processor accepted and will decide later (B's asynchronous charge, A's 3DS). */
  | { status: 'pending'; processorReference: string | null }
  /** We do not know whether the processor charged: only a status query may settle it. */
  | { status: 'unknown'; reason: string };

/**
 * Whether a failed charge may be tried again for the same debt. A hard decline will not pass with this
 * card; a blocked card must not be tried while the block lasts (30 days, longer than any dunning plan).
 */
export function isRetryable(category: DeclineCategory): boolean {
  return category === 'soft' || category === 'processor-down';
}

function failed(code: string, category: DeclineCategory, processorReference?: string): Settlement {
  return {
    status: 'failed',
    declineCode: code,
    category,
    retryable: isRetryable(category),
    processorReference: processorReference ?? null,
  };
}

export function settlementOfCharge(result: ChargeResult): Settlement {
  switch (result.kind) {
    case 'approved':
      return {
        status: 'succeeded',
        authorizationCode: result.authorizationCode ?? null,
        processorReference: result.processorReference ?? null,
      };
    case 'declined':
      return failed(result.code, result.category, result.processorReference);
    case 'pending':
      return { status: 'pending', processorReference: result.processorReference ?? null };
    case 'unknown':
      return { status: 'unknown', reason: result.reason };
  }
}

/** Code of a charge the processor never received: nothing was taken, so it may be tried again. */
export const NOT_PROCESSED = 'NOT_PROCESSED';
/** Code of a hosted payment nobody completed before it expired. */
export const ABANDONED = 'ABANDONED';
/** Code of a payment the processor took and then gave back (rollback or reversal). */
export const REVERSED = 'REVERSED';

/**
 * What a status answer means for a charge we could not settle. `undefined`: still undecided, ask again
 * later. A stored-card charge the processor does not know was never taken (its request was lost on the
 * way in); a hosted payment it does not know is simply not paid yet, until it expires.
 */
export function settlementOfStatus(
  charge: Pick<Charge, 'kind'>,
  status: ProcessorStatus,
  options: { hostedExpired: boolean },
): Settlement | undefined {
  switch (status.status) {
    case 'paid':
      return {
        status: 'succeeded',
        authorizationCode: status.authorizationCode ?? null,
        processorReference: status.processorReference ?? null,
      };
    case 'declined':
      return failed(status.code, status.category, status.processorReference);
    case 'reversed':
      return {
        status: 'failed',
        declineCode: REVERSED,
        category: 'hard',
        retryable: false,
        processorReference: status.processorReference ?? null,
      };
    case 'not-found':
      if (charge.kind === 'stored-card') return failed(NOT_PROCESSED, 'processor-down');
      return options.hostedExpired ? failed(ABANDONED, 'soft') : undefined;
    case 'pending':
      if (charge.kind === 'hosted' && options.hostedExpired) return failed(ABANDONED, 'soft');
      return undefined;
    case 'unreachable':
      return undefined;
  }
}

export function isSettled(status: ChargeStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}
