import { LINK_ERRORS } from '@payrail/contracts';
import { problemFromTable } from '@payrail/http';
import { MerchantRuleViolation, PaymentLinkNotFound, PaymentLinkNotPayable } from '../../domain/errors';

/**
 * Use as `.catch(toProblem)`: domain errors become problem documents, their status from the service's
 * error table; anything else propagates.
 */
export function toProblem(error: unknown): never {
  if (error instanceof MerchantRuleViolation) {
    const errors = error.field ? [{ path: error.field, message: error.message }] : [];
    throw problemFromTable(LINK_ERRORS, error.code, error.message, errors);
  }
  if (error instanceof PaymentLinkNotFound) {
    throw problemFromTable(LINK_ERRORS, error.code, 'Payment link not found');
  }
  if (error instanceof PaymentLinkNotPayable) {
    throw problemFromTable(LINK_ERRORS, error.code, error.message);
  }
  throw error;
}
