import type { CustomerEmailKind, CustomerEmailStatus } from '@payrail/contracts';
import { type Executor, rowsOf } from '@payrail/db';
import { sql } from 'drizzle-orm';
import type {
  CustomerEmailOutbox,
  CustomerEmailRow,
  CustomerEmailStore,
  DebitAhead,
  EmailCard,
  EmailInstallment,
  EmailSubscription,
} from '../../ports/customer-email-store';

interface DebitRow {
  subscription_id: string | number;
  merchant_id: string;
  link_id: string | number;
  sub_status: string;
  timezone: string;
  currency: string;
  payment_method_id: string | null;
  installment_id: string | number;
  number: number;
  payment_date: string;
  amount: string;
  status: string;
  brand: string | null;
  last4: string | null;
  expiry_month: number | null;
  expiry_year: number | null;
  customer_id: string | number | null;
}

function debitAhead(row: DebitRow): DebitAhead {
  const subscription: EmailSubscription = {
    subscriptionId: Number(row.subscription_id),
    merchantId: row.merchant_id,
    linkId: Number(row.link_id),
    status: row.sub_status,
    timezone: row.timezone,
    currency: row.currency,
    paymentMethodId: row.payment_method_id,
  };
  return {
    subscription,
    installment: {
      installmentId: Number(row.installment_id),
      subscriptionId: subscription.subscriptionId,
      number: row.number,
      paymentDate: row.payment_date,
      amount: row.amount,
      status: row.status,
    },
    card:
      row.payment_method_id && row.brand && row.last4 && row.expiry_month && row.expiry_year
        ? {
            paymentMethodId: row.payment_method_id,
            merchantId: row.merchant_id,
            customerId: Number(row.customer_id),
            brand: row.brand,
            last4: row.last4,
            expiryMonth: row.expiry_month,
            expiryYear: row.expiry_year,
          }
        : null,
  };
}

const DEBIT_COLUMNS = sql`
  s.subscription_id, s.merchant_id, s.link_id, s.status as sub_status, s.timezone, s.currency, s.payment_method_id,
  i.installment_id, i.number, i.payment_date, i.amount::text as amount, i.status,
  c.brand, c.last4, c.expiry_month, c.expiry_year, c.customer_id`;

