import { type Executor, rowsOf } from '@payrail/db';
import { eq, sql } from 'drizzle-orm';
import type {
  LinkStatusChange,
  ProjectionKeys,
  WebhookProjectionStore,
} from '../../ports/webhook-projection';
import { webhookInstallments, webhookLinks, webhookPaidCounts, webhookSubscriptions } from './schema';

/** The upsert of `saveLink`, for the rows of one statement (each link once: no row updated twice). */
export const savedLinkColumns = {
  merchantId: sql`excluded.merchant_id`,
  label: sql`excluded.label`,
  amount: sql`excluded.amount`,
  currency: sql`excluded.currency`,
  customIdentifier: sql`excluded.custom_identifier`,
  customIdentifier2: sql`excluded.custom_identifier2`,
  recurrent: sql`excluded.recurrent`,
  totalPeriods: sql`excluded.total_periods`,
  statusId: sql`excluded.status_id`,
  subscriptionId: sql`coalesce(${webhookLinks.subscriptionId}, excluded.subscription_id)`,
  txId: sql`excluded.tx_id`,
};

/** Integers as one `int[]` parameter: the statement's text is the same whatever their number. */
const intArray = (values: number[]) => `{${values.map((value) => Math.trunc(value)).join(',')}}`;

/**
 * A batch's projection rows, and those they lead to (see `loadProjection`), and the paid counts of every
 * subscription named or met (the keys', the installments', those read); one row of four JSON texts.
 * Each table is read by its key with `= any(array(...))`: an index lookup whatever the planner knows of
 * the tables (`key = any($1) or key in (select ...)` read every row of each, once per batch).
 */
export const loadProjectionStatement = (keys: ProjectionKeys) => sql`
  with i as (
    select * from ${webhookInstallments} where installment_id = any(${intArray(keys.installmentIds)}::int[])
  ),
  s1 as (
    select * from ${webhookSubscriptions}
     where subscription_id = any(array(
       select unnest(${intArray(keys.subscriptionIds)}::int[]) union select subscription_id from i))
  ),
  l as (
    select * from ${webhookLinks}
     where link_id = any(array(select unnest(${intArray(keys.linkIds)}::int[]) union select link_id from s1))
  ),
  s as (
    select * from s1
    union
    select * from ${webhookSubscriptions} where subscription_id = any(array(select subscription_id from l))
  ),
  pc as (
    select * from ${webhookPaidCounts}
     where subscription_id = any(array(
       select unnest(${intArray(keys.subscriptionIds)}::int[]) union select subscription_id from i
       union select subscription_id from s))
  )
  select
    (select coalesce(json_agg(json_build_object(
       'linkId', link_id, 'merchantId', merchant_id, 'label', label, 'amount', amount, 'currency', currency,
       'customIdentifier', custom_identifier, 'customIdentifier2', custom_identifier2, 'recurrent', recurrent,
       'totalPeriods', total_periods, 'statusId', status_id, 'subscriptionId', subscription_id, 'txId', tx_id)),
       '[]') from l)::text as links,
    (select coalesce(json_agg(json_build_object(
       'subscriptionId', subscription_id, 'merchantId', merchant_id, 'linkId', link_id,
       'totalPeriods', total_periods)), '[]') from s)::text as subscriptions,
    (select coalesce(json_agg(json_build_object(
       'installmentId', installment_id, 'subscriptionId', subscription_id, 'number', number, 'txId', tx_id)),
       '[]') from i)::text as installments,
    (select coalesce(json_agg(json_build_object('subscriptionId', subscription_id, 'paidCount', paid_count)),
       '[]') from pc)::text as paid_counts`;

/**
 * Links' new statuses, each as `setLinkStatus` would (`sets_tx` false keeps the stored tx_id), in one
 * statement of one text whatever the count (prepared once per connection). The links are found by key with
 * `= any(array(...))`: an index lookup each, whatever the planner knows (joined to the given rows, it read
 * every link of the table once per batch).
 */
export const setLinkStatusesStatement = (changes: LinkStatusChange[]) => sql`
  with x as (
    select * from json_to_recordset(${JSON.stringify(
      changes.map(({ linkId, statusId, txId }) => ({
        link_id: linkId,
        status_id: statusId,
        sets_tx: txId !== undefined,
        tx_id: txId ?? null,
      })),
    )}::json) as x(link_id int, status_id int, sets_tx boolean, tx_id text)
  )
  update ${webhookLinks} l
     set status_id = x.status_id,
         tx_id = case when x.sets_tx then x.tx_id else l.tx_id end
    from x
   where l.link_id = any(array(select link_id from x)) and l.link_id = x.link_id`;

