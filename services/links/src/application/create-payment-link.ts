import type { MerchantContext, Processor } from '@payrail/contracts';
import { normalizeAmount } from '@payrail/money';
import { checkMerchantRules, enabledProcessors, linkCurrency } from '../domain/merchant-rules';
import {
  expiryOf,
  type PaymentLink,
  type PaymentLinkDraft,
  type RecurrenceTerms,
} from '../domain/payment-link';
import type { CreatePaymentLinkDeps } from './deps';
import { linkCreatedEvent } from './events';

/** The request of `POST /api/saleitems/add` once its shape is valid (spec 2.1, design 5). */
export interface PaymentLinkInput {
  label: string;
  amount: number | string;
  handleValue: string;
  handleLabel: string;
  customIdentifier?: string | null;
  customIdentifier2?: string | null;
  singlePayment: boolean;
  creditAndDebitCard: boolean;
  recurrentPayment: boolean;
  recurrentPaymentType: 'STATIC' | 'DYNAMIC';
  installmentAmount?: number | string | null;
  totalPeriods?: number | null;
  dayOfMonth?: number | null;
  monthForSecondInstallment?: number | null;
  payWaitHours?: number | null;
  redirectUrl?: string | null;
  noLoginRequired?: boolean | null;
  documentNumber?: string | null;
  /** Already filtered to known processors (unknown values are dropped, spec 2.1 rule 1). */
  paymentMethods?: Processor[];
  currency?: string | null;
}

/**
 * Creates a payment link. Shape errors are the HTTP adapter's (400); this applies the merchant's
 * configuration (422) and stores the link together with its `link.created` event.
 */
export async function createPaymentLink(
  deps: CreatePaymentLinkDeps,
  merchant: MerchantContext,
  input: PaymentLinkInput,
): Promise<PaymentLink> {
  checkMerchantRules(merchant, input);
  const now = deps.clock.now();
  const draft = linkDraft(merchant, input, deps.newSlug(), now);
  return deps.links.createWithEvent(draft, (link) => linkCreatedEvent(link, merchant, now));
}

/** The link to store, from a request that passed the merchant's rules. */
export function linkDraft(
  merchant: MerchantContext,
  input: PaymentLinkInput,
  slug: string,
  now: Date,
): PaymentLinkDraft {
  const payWaitHours = input.payWaitHours ?? 0;
  return {
    merchantId: merchant.merchantId,
    slug,
    label: input.label,
    amount: normalizeAmount(input.amount),
    currency: linkCurrency(merchant, input.currency),
    handleValue: input.handleValue,
    handleLabel: input.handleLabel,
    // Clients send `""` for "none".
    customIdentifier: input.customIdentifier || null,
    customIdentifier2: input.customIdentifier2 || null,
    singlePayment: input.singlePayment,
    creditAndDebitCard: input.creditAndDebitCard,
    recurrence: recurrenceOf(input),
    payWaitHours,
    expiresAt: expiryOf(now, payWaitHours),
    redirectUrl: input.redirectUrl || null,
    noLoginRequired: input.noLoginRequired ?? false,
    documentNumber: input.documentNumber || null,
    paymentMethods: enabledProcessors(merchant.processors, input.paymentMethods),
    createdAt: now,
  };
}

function recurrenceOf(input: PaymentLinkInput): RecurrenceTerms | null {
  if (!input.recurrentPayment) return null;
  if (input.recurrentPaymentType === 'DYNAMIC') return { type: 'DYNAMIC' };
  // The adapter's schema made these required for a STATIC subscription.
  return {
    type: 'STATIC',
    installmentAmount: normalizeAmount(input.installmentAmount as number | string),
    // `null` (sent as such): open-ended, every month until cancelled.
    totalPeriods: input.totalPeriods ?? null,
    dayOfMonth: input.dayOfMonth as number,
    monthForSecondInstallment: input.monthForSecondInstallment as number,
  };
}
