import type { CustomerSubscriptionView, MerchantContext } from '@payrail/contracts';
import type { PaymentLink } from '../domain/payment-link';
import { type CardPayments, CardPaymentsUnavailable, type PaymentDescription } from '../ports/card-payments';
import type { PaymentLinkRepository } from '../ports/payment-link-repository';
import { type Subscriptions, SubscriptionsUnavailable } from '../ports/subscriptions';
import { type VaultCard, type VaultCards, VaultUnavailable } from '../ports/vault-cards';

/**
 * The customer's own page (`/pay/account`, issue 29): their subscriptions, payments and cards at the
 * session's merchant, read where each is kept (subscriptions, links, processor-gateway's vault and charges).
 * Everything is asked with the customer's id and the merchant's context: nothing of another customer or
 * another merchant can come back. A part that cannot be read now is undefined (the page says so).
 */

export interface CustomerAccountDeps {
  links: PaymentLinkRepository;
  subscriptions: Subscriptions;
  cards: CardPayments;
  vault: VaultCards;
}

export interface AccountSubscription {
  view: CustomerSubscriptionView;
  /** The label of the link that made it: the customer knows the subscription by it. */
  label: string;
  /** The card it is charged to, as the vault tells it (undefined: none, or the vault is unavailable). */
  card: VaultCard | undefined;
}

/** One money movement of the customer at the merchant: a link paid on the pay page, or an installment. */
export interface AccountPayment {
  /** processor-gateway's charge id: the webhooks' `txId`. */
  id: string;
  label: string;
  /** The installment it paid (2 and later), or null for a link's payment (installment 1 included). */
  installmentNumber: number | null;
  amount: string;
  currency: string;
  paidAt: Date;
  brand: string | null;
  last4: string | null;
}

export interface CustomerAccount {
  subscriptions: AccountSubscription[] | undefined;
  payments: AccountPayment[] | undefined;
  cards: VaultCard[] | undefined;
}

async function orUndefined<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (
      error instanceof SubscriptionsUnavailable ||
      error instanceof CardPaymentsUnavailable ||
      error instanceof VaultUnavailable
    ) {
      return undefined;
    }
    throw error;
  }
}

export async function customerAccount(
  deps: CustomerAccountDeps,
  merchant: MerchantContext,
  customerId: number,
): Promise<CustomerAccount> {
  const [views, cards, paidLinks] = await Promise.all([
    orUndefined(deps.subscriptions.ofCustomer(merchant, customerId)),
    orUndefined(deps.vault.list(merchant, customerId)),
    deps.links.paidByCustomer(merchant.merchantId, customerId),
  ]);
  const linkIds = (views ?? []).map((view) => view.linkId);
  const links = new Map<number, PaymentLink>(
    (await deps.links.findManyForMerchant(merchant.merchantId, linkIds)).map((link) => [link.id, link]),
  );
  const subscriptions = views?.map((view) => ({
    view,
    label: links.get(view.linkId)?.label ?? '',
    card: cards?.find((card) => card.paymentMethodId === view.paymentMethodId),
  }));

  const drafts: Array<Omit<AccountPayment, 'brand' | 'last4'>> = [];
  for (const link of paidLinks) {
    if (!link.paidChargeId || !link.paidAt) continue;
    drafts.push({
      id: link.paidChargeId,
      label: link.label,
      installmentNumber: null,
      amount: link.amount,
      currency: link.currency,
      paidAt: link.paidAt,
    });
  }
  for (const subscription of subscriptions ?? []) {
    for (const installment of subscription.view.installments) {
      // Installment 1 is the link's payment, listed above.
      if (installment.number < 2 || !installment.chargeId || !installment.paidAt) continue;
      drafts.push({
        id: installment.chargeId,
        label: subscription.label,
        installmentNumber: installment.number,
        amount: installment.amount,
        currency: subscription.view.currency,
        paidAt: new Date(installment.paidAt),
      });
    }
  }
  const described = await orUndefined(
    deps.cards.describePayments(
      merchant,
      drafts.map((draft) => draft.id),
    ),
  );
  const byId = new Map<string, PaymentDescription>((described ?? []).map((row) => [row.chargeId, row]));
  const payments = drafts
    .map((draft) => ({
      ...draft,
      brand: byId.get(draft.id)?.brand ?? null,
      last4: byId.get(draft.id)?.last4 ?? null,
    }))
    .sort((a, b) => b.paidAt.getTime() - a.paidAt.getTime());
  return { subscriptions, payments: views === undefined ? undefined : payments, cards };
}
