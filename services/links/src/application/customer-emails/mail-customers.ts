import {
  CUSTOMER_EMAIL_SWITCH,
  type CustomerEmailKind,
  customerEmailSettings,
  DEFAULT_TIMEZONE,
  type EventData,
  type MerchantContext,
} from '@payrail/contracts';
import { addDays, type Clock, localDateTime } from '@payrail/time';
import { v7 as timeOrderedUuid } from 'uuid';
import {
  type CardShown,
  cardExpiry,
  cardLastDay,
  composeEmail,
  type EmailFacts,
  emailLang,
} from '../../domain/customer-email';
import type { CustomerEmailStore, EmailCard, EmailRecipient } from '../../ports/customer-email-store';
import type { MerchantProfiles } from '../../ports/merchant-profiles';
import { merchantToday } from './merchant-time';

export interface MailCustomersDeps {
  emails: CustomerEmailStore;
  merchants: Pick<MerchantProfiles, 'find'>;
  clock: Clock;
  simulatedTime: boolean;
}

/** What a customer e-mail is about, for the outbox row and its signed link. */
interface About {
  merchantId: string;
  recipient: EmailRecipient | undefined;
  dedupeKey: string;
  subscriptionId: number | null;
  linkId: number | null;
}

const shown = (card: EmailCard | undefined | null): CardShown | null =>
  card ? { brand: card.brand, last4: card.last4 } : null;

/**
 * Writes the e-mail to the outbox when the merchant has its kind on and the customer has an address; a
 * second event with the same key adds nothing (the inbox already keeps a redelivered message out; the key
 * keeps out the same fact told twice, e.g. a reminder of an installment the sweep and a run both see).
 */
async function enqueue(deps: MailCustomersDeps, about: About, facts: EmailFacts): Promise<boolean> {
  const recipient = about.recipient;
  if (!recipient?.email) return false;
  const merchant: MerchantContext | undefined = await deps.merchants.find(about.merchantId);
  const settings = customerEmailSettings.parse(merchant?.customerEmails ?? {});
  if (!settings[CUSTOMER_EMAIL_SWITCH[facts.kind as CustomerEmailKind]]) return false;
  const merchantName = merchant?.name ?? 'payrail';
  const lang = emailLang(recipient.language);
  const composed = composeEmail(facts, lang, recipient, merchantName);
  return deps.emails.enqueue({
    id: timeOrderedUuid(),
    merchantId: about.merchantId,
    customerId: recipient.customerId,
    kind: composed.kind,
    dedupeKey: about.dedupeKey,
    recipient: recipient.email,
    language: lang,
    subject: composed.subject,
    textBody: composed.text,
    htmlBody: composed.html,
    fromName: merchantName,
    replyTo: merchant?.contactEmail ?? null,
    subscriptionId: about.subscriptionId,
    linkId: about.linkId,
    actionSubscriptionId: composed.hasAction ? about.subscriptionId : null,
    createdAt: deps.clock.now(),
  });
}

async function timezoneOf(deps: MailCustomersDeps, merchantId: string): Promise<string> {
  return (await deps.merchants.find(merchantId))?.timezone ?? DEFAULT_TIMEZONE;
}

// ---- the projection: what links learns of subscriptions and cards -------------------------------------

export async function recordSubscriptionCreated(
  deps: MailCustomersDeps,
  data: EventData<'subscription.created'>,
): Promise<void> {
  await deps.emails.saveSubscription({
    subscriptionId: data.subscriptionId,
    merchantId: data.merchantId,
    linkId: data.linkId,
    status: data.status,
    timezone: data.timezone,
    currency: data.currency,
    paymentMethodId: null,
  });
  await deps.emails.saveInstallments(
    data.installments.map((i) => ({
      installmentId: i.installmentId,
      subscriptionId: data.subscriptionId,
      number: i.number,
      paymentDate: i.paymentDate,
      amount: i.amount,
      status: 'pending',
    })),
  );
}

export async function recordInstallments(
  deps: MailCustomersDeps,
  data: EventData<'installments.scheduled'>,
): Promise<void> {
  await deps.emails.setSubscriptionStatus(data.subscriptionId, data.status);
  await deps.emails.saveInstallments(
    data.installments.map((i) => ({
      installmentId: i.installmentId,
      subscriptionId: data.subscriptionId,
      number: i.number,
      paymentDate: i.paymentDate,
      amount: i.amount,
      status: i.status,
    })),
  );
}

export async function recordCard(
  deps: MailCustomersDeps,
  data: EventData<'payment-method.saved'>,
): Promise<void> {
  await deps.emails.saveCard({
    paymentMethodId: data.paymentMethodId,
    merchantId: data.merchantId,
    customerId: data.customerId,
    brand: data.brand,
    last4: data.last4,
    expiryMonth: data.expiryMonth,
    expiryYear: data.expiryYear,
  });
}

// ---- the e-mails ----------------------------------------------------------------------------------

