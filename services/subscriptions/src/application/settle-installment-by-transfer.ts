import { InstallmentNotFound, MultipleInstallmentsMatch, NoInstallmentOnDate } from '../domain/errors';
import type { IsoDate } from '@payrail/time';
import type { SubscriptionCriteria } from '../domain/identifiers';
import { type Installment, payByTransfer } from '../domain/installment';
import type { Subscription } from '../domain/subscription';
import type { TransferSettlement } from '../ports/transfer-settlement-store';
import type { SubscriptionStores } from '../ports/unit-of-work';
import { applyChanges } from './apply-changes';
import type { UseCaseDeps } from './deps';
import { findSubscriptionForUpdate } from './find-subscription';

export type TransferTarget =
  | { installmentId: number }
  | { criteria: SubscriptionCriteria; paymentDate: IsoDate };

export interface TransferSettlementRequest {
  /** The merchant's bank reference: the key that makes asking twice pay once. */
  reference: string;
  /** processor-gateway's id of the transfer: the payment's `txId`. */
  txId: string;
  /** Two-decimal string. */
  amount: string;
  currency: string | null;
  bankName: string;
  transferDate: string;
  note: string | null;
  target: TransferTarget;
}

export interface SettledInstallment {
  subscription: Subscription;
  installment: Installment;
}

/**
 * Internal, called by processor-gateway for `POST /api/bank-notification/add`: a transfer the merchant
 * notified pays a pending installment, which is then never charged. In one transaction: the installment
 * becomes paid, the settlement is recorded under the bank reference, `installment.paid` (BANK_TRANSFER, the
 * transfer's id in processor-gateway as `txId`) goes to the outbox. Asked again with the same reference (a retry after a lost answer or a crash), it answers
 * the installment that reference paid and changes nothing. A refusal changes nothing either.
 */
export async function settleInstallmentByTransfer(
  deps: UseCaseDeps,
  merchantId: string,
  request: TransferSettlementRequest,
): Promise<SettledInstallment> {
  const recorded = await deps.stores.transfers.findTransferSettlement(merchantId, request.reference);
  if (recorded) return settledBy(deps.stores, recorded);
  return deps.stores.transaction(async (stores) => {
    const at = deps.clock.now();
    const { subscription, installment } = await locate(stores, merchantId, request.target);
    // A duplicate that waited for the lock finds what the first one did, instead of "already paid".
    const settledMeanwhile = await stores.transfers.findTransferSettlement(merchantId, request.reference);
    if (settledMeanwhile) return settledBy(stores, settledMeanwhile);

    const paid = payByTransfer(installment, request, subscription, at);
    const installments = await stores.installments.installmentsOf(subscription.id);
    const result = await applyChanges(stores, {
      subscription,
      installments,
      changed: [paid],
      at,
      payment: {
        method: 'BANK_TRANSFER',
        bankReference: request.reference,
        txId: request.txId,
        bankTransfer: {
          reference: request.reference,
          bankName: request.bankName,
          transferDate: request.transferDate,
          note: request.note,
        },
      },
    });
    await stores.transfers.recordTransferSettlement({
      merchantId,
      reference: request.reference,
      installmentId: paid.id,
      subscriptionId: subscription.id,
      amount: paid.amount,
      settledAt: at,
    });
    return { subscription: result.subscription, installment: paid };
  });
}

/** The merchant's installment (its subscription locked), by id or by identifiers and date. */
async function locate(
  stores: SubscriptionStores,
  merchantId: string,
  target: TransferTarget,
): Promise<SettledInstallment> {
  if ('installmentId' in target) {
    const found = await stores.installments.findInstallment(merchantId, target.installmentId);
    if (!found) throw new InstallmentNotFound(target.installmentId, ['installmentId']);
    return found;
  }
  const subscription = await findSubscriptionForUpdate(stores, merchantId, target.criteria);
  const onDate = (await stores.installments.installmentsOf(subscription.id)).filter(
    (installment) => installment.paymentDate === target.paymentDate,
  );
  const [only, ...others] = onDate;
  if (!only) throw new NoInstallmentOnDate(target.paymentDate);
  if (others.length > 0) throw new MultipleInstallmentsMatch(onDate.length, target.paymentDate);
  return { subscription, installment: only };
}

async function settledBy(
  stores: SubscriptionStores,
  settlement: TransferSettlement,
): Promise<SettledInstallment> {
  const found = await stores.installments.findInstallment(settlement.merchantId, settlement.installmentId);
  if (!found) throw new Error(`Installment ${settlement.installmentId} of a settlement is gone`);
  return found;
}
