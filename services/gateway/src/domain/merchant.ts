import {
  type Currency,
  type CustomerEmailSettings,
  DEFAULT_CUSTOMER_EMAIL_SETTINGS,
  INSTANCE_CURRENCIES,
  type INSTANCES,
  type Processor,
  PROCESSORS,
} from '@payrail/contracts';
import { InvalidMerchantSettings } from './errors';

type Instance = (typeof INSTANCES)[number];

/** What an operator configures for a merchant; services receive it in the signed merchant context. */
export interface MerchantSettings {
  name: string;
  instance: Instance;
  currency: Currency;
  saasContract: boolean;
  noLoginEnabled: boolean;
  /** The paying customer may cancel their own subscription on their page (issue 29); off by default. */
  customerCancelAllowed: boolean;
  callbackUrl: string | null;
  timezone: string;
  processors: Processor[];
  /** Which e-mails the merchant's customers get (issue 29). */
  customerEmails: CustomerEmailSettings;
  /** The `Reply-To` of those e-mails. */
  contactEmail: string | null;
}

export interface NewMerchantRequest {
  name: string;
  instance: Instance;
  currency?: Currency;
  saasContract: boolean;
  noLoginEnabled: boolean;
  customerCancelAllowed?: boolean;
  callbackUrl?: string | null;
  timezone: string;
  processors?: Processor[];
  customerEmails?: CustomerEmailSettings;
  contactEmail?: string | null;
}

/** Spec 2.5: a national instance charges PYG; an international one USD (default) or EUR. */
export function defaultCurrency(instance: Instance): Currency {
  return INSTANCE_CURRENCIES[instance][0];
}

export function newMerchantSettings(request: NewMerchantRequest): MerchantSettings {
  return checked({
    name: request.name,
    instance: request.instance,
    currency: request.currency ?? defaultCurrency(request.instance),
    saasContract: request.saasContract,
    noLoginEnabled: request.noLoginEnabled,
    customerCancelAllowed: request.customerCancelAllowed ?? false,
    callbackUrl: request.callbackUrl ?? null,
    timezone: request.timezone,
    processors: request.processors ?? [...PROCESSORS],
    customerEmails: request.customerEmails ?? DEFAULT_CUSTOMER_EMAIL_SETTINGS,
    contactEmail: request.contactEmail ?? null,
  });
}

/**
 * Applies a partial change. Moving to the other instance without naming a currency takes that
 * instance's default, since the old currency would not be offered there.
 */
export function updatedSettings(
  current: MerchantSettings,
  change: Partial<MerchantSettings>,
): MerchantSettings {
  const next: MerchantSettings = { ...current };
  for (const [field, value] of Object.entries(change) as Array<[keyof MerchantSettings, unknown]>) {
    if (value !== undefined) Object.assign(next, { [field]: value });
  }
  if (change.instance && !change.currency && !offers(next.instance, next.currency)) {
    next.currency = defaultCurrency(next.instance);
  }
  return checked(next);
}

function offers(instance: Instance, currency: Currency): boolean {
  return (INSTANCE_CURRENCIES[instance] as readonly Currency[]).includes(currency);
}

function checked(settings: MerchantSettings): MerchantSettings {
  if (!offers(settings.instance, settings.currency)) {
    throw new InvalidMerchantSettings(
      'currency',
      `a ${settings.instance} instance offers ${INSTANCE_CURRENCIES[settings.instance].join(' or ')}, not ${settings.currency}`,
    );
  }
  if (settings.processors.length === 0) {
    throw new InvalidMerchantSettings('processors', 'a merchant needs at least one processor');
  }
  return settings;
}
