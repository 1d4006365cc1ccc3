import { LINK_ERRORS } from '@payrail/contracts';
import { describeErrors, problemFromTable, problems } from '@payrail/http';
import {
  AmountNotInCurrency,
  MerchantRuleViolation,
  PaymentLinkNotFound,
  PaymentLinkNotPayable,
} from '../../domain/errors';

/**
 * Use as `.catch(toProblem)`: domain errors become problem documents, their status from the service's
 * error table; anything else propagates.
 */
export function toProblem(error: unknown): never {
  if (error instanceof MerchantRuleViolation) {
    const errors = error.field ? [{ path: error.field, message: error.message }] : [];
    throw problemFromTable(LINK_ERRORS, error.code, error.message, errors);
  }
  if (error instanceof AmountNotInCurrency) {
    const errors = error.fields.map(({ field, message }) => ({ path: field, message }));
    throw problems.badRequest(describeErrors(errors, error.message), errors);
  }
  if (error instanceof PaymentLinkNotFound) {
    throw problemFromTable(LINK_ERRORS, error.code, 'Payment link not found');
  }
  if (error instanceof PaymentLinkNotPayable) {
    throw problemFromTable(LINK_ERRORS, error.code, error.message);
  }
  throw error;
}
