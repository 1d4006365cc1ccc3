import {
  ABANDONED,
  type Charge,
  isRetryable,
  NOT_PROCESSED,
  REVERSED,
  type Settlement,
} from '../domain/charge';
import type { ChargeResult, DeclineCategory, ProcessorStatus } from '../ports/card-processor';

/** Turns what a processor answered into what it means for our charge. */

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
      return {
        status: 'unknown',
        reason: result.reason,
        processorReference: result.processorReference ?? null,
      };
  }
}

/**
 * What a status answer means for a charge we could not settle. `undefined`: still undecided, ask again
 * later. A stored-card charge the processor does not know was never taken (its request was lost on the
 * way in); a hosted payment it does not know is simply not paid yet, until it expires.
 */
export function settlementOfStatus(
  charge: Pick<Charge, 'kind'>,
  status: ProcessorStatus,
  options: { hostedExpired: boolean; notFoundIsFinal: boolean },
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
      if (charge.kind === 'stored-card') {
        return options.notFoundIsFinal ? failed(NOT_PROCESSED, 'processor-down') : undefined;
      }
      return options.hostedExpired ? failed(ABANDONED, 'soft') : undefined;
    case 'pending':
      if (charge.kind === 'hosted' && options.hostedExpired) return failed(ABANDONED, 'soft');
      return undefined;
    case 'unreachable':
      return undefined;
  }
}
