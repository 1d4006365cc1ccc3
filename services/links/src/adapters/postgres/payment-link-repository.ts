import type { EventEnvelope } from '@payrail/contracts';
import { type Database, type Executor, executePrepared } from '@payrail/db';
import { enqueueEvent, outboxNames, outboxTraceHeaders, wakeOutboxRelay } from '@payrail/messaging';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  LinkStatus,
  type PaymentLink,
  type PaymentLinkDraft,
  type RecurrenceTerms,
} from '../../domain/payment-link';
import type { PaymentLinkRepository } from '../../ports/payment-link-repository';
import { storedContextReader } from './merchant-profiles';
import {
  bankTransferSettlements,
  customers,
  loginCodes,
  merchantProfiles,
  outbox,
  paymentLinks,
} from './schema';

type Row = typeof paymentLinks.$inferSelect;

export function toLink(row: Row): PaymentLink {
  return {
    id: row.id,
    merchantId: row.merchantId,
    slug: row.slug,
    label: row.label,
    amount: row.amount,
    currency: row.currency,
    handleValue: row.handleValue,
    handleLabel: row.handleLabel,
    customIdentifier: row.customIdentifier,
    customIdentifier2: row.customIdentifier2,
    singlePayment: row.singlePayment,
    creditAndDebitCard: row.creditAndDebitCard,
    recurrence: row.recurrence as RecurrenceTerms | null,
    payWaitHours: row.payWaitHours,
    expiresAt: row.expiresAt,
    redirectUrl: row.redirectUrl,
    noLoginRequired: row.noLoginRequired,
    documentNumber: row.documentNumber,
    paymentMethods: row.paymentMethods,
    statusId: row.statusId,
    createdAt: row.createdAt,
    customerId: row.customerId,
    paidAt: row.paidAt,
    paidChargeId: row.paidChargeId,
    lastDecline:
      row.lastDeclineCode && row.lastDeclineCategory
        ? { code: row.lastDeclineCode, category: row.lastDeclineCategory }
        : null,
    refundedAmount: row.refundedAmount,
    payment: {
      paymentId: row.paidPaymentId,
      method: row.paidMethod,
      processor: row.paidProcessor,
      cardBrand: row.paidCardBrand,
      cardLast4: row.paidCardLast4,
      paidBy: row.paidBy,
    },
  };
}

async function insertLink(tx: Executor, values: typeof paymentLinks.$inferInsert): Promise<PaymentLink> {
  const [row] = await tx.insert(paymentLinks).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return toLink(row);
}

/**
 * Stands in for the link's id while its event is serialised: the id exists only once the row is inserted,
 * so the statement writes the body around it. A number no real link reaches for ages.
 */
const ID_STAND_IN = 9_007_199_254_740_881;

const outboxOfLinks = outboxNames(outbox);

/**
 * A new link (no signed-in user) and its event in one prepared statement: one round trip and one implicit
 * transaction (either both rows are stored or neither). No NOTIFY: the statement has committed when it
 * answers, and the relay of this process is woken in-process then (`wakeOutboxRelay`). The event's body is
 * `$22 || id || $23`, its serialisation split where the id goes.
 */
const INSERT_LINK_WITH_EVENT = `with link as (
    insert into links.payment_links (merchant_id, slug, label, amount, currency, handle_value, handle_label,
      custom_identifier, custom_identifier2, single_payment, credit_and_debit_card, recurrence, pay_wait_hours,
      expires_at, redirect_url, no_login_required, document_number, payment_methods, status_id, created_at)
    values ($1::uuid, $2::text, $3::text, $4::numeric, $5::text, $6::text, $7::text, $8::text, $9::text,
      $10::boolean, $11::boolean, $12::jsonb, $13::int, $14::timestamptz, $15::text, $16::boolean, $17::text,
      $18::jsonb, $19::int, $20::timestamptz)
    returning id),
  queued as (
    insert into ${outboxOfLinks.table} (id, type, body, headers)
    select $21::uuid, $24::text, $22::text || link.id::text || $23::text, $25::jsonb from link
    returning 1)
  select link.id from link, queued`;