/** A link paid (card or bank transfer): its receipt, and the card of its subscription. */
export async function mailLinkReceipt(deps: MailCustomersDeps, data: EventData<'link.paid'>): Promise<void> {
  const link = await deps.emails.linkOf(data.linkId);
  if (!link) return;
  const timezone = await timezoneOf(deps, data.merchantId);
  const card = await deps.emails.card(data.paymentMethodId);
  await enqueue(
    deps,
    {
      merchantId: data.merchantId,
      recipient: link.recipient,
      dedupeKey: `receipt:${data.txId ?? `link-${data.linkId}`}`,
      subscriptionId: null,
      linkId: data.linkId,
    },
    {
      kind: 'receipt',
      concept: link.label,
      amount: data.amount,
      currency: data.currency,
      paidAt: data.paidAt,
      paidAtLocal: localDateTime(new Date(data.paidAt), timezone).slice(0, 16),
      paymentId: data.txId ?? String(data.linkId),
      card: shown(card),
      bankTransfer: data.method === 'BANK_TRANSFER',
      installment: null,
    },
  );
}

/** An installment paid: its subscription's state, and its receipt (installment 1 is the link's receipt). */
export async function mailInstallmentReceipt(
  deps: MailCustomersDeps,
  data: EventData<'installment.paid'>,
): Promise<void> {
  await deps.emails.saveInstallments([
    {
      installmentId: data.installmentId,
      subscriptionId: data.subscriptionId,
      number: data.number,
      paymentDate: data.paymentDate,
      amount: data.amount,
      status: 'paid',
    },
  ]);
  if (data.number === 1) return;
  const subscription = await deps.emails.subscription(data.subscriptionId);
  if (!subscription) return;
  if (subscription.status === 'past_due')
    await deps.emails.setSubscriptionStatus(data.subscriptionId, 'active');
  const link = await deps.emails.linkOf(subscription.linkId);
  if (!link) return;
  const card = data.method === 'CARD' ? await deps.emails.card(subscription.paymentMethodId) : undefined;
  await enqueue(
    deps,
    {
      merchantId: data.merchantId,
      recipient: link.recipient,
      dedupeKey: `receipt:${data.txId ?? `installment-${data.installmentId}`}`,
      subscriptionId: data.subscriptionId,
      linkId: subscription.linkId,
    },
    {
      kind: 'receipt',
      concept: link.label,
      amount: data.amount,
      currency: data.currency,
      paidAt: data.paidAt,
      paidAtLocal: localDateTime(new Date(data.paidAt), data.timezone).slice(0, 16),
      paymentId: data.txId ?? String(data.installmentId),
      card: shown(card),
      bankTransfer: data.method === 'BANK_TRANSFER',
      installment: data.number,
    },
  );
}

/**
 * An installment's charge was declined: the customer hears why in plain words, with a signed link to give
 * the subscription another card. An outage of the processor is not the card's fault and is retried: no mail.
 */
export async function mailPaymentFailed(
  deps: MailCustomersDeps,
  data: EventData<'payment.failed'>,
): Promise<void> {
  if (data.installmentId === null) return;
  const installment = await deps.emails.installment(data.installmentId);
  if (!installment) return;
  const subscription = await deps.emails.subscription(installment.subscriptionId);
  if (!subscription) return;
  if (data.paymentMethodId)
    await deps.emails.setSubscriptionCard(subscription.subscriptionId, data.paymentMethodId);
  if (data.category === 'processor-down') return;
  const link = await deps.emails.linkOf(subscription.linkId);
  if (!link) return;
  await enqueue(
    deps,
    {
      merchantId: data.merchantId,
      recipient: link.recipient,
      dedupeKey: `payment-failed:${data.chargeId}`,
      subscriptionId: subscription.subscriptionId,
      linkId: subscription.linkId,
    },
    {
      kind: 'payment-failed',
      concept: link.label,
      amount: data.amount,
      currency: data.currency,
      category: data.category,
      card: shown(await deps.emails.card(data.paymentMethodId)),
      installment: installment.number,
    },
  );
}

/** The card that paid becomes the subscription's card (a link's first payment, a later charge). */
export async function recordSubscriptionCardOfLink(
  deps: MailCustomersDeps,
  data: EventData<'link.paid'>,
): Promise<void> {
  if (!data.recurrent || !data.paymentMethodId) return;
  // The subscription is found by its link: one subscription per recurrent link.
  await deps.emails.setCardOfLink(data.linkId, data.paymentMethodId);
}

export async function mailPastDue(
  deps: MailCustomersDeps,
  data: EventData<'subscription.past-due'>,
): Promise<void> {
  await deps.emails.setSubscriptionStatus(data.subscriptionId, 'past_due');
  const installment = await deps.emails.installment(data.installmentId);
  const link = await deps.emails.linkOf(data.linkId);
  if (!link || !installment) return;
  await enqueue(
    deps,
    {
      merchantId: data.merchantId,
      recipient: link.recipient,
      dedupeKey: `past-due:${data.installmentId}`,
      subscriptionId: data.subscriptionId,
      linkId: data.linkId,
    },
    {
      kind: 'past-due',
      concept: link.label,
      amount: installment.amount,
      currency: data.currency,
      installment: installment.number,
    },
  );
}

