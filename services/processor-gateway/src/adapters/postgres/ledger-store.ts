import type { PaymentKind, PaymentMovementMethod, PaymentStatus } from '@payrail/contracts';
import { type Executor, rowsOf } from '@payrail/db';
import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { LedgerFilter, LedgerPosition, LinkContext, Movement } from '../../domain/ledger';
import type { LedgerStore, PositionedMovement } from '../../ports/ledger-store';
import { dailyTotals, sumRowsQuickly } from './ledger-totals';
import { ledger, ledgerInstallments, ledgerLinks } from './schema';

type LedgerRow = typeof ledger.$inferSelect;

function toMovement(row: LedgerRow): Movement {
  return {
    ...row,
    kind: row.kind as PaymentKind,
    status: row.status as PaymentStatus,
    method: row.method as PaymentMovementMethod,
  };
}

/** A row of the hand-written page query: snake_case columns as the driver gives them. */
interface RawRow {
  id: string;
  merchant_id: string;
  kind: string;
  status: string;
  method: string;
  processor: string | null;
  amount: string;
  currency: string;
  refunded_amount: string;
  card_brand: string | null;
  card_last4: string | null;
  processor_reference: string | null;
  reference: string | null;
  payment_id: string | null;
  link_id: string | number | null;
  label: string | null;
  subscription_id: string | number | null;
  installment_id: string | number | null;
  installment_number: number | null;
  handle_value: string | null;
  handle_label: string | null;
  custom_identifier: string | null;
  custom_identifier2: string | null;
  decline_code: string | null;
  decline_category: string | null;
  created_at: string | Date;
  settled_at: string | Date | null;
  created_micros: string | bigint;
}

const numberOrNull = (value: string | number | null) => (value === null ? null : Number(value));
const instant = (value: string | Date) => (value instanceof Date ? value : new Date(value));

function fromRaw(row: RawRow): PositionedMovement {
  return {
    movement: {
      id: row.id,
      merchantId: row.merchant_id,
      kind: row.kind as PaymentKind,
      status: row.status as PaymentStatus,
      method: row.method as PaymentMovementMethod,
      processor: row.processor,
      amount: row.amount,
      currency: row.currency,
      refundedAmount: row.refunded_amount,
      cardBrand: row.card_brand,
      cardLast4: row.card_last4,
      processorReference: row.processor_reference,
      reference: row.reference,
      paymentId: row.payment_id,
      linkId: numberOrNull(row.link_id),
      label: row.label,
      subscriptionId: numberOrNull(row.subscription_id),
      installmentId: numberOrNull(row.installment_id),
      installmentNumber: row.installment_number,
      handleValue: row.handle_value,
      handleLabel: row.handle_label,
      customIdentifier: row.custom_identifier,
      customIdentifier2: row.custom_identifier2,
      declineCode: row.decline_code,
      declineCategory: row.decline_category,
      createdAt: instant(row.created_at),
      settledAt: row.settled_at === null ? null : instant(row.settled_at),
    },
    position: { createdMicros: BigInt(row.created_micros), id: row.id },
  };
}

