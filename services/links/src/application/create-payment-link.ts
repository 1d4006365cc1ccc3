import { createEvent, type MerchantContext, PROCESSORS, type Processor } from '@payrail/contracts';
import { normalizeAmount } from '@payrail/money';
import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { expiryOf, type PaymentLink, type RecurrenceTerms } from '../domain/payment-link';
import { MerchantRuleViolation } from '../domain/errors';
import type { PaymentLinkRepository } from '../ports/payment-link-repository';

/** The request of `POST /api/saleitems/add` once its shape is valid (spec 2.1). */
export interface CreatePaymentLinkInput {
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
  installmentAmount?: number | string;
  totalPeriods?: number;
  dayOfMonth?: number;
  monthForSecondInstallment?: number;
  payWaitHours?: number;
  redirectUrl?: string;
  noLoginRequired?: boolean;
  documentNumber?: string;
  /** Already filtered to known processors (unknown values are dropped, spec 2.1 rule 1). */
  paymentMethods?: Processor[];
  currency?: string;
}

export interface CreatePaymentLinkDeps {
  links: PaymentLinkRepository;
  clock: { now(): Date };
  newSlug(): string;
}

/**
 * Creates a payment link. Shape errors are the HTTP adapter's (400); this applies the merchant's
 * configuration (422) and stores the link together with its `link.created` event.
 */
export async function createPaymentLink(
  deps: CreatePaymentLinkDeps,
  merchant: MerchantContext,
  input: CreatePaymentLinkInput,
): Promise<PaymentLink> {
  checkMerchantRules(merchant, input);
  const now = deps.clock.now();
  const recurrence: RecurrenceTerms | null = !input.recurrentPayment
    ? null
    : input.recurrentPaymentType === 'DYNAMIC'
      ? { type: 'DYNAMIC' }
      : {
          type: 'STATIC',
          installmentAmount: normalizeAmount(input.installmentAmount as number | string),
          totalPeriods: input.totalPeriods as number,
          dayOfMonth: input.dayOfMonth as number,
          monthForSecondInstallment: input.monthForSecondInstallment as number,
        };
  const enabled = merchant.processors.filter((p) => !input.paymentMethods?.length || input.paymentMethods.includes(p));
  const paymentMethods = enabled.length > 0 ? enabled : [...merchant.processors];
  const payWaitHours = input.payWaitHours ?? 0;

  return deps.links.createWithEvent(
    {
      merchantId: merchant.merchantId,
      slug: deps.newSlug(),
      label: input.label,
      amount: normalizeAmount(input.amount),
      currency: input.currency ?? merchant.currency,
      handleValue: input.handleValue,
      handleLabel: input.handleLabel,
      customIdentifier: input.customIdentifier || null,
      customIdentifier2: input.customIdentifier2 || null,
      singlePayment: input.singlePayment,
      creditAndDebitCard: input.creditAndDebitCard,
      recurrence,
      payWaitHours,
      expiresAt: expiryOf(now, payWaitHours),
      redirectUrl: input.redirectUrl || null,
      noLoginRequired: input.noLoginRequired ?? false,
      documentNumber: input.documentNumber ?? null,
      paymentMethods,
      createdAt: now,
    },
    (link) =>
      createEvent(
        'link.created',
        {
          linkId: link.id,
          merchantId: link.merchantId,
          slug: link.slug,
          label: link.label,
          amount: link.amount,
          currency: link.currency as MerchantContext['currency'],
          customIdentifier: link.customIdentifier,
          customIdentifier2: link.customIdentifier2,
          paymentMethods: link.paymentMethods.filter((p): p is Processor => (PROCESSORS as readonly string[]).includes(p)),
          timezone: merchant.timezone,
          createdAt: link.createdAt.toISOString(),
          createdOn: format(new TZDate(link.createdAt, merchant.timezone), 'yyyy-MM-dd'),
          recurrence: link.recurrence,
        },
        now,
      ),
  );
}

function checkMerchantRules(merchant: MerchantContext, input: CreatePaymentLinkInput): void {
  if (input.noLoginRequired && !merchant.noLoginEnabled) {
    throw new MerchantRuleViolation('NO_LOGIN_NOT_ENABLED', 'noLoginRequired is not enabled for this merchant', 'noLoginRequired');
  }
  if (input.recurrentPayment && input.recurrentPaymentType === 'DYNAMIC' && !merchant.saasContract) {
    throw new MerchantRuleViolation('SAAS_CONTRACT_REQUIRED', 'DYNAMIC subscriptions need a SaaS contract', 'recurrentPaymentType');
  }
  if (input.redirectUrl) {
    if (!merchant.callbackUrl) {
      throw new MerchantRuleViolation('CALLBACK_URL_NOT_CONFIGURED', 'redirectUrl needs a callback URL configured by the operator', 'redirectUrl');
    }
    if (originOf(input.redirectUrl) !== originOf(merchant.callbackUrl)) {
      throw new MerchantRuleViolation('REDIRECT_ORIGIN_MISMATCH', 'redirectUrl must share the origin of the configured callback URL', 'redirectUrl');
    }
  }
  if (input.currency && !currenciesOf(merchant).includes(input.currency)) {
    throw new MerchantRuleViolation('CURRENCY_NOT_OFFERED', `currency ${input.currency} is not offered by this merchant's instance`, 'currency');
  }
}

function currenciesOf(merchant: MerchantContext): string[] {
  return merchant.instance === 'NATIONAL' ? ['PYG'] : ['USD', 'EUR'];
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