export async function mailCancelled(
  deps: MailCustomersDeps,
  data: EventData<'subscription.cancelled'>,
): Promise<void> {
  await deps.emails.setSubscriptionStatus(data.subscriptionId, 'cancelled');
  const link = await deps.emails.linkOf(data.linkId);
  if (!link) return;
  await enqueue(
    deps,
    {
      merchantId: data.merchantId,
      recipient: link.recipient,
      dedupeKey: `cancelled:${data.subscriptionId}`,
      subscriptionId: data.subscriptionId,
      linkId: data.linkId,
    },
    { kind: 'cancelled', concept: link.label, byDunning: data.reason === 'dunning' },
  );
}

/**
 * The reminders of a merchant (or every merchant) as of its today: an upcoming debit N days ahead (the
 * merchant's setting; 0: none), and a card that expires before its subscription's next debit (once per card
 * and subscription). Run by each as-of billing run and by the sweep; each reminder has its own key, so
 * running twice sends nothing twice.
 */
export async function remindCustomers(deps: MailCustomersDeps, merchantId: string | null): Promise<number> {
  let added = 0;
  for (const merchant of await deps.emails.merchantsWithSubscriptions(merchantId)) {
    const profile = await deps.merchants.find(merchant);
    const timezone = profile?.timezone ?? DEFAULT_TIMEZONE;
    const settings = customerEmailSettings.parse(profile?.customerEmails ?? {});
    const today = await merchantToday(deps, merchant, timezone);
    if (settings.upcomingDebitDays > 0) {
      for (const ahead of await deps.emails.pendingBetween(
        merchant,
        addDays(today, 1),
        addDays(today, settings.upcomingDebitDays),
      )) {
        const link = await deps.emails.linkOf(ahead.subscription.linkId);
        if (!link) continue;
        const sent = await enqueue(
          deps,
          {
            merchantId: merchant,
            recipient: link.recipient,
            // A debit moved to another day is reminded again on its new day.
            dedupeKey: `upcoming-debit:${ahead.installment.installmentId}:${ahead.installment.paymentDate}`,
            subscriptionId: ahead.subscription.subscriptionId,
            linkId: ahead.subscription.linkId,
          },
          {
            kind: 'upcoming-debit',
            concept: link.label,
            amount: ahead.installment.amount,
            currency: ahead.subscription.currency,
            paymentDate: ahead.installment.paymentDate,
            card: shown(ahead.card),
            installment: ahead.installment.number,
          },
        );
        if (sent) added += 1;
      }
    }
    for (const ahead of await deps.emails.nextDebits(merchant, today)) {
      const card = ahead.card;
      if (!card || cardLastDay(card.expiryMonth, card.expiryYear) >= ahead.installment.paymentDate) continue;
      const link = await deps.emails.linkOf(ahead.subscription.linkId);
      if (!link) continue;
      const sent = await enqueue(
        deps,
        {
          merchantId: merchant,
          recipient: link.recipient,
          dedupeKey: `card-expiring:${card.paymentMethodId}:${ahead.subscription.subscriptionId}`,
          subscriptionId: ahead.subscription.subscriptionId,
          linkId: ahead.subscription.linkId,
        },
        {
          kind: 'card-expiring',
          concept: link.label,
          card: { brand: card.brand, last4: card.last4 },
          expiry: cardExpiry(card.expiryMonth, card.expiryYear),
          paymentDate: ahead.installment.paymentDate,
        },
      );
      if (sent) added += 1;
    }
  }
  return added;
}

/** An as-of billing run started: under `SIMULATED_TIME` its day is the merchant's today; then the reminders. */
export async function remindOnBillingRun(
  deps: MailCustomersDeps,
  data: EventData<'billing-run.started'>,
): Promise<void> {
  if (deps.simulatedTime) await deps.emails.rememberSimulatedDay(data.merchantId ?? 'all', data.asOf);
  await remindCustomers(deps, data.merchantId);
}

/** A subscription's state as its events tell it (reminders go only to collecting ones). */
export async function recordSubscriptionStatus(
  deps: MailCustomersDeps,
  data: { subscriptionId: number; status: string },
): Promise<void> {
  await deps.emails.setSubscriptionStatus(data.subscriptionId, data.status);
}

/** A charge of an installment that succeeded: its card is the subscription's card. */
export async function recordChargedCard(
  deps: MailCustomersDeps,
  data: EventData<'payment.succeeded'>,
): Promise<void> {
  if (data.installmentId === null || !data.paymentMethodId) return;
  const installment = await deps.emails.installment(data.installmentId);
  if (installment) await deps.emails.setSubscriptionCard(installment.subscriptionId, data.paymentMethodId);
}