/**
 * The event of a link about to be inserted, serialised in two parts around its id; undefined when the
 * stand-in is found elsewhere than once (a label that happens to contain it): then the slower path runs.
 */
function eventAroundId(
  draft: PaymentLinkDraft,
  eventFor: (link: PaymentLink) => EventEnvelope,
): { event: EventEnvelope; before: string; after: string } | undefined {
  const event = eventFor(newLink(draft, ID_STAND_IN));
  const parts = JSON.stringify(event).split(String(ID_STAND_IN));
  if (parts.length !== 2) return undefined;
  return { event, before: parts[0] as string, after: parts[1] as string };
}

/** The link as the insert stores it: the draft, its new id, pending, nobody's, unpaid. */
function newLink(draft: PaymentLinkDraft, id: number): PaymentLink {
  return {
    ...draft,
    id,
    statusId: LinkStatus.PENDING,
    customerId: null,
    paidAt: null,
    paidChargeId: null,
    lastDecline: null,
  };
}

export function postgresPaymentLinkRepository(db: Database): PaymentLinkRepository {
  // The pay page's statements, built once (Drizzle builds a query's text at every run otherwise: on the
  // pay page that cost more than rendering it).
  const bySlug = db
    .select()
    .from(paymentLinks)
    .where(eq(paymentLinks.slug, sql.placeholder('slug')))
    .prepare('links_find_by_slug');
  const bySlugWithMerchant = db
    .select({ link: paymentLinks, context: sql<string | null>`${merchantProfiles.context}::text` })
    .from(paymentLinks)
    .leftJoin(merchantProfiles, eq(merchantProfiles.merchantId, paymentLinks.merchantId))
    .where(eq(paymentLinks.slug, sql.placeholder('slug')))
    .prepare('links_find_by_slug_with_merchant');
  const contextOf = storedContextReader();
  return {
    async createWithEvent(draft, eventFor) {
      const serialized = eventAroundId(draft, eventFor);
      if (!serialized) {
        return db.transaction(async (tx) => {
          const link = await insertLink(tx, draft);
          await enqueueEvent(tx, outbox, eventFor(link));
          return link;
        });
      }
      const { event, before, after } = serialized;
      const [row] = await executePrepared<{ id: number | string }>(
        db,
        'links_insert_link_with_event',
        INSERT_LINK_WITH_EVENT,
        [
          draft.merchantId,
          draft.slug,
          draft.label,
          draft.amount,
          draft.currency,
          draft.handleValue,
          draft.handleLabel,
          draft.customIdentifier,
          draft.customIdentifier2,
          draft.singlePayment,
          draft.creditAndDebitCard,
          draft.recurrence === null ? null : JSON.stringify(draft.recurrence),
          draft.payWaitHours,
          draft.expiresAt?.toISOString() ?? null,
          draft.redirectUrl,
          draft.noLoginRequired,
          draft.documentNumber,
          JSON.stringify(draft.paymentMethods),
          LinkStatus.PENDING,
          draft.createdAt.toISOString(),
          event.id,
          before,
          after,
          event.type,
          outboxTraceHeaders(),
        ],
      );
      if (!row) throw new Error('insert returned no row');
      // Committed (one statement, no transaction around it): this process's relay publishes it now.
      wakeOutboxRelay('links');
      return newLink(draft, Number(row.id));
    },

    async createForSignedInUser({ draft, user, loginCode }, eventFor) {
      return db.transaction(async (tx) => {
        // Insert-or-find in one statement: two first requests for one new e-mail still make one user.
        // The no-op update makes RETURNING give the existing row too; names of a known user are kept.
        const [customer] = await tx
          .insert(customers)
          .values({
            merchantId: draft.merchantId,
            email: user.email,
            emailKey: user.emailKey,
            firstName: user.firstName,
            lastName: user.lastName,
            status: 'active',
            createdAt: draft.createdAt,
            activatedAt: draft.createdAt,
          })
          .onConflictDoUpdate({
            target: [customers.merchantId, customers.emailKey],
            set: { emailKey: sql`excluded.email_key` },
          })
          .returning({ id: customers.id });
        if (!customer) throw new Error('customer upsert returned no row');
        const link = await insertLink(tx, { ...draft, customerId: customer.id });
        await tx.insert(loginCodes).values({
          codeHash: loginCode.codeHash,
          merchantId: draft.merchantId,
          customerId: customer.id,
          linkId: link.id,
          createdAt: draft.createdAt,
          expiresAt: loginCode.expiresAt,
        });
        await enqueueEvent(tx, outbox, eventFor(link));
        return { link, customerId: customer.id };
      });
    },

    async findForMerchant(merchantId, id) {
      // Scoped by merchant: another merchant's link is simply not found (404, never 403).
      const [row] = await db
        .select()
        .from(paymentLinks)
        .where(and(eq(paymentLinks.id, id), eq(paymentLinks.merchantId, merchantId)));
      return row ? toLink(row) : undefined;
    },

    async findManyForMerchant(merchantId, ids) {
      const wanted = [...new Set(ids)];
      if (wanted.length === 0) return [];
      const rows = await db
        .select()
        .from(paymentLinks)
        .where(and(eq(paymentLinks.merchantId, merchantId), inArray(paymentLinks.id, wanted)));
      return rows.map(toLink);
    },

    async paidByCustomer(merchantId, customerId) {
      const rows = await db
        .select()
        .from(paymentLinks)
        .where(
          and(
            eq(paymentLinks.merchantId, merchantId),
            eq(paymentLinks.paidCustomerId, customerId),
            eq(paymentLinks.statusId, LinkStatus.PAID),
          ),
        )
        .orderBy(desc(paymentLinks.paidAt))
        .limit(200);
      return rows.map(toLink);
    },

    async findBySlug(slug) {
      const [row] = await bySlug.execute({ slug });
      return row ? toLink(row) : undefined;
    },

    async findBySlugWithMerchant(slug) {
      const [row] = await bySlugWithMerchant.execute({ slug });
      if (!row) return undefined;
      return { link: toLink(row.link), merchant: contextOf(row.link.merchantId, row.context) };
    },

    async findTransferSettlement(merchantId, reference) {
      const [row] = await db
        .select()
        .from(bankTransferSettlements)
        .where(
          and(
            eq(bankTransferSettlements.merchantId, merchantId),
            eq(bankTransferSettlements.reference, reference),
          ),
        );
      return row;
    },

    async payByTransfer({ merchantId, linkId, reference, txId, paidAt }, check, eventFor) {
      return db.transaction(async (tx) => {
        const [locked] = await tx
          .select()
          .from(paymentLinks)
          .where(and(eq(paymentLinks.id, linkId), eq(paymentLinks.merchantId, merchantId)))
          .for('update');
        if (!locked) return undefined;
        // A duplicate that waited for the lock finds what the first one did, instead of "already paid".
        const [settled] = await tx
          .select()
          .from(bankTransferSettlements)
          .where(
            and(
              eq(bankTransferSettlements.merchantId, merchantId),
              eq(bankTransferSettlements.reference, reference),
            ),
          );
        if (settled) {
          const [paidLink] = await tx.select().from(paymentLinks).where(eq(paymentLinks.id, settled.linkId));
          if (!paidLink) throw new Error(`link ${settled.linkId} of a settlement is gone`);
          return { link: toLink(paidLink), settlement: settled };
        }
        check(toLink(locked));
        const [paid] = await tx
          .update(paymentLinks)
          .set({ statusId: LinkStatus.PAID, paidAt, paidPaymentId: txId, paidMethod: 'BANK_TRANSFER' })
          .where(eq(paymentLinks.id, linkId))
          .returning();
        if (!paid) throw new Error('update returned no row');
        const [settlement] = await tx
          .insert(bankTransferSettlements)
          .values({ merchantId, reference, linkId, amount: paid.amount, settledAt: paidAt })
          .returning();
        if (!settlement) throw new Error('insert returned no row');
        const link = toLink(paid);
        await enqueueEvent(tx, outbox, eventFor(link));
        return { link, settlement };
      });
    },
  };
}