export function postgresCustomerEmailStore(db: Executor): CustomerEmailStore {
  return {
    async saveSubscription(s) {
      await db.execute(sql`
        insert into links.email_subscriptions
          (subscription_id, merchant_id, link_id, status, timezone, currency, payment_method_id)
        values (${s.subscriptionId}, ${s.merchantId}, ${s.linkId}, ${s.status}, ${s.timezone}, ${s.currency},
                ${s.paymentMethodId})
        on conflict (subscription_id) do nothing`);
    },
    async saveInstallments(installments) {
      for (const i of installments) {
        await db.execute(sql`
          insert into links.email_installments (installment_id, subscription_id, number, payment_date, amount, status)
          values (${i.installmentId}, ${i.subscriptionId}, ${i.number}, ${i.paymentDate}, ${i.amount}, ${i.status})
          on conflict (installment_id) do update
            set payment_date = excluded.payment_date, amount = excluded.amount, status = excluded.status`);
      }
    },
    async setSubscriptionStatus(subscriptionId, status) {
      await db.execute(
        sql`update links.email_subscriptions set status = ${status} where subscription_id = ${subscriptionId}`,
      );
    },
    async setSubscriptionCard(subscriptionId, paymentMethodId) {
      await db.execute(sql`
        update links.email_subscriptions set payment_method_id = ${paymentMethodId}
        where subscription_id = ${subscriptionId}`);
    },
    async setCardOfLink(linkId, paymentMethodId) {
      await db.execute(sql`
        update links.email_subscriptions set payment_method_id = ${paymentMethodId} where link_id = ${linkId}`);
    },
    async saveCard(card) {
      await db.execute(sql`
        insert into links.email_cards
          (payment_method_id, merchant_id, customer_id, brand, last4, expiry_month, expiry_year)
        values (${card.paymentMethodId}, ${card.merchantId}, ${card.customerId}, ${card.brand}, ${card.last4},
                ${card.expiryMonth}, ${card.expiryYear})
        on conflict (payment_method_id) do nothing`);
    },
    async removeCard(paymentMethodId) {
      await db.execute(
        sql`update links.email_cards set removed = true where payment_method_id = ${paymentMethodId}`,
      );
    },
    async subscription(subscriptionId) {
      const [row] = rowsOf<{
        subscription_id: string;
        merchant_id: string;
        link_id: string;
        status: string;
        timezone: string;
        currency: string;
        payment_method_id: string | null;
      }>(
        await db.execute(
          sql`select * from links.email_subscriptions where subscription_id = ${subscriptionId}`,
        ),
      );
      return row
        ? {
            subscriptionId: Number(row.subscription_id),
            merchantId: row.merchant_id,
            linkId: Number(row.link_id),
            status: row.status,
            timezone: row.timezone,
            currency: row.currency,
            paymentMethodId: row.payment_method_id,
          }
        : undefined;
    },
    async installment(installmentId) {
      const [row] = rowsOf<{
        installment_id: string;
        subscription_id: string;
        number: number;
        payment_date: string;
        amount: string;
        status: string;
      }>(
        await db.execute(
          sql`select installment_id, subscription_id, number, payment_date, amount::text as amount, status
              from links.email_installments where installment_id = ${installmentId}`,
        ),
      );
      return row
        ? ({
            installmentId: Number(row.installment_id),
            subscriptionId: Number(row.subscription_id),
            number: row.number,
            paymentDate: row.payment_date,
            amount: row.amount,
            status: row.status,
          } satisfies EmailInstallment)
        : undefined;
    },
    async card(paymentMethodId) {
      if (!paymentMethodId) return undefined;
      const [row] = rowsOf<{
        payment_method_id: string;
        merchant_id: string;
        customer_id: string;
        brand: string;
        last4: string;
        expiry_month: number;
        expiry_year: number;
      }>(await db.execute(sql`select * from links.email_cards where payment_method_id = ${paymentMethodId}`));
      return row
        ? ({
            paymentMethodId: row.payment_method_id,
            merchantId: row.merchant_id,
            customerId: Number(row.customer_id),
            brand: row.brand,
            last4: row.last4,
            expiryMonth: row.expiry_month,
            expiryYear: row.expiry_year,
          } satisfies EmailCard)
        : undefined;
    },
    async linkOf(linkId) {
      const [row] = rowsOf<{
        label: string;
        customer_id: string | null;
        email: string | null;
        first_name: string | null;
        language: string | null;
      }>(
        await db.execute(sql`
          select l.label, c.id as customer_id, c.email, c.first_name, c.language
          from links.payment_links l
          left join links.customers c on c.id = coalesce(l.paid_customer_id, l.customer_id)
          where l.id = ${linkId}`),
      );
      if (!row) return undefined;
      return {
        label: row.label,
        recipient:
          row.customer_id === null
            ? undefined
            : {
                customerId: Number(row.customer_id),
                email: row.email,
                firstName: row.first_name ?? '',
                language: row.language,
              },
      };
    },
    async enqueue(e) {
      const result = await db.execute(sql`
        insert into links.customer_emails
          (id, merchant_id, customer_id, kind, dedupe_key, recipient, language, subject, text_body, html_body,
           from_name, reply_to, subscription_id, link_id, action_subscription_id, status, attempts, created_at,
           next_attempt_at)
        values (${e.id}, ${e.merchantId}, ${e.customerId}, ${e.kind}, ${e.dedupeKey}, ${e.recipient}, ${e.language},
                ${e.subject}, ${e.textBody}, ${e.htmlBody}, ${e.fromName}, ${e.replyTo}, ${e.subscriptionId},
                ${e.linkId}, ${e.actionSubscriptionId}, 'pending', 0, ${e.createdAt.toISOString()},
                ${e.createdAt.toISOString()})
        on conflict (dedupe_key) do nothing
        returning id`);
      return rowsOf(result).length > 0;
    },
    async rememberSimulatedDay(scope, asOf) {
      await db.execute(sql`
        insert into links.simulated_days (scope, as_of) values (${scope}, ${asOf})
        on conflict (scope) do update set as_of = greatest(links.simulated_days.as_of, excluded.as_of)`);
    },
    async simulatedDay(merchantId) {
      const [row] = rowsOf<{ as_of: string | null }>(
        await db.execute(
          sql`select max(as_of) as as_of from links.simulated_days where scope in (${merchantId}, 'all')`,
        ),
      );
      return row?.as_of ?? undefined;
    },
    async merchantsWithSubscriptions(merchantId) {
      const rows = rowsOf<{ merchant_id: string }>(
        await db.execute(sql`
          select distinct merchant_id from links.email_subscriptions
          where status in ('active', 'past_due') ${merchantId ? sql`and merchant_id = ${merchantId}` : sql``}`),
      );
      return rows.map((row) => row.merchant_id);
    },
    async pendingBetween(merchantId, from, to) {
      const rows = rowsOf<DebitRow>(
        await db.execute(sql`
          select ${DEBIT_COLUMNS}
          from links.email_subscriptions s
          join links.email_installments i on i.subscription_id = s.subscription_id
          left join links.email_cards c on c.payment_method_id = s.payment_method_id and not c.removed
          where s.merchant_id = ${merchantId} and s.status in ('active', 'past_due')
            and i.status = 'pending' and i.payment_date between ${from} and ${to}
          order by i.payment_date, i.installment_id`),
      );
      return rows.map(debitAhead);
    },
    async nextDebits(merchantId, after) {
      const rows = rowsOf<DebitRow>(
        await db.execute(sql`
          select distinct on (s.subscription_id) ${DEBIT_COLUMNS}
          from links.email_subscriptions s
          join links.email_installments i on i.subscription_id = s.subscription_id
          left join links.email_cards c on c.payment_method_id = s.payment_method_id and not c.removed
          where s.merchant_id = ${merchantId} and s.status in ('active', 'past_due')
            and i.status = 'pending' and i.payment_date > ${after}
          order by s.subscription_id, i.payment_date, i.installment_id`),
      );
      return rows.map(debitAhead);
    },
  };
}