/** The projection's rows, on the database or in the caller's transaction (the consumer's). */
export function postgresWebhookProjectionStore(tx: Executor): WebhookProjectionStore {
  return {
    async saveLink(link) {
      await tx
        .insert(webhookLinks)
        .values(link)
        .onConflictDoUpdate({
          target: webhookLinks.linkId,
          set: {
            ...link,
            subscriptionId: sql`coalesce(${webhookLinks.subscriptionId}, excluded.subscription_id)`,
          },
        });
    },
    async saveLinks(links) {
      if (links.length === 0) return;
      // One statement, the same text whatever the batch's size (prepared once; no SQL built per row). A
      // statement may not update a row twice, so a link met more than once is folded first into what
      // `saveLink` one after the other would leave: the last row's columns, and the first subscription id
      // given (the stored one before all).
      const rows = links.map((link, ord) => ({
        ord,
        link_id: link.linkId,
        merchant_id: link.merchantId,
        label: link.label,
        amount: link.amount,
        currency: link.currency,
        custom_identifier: link.customIdentifier,
        custom_identifier2: link.customIdentifier2,
        recurrent: link.recurrent,
        total_periods: link.totalPeriods,
        status_id: link.statusId,
        subscription_id: link.subscriptionId,
        tx_id: link.txId,
      }));
      await tx.execute(sql`
        with given as (
          select * from json_to_recordset(${JSON.stringify(rows)}::json) as x(
            ord int, link_id int, merchant_id uuid, label text, amount text, currency text,
            custom_identifier text, custom_identifier2 text, recurrent boolean, total_periods int,
            status_id int, subscription_id int, tx_id text)
        ),
        folded as (
          select distinct on (g.link_id) g.*,
                 (select f.subscription_id from given f
                   where f.link_id = g.link_id and f.subscription_id is not null
                   order by f.ord limit 1) as first_subscription_id
          from given g
          order by g.link_id, g.ord desc
        )
        insert into ${webhookLinks}
          (link_id, merchant_id, label, amount, currency, custom_identifier, custom_identifier2, recurrent,
           total_periods, status_id, subscription_id, tx_id)
        select link_id, merchant_id, label, amount, currency, custom_identifier, custom_identifier2, recurrent,
               total_periods, status_id, first_subscription_id, tx_id
        from folded
        on conflict (link_id) do update set
          merchant_id = excluded.merchant_id, label = excluded.label, amount = excluded.amount,
          currency = excluded.currency, custom_identifier = excluded.custom_identifier,
          custom_identifier2 = excluded.custom_identifier2, recurrent = excluded.recurrent,
          total_periods = excluded.total_periods, status_id = excluded.status_id,
          subscription_id = coalesce(${webhookLinks.subscriptionId}, excluded.subscription_id),
          tx_id = excluded.tx_id`);
    },
    async findLink(linkId) {
      const [row] = await tx.select().from(webhookLinks).where(eq(webhookLinks.linkId, linkId));
      return row ?? null;
    },
    async setLinkStatus(linkId, statusId, txId) {
      await tx
        .update(webhookLinks)
        .set(txId === undefined ? { statusId } : { statusId, txId })
        .where(eq(webhookLinks.linkId, linkId));
    },
    async setLinkStatuses(changes) {
      if (changes.length === 0) return;
      await tx.execute(setLinkStatusesStatement(changes));
    },
    async saveSubscription(subscription) {
      await tx
        .insert(webhookSubscriptions)
        .values(subscription)
        .onConflictDoUpdate({ target: webhookSubscriptions.subscriptionId, set: subscription });
      await tx
        .update(webhookLinks)
        .set({ subscriptionId: subscription.subscriptionId })
        .where(eq(webhookLinks.linkId, subscription.linkId));
    },
    async findSubscription(subscriptionId) {
      const [row] = await tx
        .select()
        .from(webhookSubscriptions)
        .where(eq(webhookSubscriptions.subscriptionId, subscriptionId));
      return row ?? null;
    },
    async saveInstallments(installments) {
      if (installments.length === 0) return;
      const rows = installments.map(({ installmentId, subscriptionId, number }) => ({
        installment_id: installmentId,
        subscription_id: subscriptionId,
        number,
      }));
      // One text whatever the count (prepared once per connection); a row already there keeps its tx_id.
      await tx.execute(sql`
        insert into ${webhookInstallments} (installment_id, subscription_id, number)
        select installment_id, subscription_id, number
          from json_to_recordset(${JSON.stringify(rows)}::json)
            as x(installment_id int, subscription_id int, number int)
        on conflict (installment_id) do update set
          subscription_id = excluded.subscription_id, number = excluded.number`);
    },
    async findInstallment(installmentId) {
      const [row] = await tx
        .select()
        .from(webhookInstallments)
        .where(eq(webhookInstallments.installmentId, installmentId));
      return row ?? null;
    },
    async loadProjection(keys) {
      const [row] = rowsOf<{
        links: string;
        subscriptions: string;
        installments: string;
        paid_counts: string;
      }>(await tx.execute(loadProjectionStatement(keys)));
      return {
        links: JSON.parse(row?.links ?? '[]'),
        subscriptions: JSON.parse(row?.subscriptions ?? '[]'),
        installments: JSON.parse(row?.installments ?? '[]'),
        paidCounts: JSON.parse(row?.paid_counts ?? '[]'),
      };
    },
    async findPaidCount(subscriptionId) {
      const [row] = await tx
        .select({ paidCount: webhookPaidCounts.paidCount })
        .from(webhookPaidCounts)
        .where(eq(webhookPaidCounts.subscriptionId, subscriptionId));
      return row?.paidCount ?? 0;
    },
    async savePaidCounts(counts) {
      if (counts.length === 0) return;
      const rows = counts.map(({ subscriptionId, paidCount }) => ({
        subscription_id: subscriptionId,
        paid_count: paidCount,
      }));
      // One text whatever the count; a count never goes down (a late or repeated payment changes nothing).
      await tx.execute(sql`
        insert into ${webhookPaidCounts} (subscription_id, paid_count)
        select subscription_id, max(paid_count)
          from json_to_recordset(${JSON.stringify(rows)}::json) as x(subscription_id int, paid_count int)
         group by subscription_id
        on conflict (subscription_id) do update
          set paid_count = greatest(${webhookPaidCounts.paidCount}, excluded.paid_count)`);
    },
  };
}
