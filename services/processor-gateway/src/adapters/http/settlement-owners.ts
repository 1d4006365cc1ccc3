import {
  INTERNAL_SETTLE_PATH,
  type MerchantContext,
  type SettleInstallmentByTransferRequest,
  type SettleLinkByTransferRequest,
  settleInstallmentByTransferResponse,
  settleLinkByTransferResponse,
} from '@payrail/contracts';
import { callWithDeadline, DEFAULT_UPSTREAM_TIMEOUT_MS, signMerchantContext } from '@payrail/http';
import { currentTraceHeaders } from '@payrail/observability';
import type { Upstream } from '@payrail/runtime';
import type { Settlement, TransferNotification } from '../../domain/bank-transfer';
import {
  OwnerUnavailable,
  type SettlementOutcome,
  type SettlementOwners,
  type SettlementRefusal,
} from '../../ports/settlement-owners';

export interface HttpSettlementOwnersOptions {
  links: Upstream;
  subscriptions: Upstream;
  internalSecret: string;
  /** A person is waiting for the answer. */
  timeoutMs?: number;
}

const REFUSALS = new Set([404, 409, 422]);

async function call(
  upstream: Upstream,
  merchant: MerchantContext,
  body: SettleLinkByTransferRequest | SettleInstallmentByTransferRequest,
  options: HttpSettlementOwnersOptions,
): Promise<{ status: number; json: unknown }> {
  const headers = new Headers({ 'content-type': 'application/json', ...currentTraceHeaders() });
  for (const [name, value] of Object.entries(signMerchantContext(merchant, options.internalSecret))) {
    headers.set(name, value);
  }
  let response: Response;
  try {
    response = await callWithDeadline(
      upstream,
      new Request(`http://internal${INTERNAL_SETTLE_PATH}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      }),
      options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    );
  } catch (error) {
    throw new OwnerUnavailable(`the owner of the target did not answer: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

function refusalOf(status: number, json: unknown): SettlementRefusal {
  const problem = (json ?? {}) as Partial<SettlementRefusal>;
  return {
    status: status as SettlementRefusal['status'],
    code: typeof problem.code === 'string' ? problem.code : 'SETTLEMENT_REFUSED',
    detail: typeof problem.detail === 'string' ? problem.detail : 'The target cannot be settled',
    errors: Array.isArray(problem.errors) ? problem.errors : [],
  };
}

/**
 * The owners over internal HTTP, with the merchant context signed again for them: links settles a payment
 * link, subscriptions an installment. Their refusals (404, 409, 422) are passed on as they are; anything
 * else means the outcome is not known (`OwnerUnavailable`).
 */
export function httpSettlementOwners(options: HttpSettlementOwnersOptions): SettlementOwners {
  return {
    async settle(merchant, notification: TransferNotification, txId: string): Promise<SettlementOutcome> {
      const { target } = notification;
      const common = {
        reference: notification.reference,
        amount: notification.amount,
        currency: notification.currency as SettleLinkByTransferRequest['currency'],
        txId,
        bankName: notification.bankName,
        transferDate: notification.transferDate,
        note: notification.note,
      };
      if (target.type === 'PAY_REQUEST') {
        const { status, json } = await call(
          options.links,
          merchant,
          { ...common, payRequestId: target.payRequestId },
          options,
        );
        if (REFUSALS.has(status)) return { kind: 'refused', refusal: refusalOf(status, json) };
        const paid = settleLinkByTransferResponse.safeParse(json);
        if (status !== 200 || !paid.success) throw new OwnerUnavailable(`links answered ${status}`);
        const settlement: Settlement = {
          target: { type: 'PAY_REQUEST', payRequestId: paid.data.payRequestId, statusId: paid.data.statusId },
          amount: paid.data.amount,
          currency: paid.data.currency,
        };
        return { kind: 'settled', settlement };
      }
      const byId = 'installmentId' in target;
      const { status, json } = await call(
        options.subscriptions,
        merchant,
        {
          ...common,
          installmentId: byId ? target.installmentId : null,
          customIdentifier: byId ? null : target.customIdentifier,
          customIdentifier2: byId ? null : target.customIdentifier2,
          paymentDate: byId ? null : target.paymentDate,
        },
        options,
      );
      if (REFUSALS.has(status)) return { kind: 'refused', refusal: refusalOf(status, json) };
      const paid = settleInstallmentByTransferResponse.safeParse(json);
      if (status !== 200 || !paid.success) throw new OwnerUnavailable(`subscriptions answered ${status}`);
      return {
        kind: 'settled',
        settlement: {
          target: {
            type: 'INSTALLMENT',
            installmentId: paid.data.installmentId,
            subscriptionId: paid.data.subscriptionId,
            paymentDate: paid.data.paymentDate,
            status: 'paid',
            customIdentifier: paid.data.customIdentifier,
            customIdentifier2: paid.data.customIdentifier2,
          },
          amount: paid.data.amount,
          currency: paid.data.currency,
        },
      };
    },
  };
}