interface EmailRowDb {
  id: string;
  merchant_id: string;
  customer_id: string;
  kind: string;
  dedupe_key: string;
  recipient: string;
  language: string;
  subject: string;
  text_body: string;
  html_body: string;
  from_name: string;
  reply_to: string | null;
  subscription_id: string | null;
  link_id: string | null;
  action_subscription_id: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: string | Date;
  next_attempt_at: string | Date | null;
  sent_at: string | Date | null;
}

const asDate = (value: string | Date | null): Date | null => (value === null ? null : new Date(value));
const asNumber = (value: string | null): number | null => (value === null ? null : Number(value));

function emailRow(row: EmailRowDb): CustomerEmailRow {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    customerId: Number(row.customer_id),
    kind: row.kind as CustomerEmailKind,
    dedupeKey: row.dedupe_key,
    recipient: row.recipient,
    language: row.language,
    subject: row.subject,
    textBody: row.text_body,
    htmlBody: row.html_body,
    fromName: row.from_name,
    replyTo: row.reply_to,
    subscriptionId: asNumber(row.subscription_id),
    linkId: asNumber(row.link_id),
    actionSubscriptionId: asNumber(row.action_subscription_id),
    status: row.status as CustomerEmailStatus,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
    nextAttemptAt: asDate(row.next_attempt_at),
    sentAt: asDate(row.sent_at),
  };
}

