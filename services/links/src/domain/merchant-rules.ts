import { amountCurrencyProblem, INSTANCE_CURRENCIES, type MerchantContext } from '@payrail/contracts';
import { AmountNotInCurrency, MerchantRuleViolation } from './errors';

/** What a link request asks of the merchant's configuration (spec 2.1, 5.3; design 4). */
export interface LinkRequestFeatures {
  recurrentPayment: boolean;
  recurrentPaymentType: 'STATIC' | 'DYNAMIC';
  noLoginRequired?: boolean | null;
  redirectUrl?: string | null;
  currency?: string | null;
  amount?: number | string;
  installmentAmount?: number | string | null;
}

/** The 422 rules: a well-formed request the merchant's configuration does not allow. */
export function checkMerchantRules(merchant: MerchantContext, request: LinkRequestFeatures): void {
  if (request.noLoginRequired && !merchant.noLoginEnabled) {
    throw new MerchantRuleViolation(
      'NO_LOGIN_NOT_ENABLED',
      'noLoginRequired is not enabled for this merchant',
      'noLoginRequired',
    );
  }
  if (request.recurrentPayment && request.recurrentPaymentType === 'DYNAMIC' && !merchant.saasContract) {
    throw new MerchantRuleViolation(
      'SAAS_CONTRACT_REQUIRED',
      'DYNAMIC subscriptions are only for merchants with a SaaS contract',
      'recurrentPaymentType',
    );
  }
  // `""` is what some clients send for "no redirect".
  if (request.redirectUrl) {
    if (!merchant.callbackUrl) {
      throw new MerchantRuleViolation(
        'CALLBACK_URL_NOT_CONFIGURED',
        'redirectUrl needs a callback URL configured by the service operator',
        'redirectUrl',
      );
    }
    // Same origin as the configured callback: the pay page must not become an open redirect.
    if (originOf(request.redirectUrl) !== originOf(merchant.callbackUrl)) {
      throw new MerchantRuleViolation(
        'REDIRECT_ORIGIN_MISMATCH',
        'redirectUrl must share the origin of the configured callback URL',
        'redirectUrl',
      );
    }
  }
  const currency = requestedCurrency(request.currency);
  if (currency && !currenciesOf(merchant).includes(currency)) {
    throw new MerchantRuleViolation(
      'CURRENCY_NOT_OFFERED',
      `currency ${currency} is not offered by this merchant's ${merchant.instance} instance`,
      'currency',
    );
  }
  checkAmountsFitCurrency(linkCurrency(merchant, request.currency), request);
}

/** No fraction of a guaraní: each amount of the link has at most the decimals of its currency (400). */
function checkAmountsFitCurrency(currency: string, request: LinkRequestFeatures): void {
  const fields: Array<{ field: string; message: string }> = [];
  for (const field of ['amount', 'installmentAmount'] as const) {
    const amount = request[field];
    const message =
      amount === undefined || amount === null ? undefined : amountCurrencyProblem(amount, currency);
    if (message) fields.push({ field, message });
  }
  if (fields.length > 0) throw new AmountNotInCurrency(fields);
}

/** The currency a link is made in: the one asked for (already checked), else the merchant's. */
export function linkCurrency(merchant: MerchantContext, requested: string | null | undefined): string {
  return requestedCurrency(requested) ?? merchant.currency;
}

function requestedCurrency(value: string | null | undefined): string | undefined {
  const code = value?.trim().toUpperCase();
  return code ? code : undefined;
}

function currenciesOf(merchant: MerchantContext): readonly string[] {
  return INSTANCE_CURRENCIES[merchant.instance];
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Spec 4.2 is only for merchants with a SaaS contract. */
export function checkSignedInUserAllowed(merchant: MerchantContext): void {
  if (!merchant.saasContract) {
    throw new MerchantRuleViolation(
      'SAAS_CONTRACT_REQUIRED',
      'The signed-in-user endpoint is only for merchants with a SaaS contract',
    );
  }
}

/**
 * Processors for a link: those asked for that the merchant has; when none remains (or none was asked),
 * every processor the merchant has (spec 2.1 rule 1).
 */
export function enabledProcessors(
  merchantProcessors: readonly string[],
  requested: readonly string[] | undefined,
): string[] {
  const chosen = merchantProcessors.filter((processor) => requested?.includes(processor));
  return chosen.length > 0 ? chosen : [...merchantProcessors];
}
