import type { IsoDate } from '@payrail/time';
import { criteriaOf, hasIdentifier, type SubscriptionCriteria } from './identifiers';
import type { Installment } from './installment';
import type { Subscription } from './subscription';

/**
 * Bulk modification of installment amounts (spec 4.3), as pure steps around two set-based store calls:
 * resolve every operation's subscription at once, then apply every update at once.
 */

export interface BulkOperation {
  customIdentifier: string | null;
  customIdentifier2: string | null;
  /** `pay_request_id`: the link the subscription was made from. */
  linkId?: number | null;
  updates: Array<{ paymentDate: IsoDate; amount: string }>;
}

export type BulkSubscriptionErrorCode =
  | 'IDENTIFIER_REQUIRED'
  | 'SUBSCRIPTION_NOT_FOUND'
  | 'MULTIPLE_SUBSCRIPTIONS_MATCH';
export type BulkUpdateErrorCode =
  | 'INSTALLMENT_NOT_FOUND'
  | 'INSTALLMENT_NOT_PENDING'
  | 'DUPLICATE_PAYMENT_DATE'
  | 'DUPLICATE_DATE_IN_REQUEST';

export const BULK_ERROR_MESSAGES: Record<BulkSubscriptionErrorCode | BulkUpdateErrorCode, string> = {
  IDENTIFIER_REQUIRED: 'custom_identifier, custom_identifier2 or pay_request_id is required',
  SUBSCRIPTION_NOT_FOUND: 'No pending or active subscription matches the identifiers',
  MULTIPLE_SUBSCRIPTIONS_MATCH:
    'More than one subscription matches the identifiers; give custom_identifier2 or pay_request_id to choose one',
  INSTALLMENT_NOT_FOUND: 'No pending installment of the subscription has this payment date',
  INSTALLMENT_NOT_PENDING:
    'The installment on this payment date is not pending (or is installment 1, settled by the link)',
  DUPLICATE_PAYMENT_DATE: 'More than one pending installment of the subscription has this payment date',
  DUPLICATE_DATE_IN_REQUEST: 'The request names this payment date of the subscription more than once',
};

/** One update to apply, keyed by its position in the whole request. */
export interface AmountUpdate {
  key: number;
  subscriptionId: number;
  paymentDate: IsoDate;
  amount: string;
}

export type OperationResolution =
  | { kind: 'found'; subscription: Subscription }
  | { kind: 'failed'; code: BulkSubscriptionErrorCode };

export interface BulkPlan {
  resolutions: OperationResolution[];
  /** Updates that go to the store. */
  updates: AmountUpdate[];
  /** Updates refused before the store, by key. */
  refused: Map<number, BulkUpdateErrorCode>;
  /** Key of each (operation, update) position. */
  keys: number[][];
}

/** The criteria of each operation that has any, by operation index. */
export function bulkCriteria(operations: BulkOperation[]): Map<number, SubscriptionCriteria> {
  const criteria = new Map<number, SubscriptionCriteria>();
  operations.forEach((operation, index) => {
    const normalized = criteriaOf(operation.customIdentifier, operation.customIdentifier2, operation.linkId);
    if (hasIdentifier(normalized)) criteria.set(index, normalized);
  });
  return criteria;
}

/**
 * Decides each operation's subscription from the matches found, and which updates go to the store. The
 * same date named twice for one subscription (even from two operations naming the same subscription)
 * is refused for each of them: which amount is meant cannot be known.
 */
export function planBulk(operations: BulkOperation[], matches: Map<number, Subscription[]>): BulkPlan {
  const criteria = bulkCriteria(operations);
  const resolutions: OperationResolution[] = operations.map((_, index) => {
    if (!criteria.has(index)) return { kind: 'failed', code: 'IDENTIFIER_REQUIRED' };
    const found = matches.get(index) ?? [];
    if (found.length === 0) return { kind: 'failed', code: 'SUBSCRIPTION_NOT_FOUND' };
    if (found.length > 1) return { kind: 'failed', code: 'MULTIPLE_SUBSCRIPTIONS_MATCH' };
    return { kind: 'found', subscription: found[0] as Subscription };
  });

  let next = 0;
  const keys = operations.map((operation) => operation.updates.map(() => next++));
  const candidates: AmountUpdate[] = [];
  const timesNamed = new Map<string, number>();
  operations.forEach((operation, index) => {
    const resolution = resolutions[index];
    if (resolution?.kind !== 'found') return;
    operation.updates.forEach((update, position) => {
      const subscriptionId = resolution.subscription.id;
      const dateKey = `${subscriptionId}|${update.paymentDate}`;
      timesNamed.set(dateKey, (timesNamed.get(dateKey) ?? 0) + 1);
      candidates.push({
        key: keys[index]?.[position] as number,
        subscriptionId,
        paymentDate: update.paymentDate,
        amount: update.amount,
      });
    });
  });
  const refused = new Map<number, BulkUpdateErrorCode>();
  const updates: AmountUpdate[] = [];
  for (const candidate of candidates) {
    if ((timesNamed.get(`${candidate.subscriptionId}|${candidate.paymentDate}`) ?? 0) > 1) {
      refused.set(candidate.key, 'DUPLICATE_DATE_IN_REQUEST');
    } else {
      updates.push(candidate);
    }
  }
  return { resolutions, updates, refused, keys };
}