/** `like` pattern of a prefix: its own `%`, `_` and `\` taken literally. */
function prefixPattern(prefix: string): string {
  return `${prefix.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
}

/** The page query's conditions, every one on the merchant's rows. */
function conditionsOf(merchantId: string, filter: LedgerFilter, after: LedgerPosition | undefined): SQL {
  const parts: SQL[] = [sql`merchant_id = ${merchantId}`];
  if (filter.status) parts.push(sql`status = ${filter.status}`);
  if (filter.kind) parts.push(sql`kind = ${filter.kind}`);
  if (filter.method) parts.push(sql`method = ${filter.method}`);
  if (filter.processor) parts.push(sql`processor = ${filter.processor}`);
  if (filter.linkId !== undefined) parts.push(sql`link_id = ${filter.linkId}`);
  if (filter.subscriptionId !== undefined) parts.push(sql`subscription_id = ${filter.subscriptionId}`);
  if (filter.customIdentifier) parts.push(sql`custom_identifier = ${filter.customIdentifier}`);
  if (filter.customerPrefix) {
    const pattern = prefixPattern(filter.customerPrefix);
    parts.push(sql`(lower(handle_value) like ${pattern} or lower(handle_label) like ${pattern})`);
  }
  if (filter.createdFrom) parts.push(sql`created_at >= ${filter.createdFrom.toISOString()}::timestamptz`);
  if (filter.createdBefore) parts.push(sql`created_at < ${filter.createdBefore.toISOString()}::timestamptz`);
  if (filter.amountMin) parts.push(sql`amount >= ${filter.amountMin}::numeric`);
  if (filter.amountMax) parts.push(sql`amount <= ${filter.amountMax}::numeric`);
  if (after) {
    // Row comparison: the index (merchant, created_at desc, id desc) is read from the position on.
    parts.push(
      sql`(created_at, id) < (timestamptz 'epoch' + ${after.createdMicros.toString()}::bigint * interval '1 microsecond', ${after.id}::uuid)`,
    );
  }
  return sql.join(parts, sql` and `);
}

/** The ledger on `db` (the database, or the consumer's transaction). */
export function postgresLedgerStore(db: Executor): LedgerStore {
  /** The link's context given to the rows of the link, and of its subscription's installments. */
  async function spreadLink(link: LinkContext) {
    await db
      .update(ledger)
      .set({
        label: link.label,
        handleValue: link.handleValue,
        handleLabel: link.handleLabel,
        customIdentifier: link.customIdentifier,
        customIdentifier2: link.customIdentifier2,
      })
      .where(and(eq(ledger.linkId, link.linkId), eq(ledger.merchantId, link.merchantId)));
  }

  return {
    async record(movement) {
      await db
        .insert(ledger)
        .values(movement)
        .onConflictDoUpdate({
          target: ledger.id,
          set: {
            // A final status stays; an open one (a refund scheduled) moves on.
            status: sql`case when ${ledger.status} in ('succeeded', 'declined', 'failed') then ${ledger.status} else excluded.status end`,
            settledAt: sql`coalesce(${ledger.settledAt}, excluded.settled_at)`,
            declineCode: sql`coalesce(${ledger.declineCode}, excluded.decline_code)`,
            declineCategory: sql`coalesce(${ledger.declineCategory}, excluded.decline_category)`,
            processorReference: sql`coalesce(${ledger.processorReference}, excluded.processor_reference)`,
            cardBrand: sql`coalesce(${ledger.cardBrand}, excluded.card_brand)`,
            cardLast4: sql`coalesce(${ledger.cardLast4}, excluded.card_last4)`,
          },
        });
    },

    async refreshRefunded(paymentId) {
      await db.execute(sql`
        update processor_gateway.ledger set refunded_amount = coalesce((
          select sum(r.amount) from processor_gateway.ledger r
          where r.payment_id = ${paymentId}::uuid and r.kind = 'REFUND' and r.status = 'succeeded'
        ), 0)
        where id = ${paymentId}::uuid`);
    },

    async findLink(linkId) {
      const [row] = await db.select().from(ledgerLinks).where(eq(ledgerLinks.linkId, linkId));
      return row;
    },

    async findInstallment(installmentId) {
      const [row] = await db
        .select()
        .from(ledgerInstallments)
        .where(eq(ledgerInstallments.installmentId, installmentId));
      return row;
    },

    async saveLink(link) {
      const { linkId, ...context } = link;
      const { subscriptionId: _kept, ...described } = context;
      await db
        .insert(ledgerLinks)
        .values(link)
        .onConflictDoUpdate({ target: ledgerLinks.linkId, set: described });
      await spreadLink(link);
    },

    async saveInstallments(installments) {
      if (installments.length === 0) return;
      await db
        .insert(ledgerInstallments)
        .values(installments)
        .onConflictDoUpdate({
          target: ledgerInstallments.installmentId,
          set: { number: sql`excluded.number`, subscriptionId: sql`excluded.subscription_id` },
        });
      for (const installment of installments) {
        await db
          .update(ledger)
          .set({ subscriptionId: installment.subscriptionId, installmentNumber: installment.number })
          .where(eq(ledger.installmentId, installment.installmentId));
      }
    },

    async setLinkSubscription(merchantId, linkId, subscriptionId) {
      // The link may not be known yet (its `link.created` still on its way): its row is begun here.
      await db
        .insert(ledgerLinks)
        .values({ linkId, merchantId, subscriptionId })
        .onConflictDoUpdate({ target: ledgerLinks.linkId, set: { subscriptionId } });
      await db
        .update(ledger)
        .set({ subscriptionId })
        .where(and(eq(ledger.linkId, linkId), isNull(ledger.subscriptionId)));
    },

    async find(merchantId, id) {
      const [row] = await db
        .select()
        .from(ledger)
        .where(and(eq(ledger.id, id), eq(ledger.merchantId, merchantId)));
      return row && toMovement(row);
    },

    async refundsOf(merchantId, paymentId) {
      const rows = await db
        .select()
        .from(ledger)
        .where(
          and(
            eq(ledger.paymentId, paymentId),
            eq(ledger.merchantId, merchantId),
            inArray(ledger.kind, ['REFUND']),
          ),
        )
        .orderBy(asc(ledger.createdAt), asc(ledger.id));
      return rows.map(toMovement);
    },

    summary(merchantId, range) {
      return sumRowsQuickly(db, merchantId, range);
    },

    dailyTotals(merchantId, range) {
      return dailyTotals(db, merchantId, range);
    },

    async page(merchantId, filter, after, limit) {
      const result = await db.execute(sql`
        select *, (extract(epoch from created_at) * 1000000)::bigint as created_micros
        from processor_gateway.ledger
        where ${conditionsOf(merchantId, filter, after)}
        order by created_at desc, id desc
        limit ${limit}`);
      return rowsOf<RawRow>(result).map(fromRaw);
    },
  };
}