export function postgresCustomerEmailOutbox(db: Executor): CustomerEmailOutbox {
  return {
    async claimDue(now, leaseUntil, limit) {
      // A customer's e-mails leave in the order they were written: only the oldest pending one of each
      // customer is eligible, so a later one never overtakes one that is waiting for a retry.
      const rows = rowsOf<EmailRowDb>(
        await db.execute(sql`
          with heads as (
            select distinct on (merchant_id, customer_id) id
            from links.customer_emails
            where status = 'pending'
            order by merchant_id, customer_id, created_at, id
          ), due as (
            select e.id from links.customer_emails e join heads h on h.id = e.id
            where e.next_attempt_at <= ${now.toISOString()}
              and (e.lease_until is null or e.lease_until <= ${now.toISOString()})
            order by e.created_at, e.id
            limit ${limit}
            for update of e skip locked
          )
          update links.customer_emails e set lease_until = ${leaseUntil.toISOString()}, attempts = e.attempts + 1
          from due where e.id = due.id
          returning e.*`),
      );
      return rows
        .map(emailRow)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    },
    async markSent(id, at) {
      await db.execute(sql`
        update links.customer_emails
        set status = 'sent', sent_at = ${at.toISOString()}, lease_until = null, next_attempt_at = null
        where id = ${id}`);
    },
    async markFailedAttempt(id, error, next) {
      await db.execute(sql`
        update links.customer_emails
        set last_error = ${error}, lease_until = null,
            status = ${next === null ? 'failed' : 'pending'},
            next_attempt_at = ${next === null ? null : next.toISOString()}
        where id = ${id}`);
    },
    async saveCareLink(link) {
      await db.execute(sql`
        insert into links.care_links
          (token_hash, merchant_id, customer_id, subscription_id, email_id, created_at, expires_at)
        values (${link.tokenHash}, ${link.merchantId}, ${link.customerId}, ${link.subscriptionId}, ${link.emailId},
                ${link.createdAt.toISOString()}, ${link.expiresAt.toISOString()})`);
    },
    async careLink(tokenHash) {
      const [row] = rowsOf<{
        merchant_id: string;
        customer_id: string;
        subscription_id: string;
        expires_at: string | Date;
        used_at: string | Date | null;
      }>(await db.execute(sql`select * from links.care_links where token_hash = ${tokenHash}`));
      return row
        ? {
            merchantId: row.merchant_id,
            customerId: Number(row.customer_id),
            subscriptionId: Number(row.subscription_id),
            expiresAt: new Date(row.expires_at),
            usedAt: asDate(row.used_at),
          }
        : undefined;
    },
    async consumeCareLink(tokenHash, at) {
      const result = await db.execute(sql`
        update links.care_links set used_at = ${at.toISOString()}
        where token_hash = ${tokenHash} and used_at is null
        returning token_hash`);
      return rowsOf(result).length > 0;
    },
    async list(merchantId, filter, page) {
      const rows = rowsOf<EmailRowDb>(
        await db.execute(sql`
          select * from links.customer_emails
          where merchant_id = ${merchantId}
            ${filter.kind ? sql`and kind = ${filter.kind}` : sql``}
            ${filter.status ? sql`and status = ${filter.status}` : sql``}
            ${filter.customerId ? sql`and customer_id = ${filter.customerId}` : sql``}
            ${filter.subscriptionId ? sql`and subscription_id = ${filter.subscriptionId}` : sql``}
            ${page.beforeId ? sql`and id < ${page.beforeId}` : sql``}
          order by id desc
          limit ${page.limit}`),
      );
      return rows.map(emailRow);
    },
  };
}

/** Keeps the language of a signed-in customer's visit (written only when it changed). */
export function rememberCustomerLanguage(db: Executor) {
  return async (customerId: number, lang: string): Promise<void> => {
    await db.execute(sql`
      update links.customers set language = ${lang}
      where id = ${customerId} and language is distinct from ${lang}`);
  };
}