/** What the store found for one update: how many installments the date matched, and the updated one. */
export interface DateMatch {
  key: number;
  /** Pending installments from the 2nd on with that date. */
  pendingMatches: number;
  /** Installments of any status with that date. */
  allMatches: number;
  /** Present when the update was applied. */
  updated?: Installment;
  /** The amount it had before, when updated. */
  previousAmount?: string;
}

export type UpdateOutcome =
  | { kind: 'updated'; installment: Installment }
  | { kind: 'failed'; code: BulkUpdateErrorCode };

export function outcomeOf(match: DateMatch): UpdateOutcome {
  if (match.updated) return { kind: 'updated', installment: match.updated };
  if (match.pendingMatches > 1) return { kind: 'failed', code: 'DUPLICATE_PAYMENT_DATE' };
  // One pending match not updated: it stopped being pending meanwhile.
  if (match.pendingMatches === 1 || match.allMatches > 0)
    return { kind: 'failed', code: 'INSTALLMENT_NOT_PENDING' };
  return { kind: 'failed', code: 'INSTALLMENT_NOT_FOUND' };
}

export interface BulkUpdateResult {
  paymentDate: IsoDate;
  outcome: UpdateOutcome | { kind: 'skipped' };
}

export interface BulkOperationResult {
  customIdentifier: string | null;
  customIdentifier2: string | null;
  linkId: number | null;
  status: 'success' | 'failed';
  updates: BulkUpdateResult[];
  error?: { code: BulkSubscriptionErrorCode; message: string };
}

export interface BulkResult {
  summary: {
    subscriptionsReceived: number;
    subscriptionsProcessed: number;
    updatesApplied: number;
    updatesFailed: number;
  };
  results: BulkOperationResult[];
}

/**
 * The response: one result per operation, in request order. A result fails only with a subscription-level
 * error, and then each of its updates counts as failed (`skipped`: not attempted); a found subscription is
 * a success whatever its updates did, each with its own status.
 */
export function assembleBulkResult(
  operations: BulkOperation[],
  plan: BulkPlan,
  matches: DateMatch[],
): BulkResult {
  const byKey = new Map(matches.map((match) => [match.key, match]));
  let updatesApplied = 0;
  let updatesFailed = 0;
  let subscriptionsProcessed = 0;
  const results = operations.map((operation, index): BulkOperationResult => {
    const resolution = plan.resolutions[index] as OperationResolution;
    const echo = {
      customIdentifier: operation.customIdentifier,
      customIdentifier2: operation.customIdentifier2,
      linkId: operation.linkId ?? null,
    };
    if (resolution.kind === 'failed') {
      updatesFailed += operation.updates.length;
      return {
        ...echo,
        status: 'failed',
        updates: operation.updates.map((update) => ({
          paymentDate: update.paymentDate,
          outcome: { kind: 'skipped' },
        })),
        error: { code: resolution.code, message: BULK_ERROR_MESSAGES[resolution.code] },
      };
    }
    subscriptionsProcessed += 1;
    const updates = operation.updates.map((update, position): BulkUpdateResult => {
      const key = plan.keys[index]?.[position] as number;
      const refused = plan.refused.get(key);
      const match = byKey.get(key);
      const outcome: UpdateOutcome = refused
        ? { kind: 'failed', code: refused }
        : match
          ? outcomeOf(match)
          : { kind: 'failed', code: 'INSTALLMENT_NOT_FOUND' };
      if (outcome.kind === 'updated') updatesApplied += 1;
      else updatesFailed += 1;
      return { paymentDate: update.paymentDate, outcome };
    });
    return { ...echo, status: 'success', updates };
  });
  return {
    summary: {
      subscriptionsReceived: operations.length,
      subscriptionsProcessed,
      updatesApplied,
      updatesFailed,
    },
    results,
  };
}
