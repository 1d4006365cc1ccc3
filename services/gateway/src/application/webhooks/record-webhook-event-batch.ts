import type { EventEnvelope } from '@payrail/contracts';
import type { WebhookStores } from '../../ports/unit-of-work';
import type {
  LinkStatusChange,
  ProjectedInstallment,
  ProjectedLink,
  ProjectedPaidCount,
  ProjectedSubscription,
  ProjectionKeys,
  ProjectionRows,
  WebhookProjection,
  WebhookProjectionStore,
} from '../../ports/webhook-projection';
import { projectionKeysOf, type WebhookLogEntry, webhookEntriesOf } from './record-webhook-events';

/**
 * The projection as a batch of events sees it: the rows the batch names read in one statement before
 * the first event, and each event's reads answered from what the earlier ones left (a row nobody asked
 * for is read on its own). Links saved and subscription changes are written at once, as one event alone
 * would; a link's new status (a payment's `link.paid`, an expiry, a cancellation), installment changes and
 * paid counts (a charge's `installment.paid`) are kept, and written together by `flush` (one statement
 * each); saving an installment as the projection already has it, or a count not above the known one,
 * writes nothing. A status is kept only for a link known to be there (of another the update is made at
 * once, as alone: it may change nothing), and the statuses kept are written before a link is saved, so a
 * later save still overwrites an earlier status as one after the other would. Known rows: `null` is a row
 * known to be absent.
 */
class BatchProjection implements WebhookProjection {
  private readonly links = new Map<number, ProjectedLink | null>();
  private readonly subscriptions = new Map<number, ProjectedSubscription | null>();
  private readonly installments = new Map<number, ProjectedInstallment | null>();
  /** Link statuses set and not written yet (of links known to be there), by link. */
  private readonly changedLinkStatuses = new Map<number, LinkStatusChange>();
  /** The installments changed and not written yet. */
  private readonly changedInstallments = new Set<number>();
  /** Paid counts by subscription (0: none known paid), and those raised and not written yet. */
  private readonly paidCounts = new Map<number, number>();
  private readonly changedPaidCounts = new Set<number>();

  constructor(private readonly writer: WebhookProjectionStore) {}

  /** Takes in what `loadProjectionOf` read (the rows of the keys given, `null` for those absent). */
  load({ keys, rows }: LoadedProjection): void {
    for (const id of keys.linkIds) this.links.set(id, null);
    for (const id of keys.subscriptionIds) this.subscriptions.set(id, null);
    for (const id of keys.installmentIds) this.installments.set(id, null);
    for (const link of rows.links) this.links.set(link.linkId, link);
    for (const subscription of rows.subscriptions)
      this.subscriptions.set(subscription.subscriptionId, subscription);
    for (const installment of rows.installments)
      this.installments.set(installment.installmentId, installment);
    // The counts read are those of every subscription named or met (see `loadProjectionStatement`).
    const counted = [
      ...keys.subscriptionIds,
      ...rows.installments.map((installment) => installment.subscriptionId),
      ...rows.subscriptions.map((subscription) => subscription.subscriptionId),
    ];
    for (const id of counted) this.paidCounts.set(id, 0);
    for (const { subscriptionId, paidCount } of rows.paidCounts)
      this.paidCounts.set(subscriptionId, paidCount);
  }

  /**
   * Writes the link statuses, the installment changes and the paid counts kept so far, one statement each,
   * all sent at once (they touch different tables, nothing of one is read by another): the returned
   * promise settles when all of them did.
   */
  flush(): Promise<unknown> {
    const writes: Array<Promise<unknown>> = [this.flushLinkStatuses()];
    if (this.changedInstallments.size > 0) {
      const changed: Array<Omit<ProjectedInstallment, 'txId'>> = [];
      for (const id of this.changedInstallments) {
        const installment = this.installments.get(id);
        if (installment) changed.push(savedOf(installment));
      }
      this.changedInstallments.clear();
      writes.push(this.writer.saveInstallments(changed));
    }
    if (this.changedPaidCounts.size > 0) {
      const counts = [...this.changedPaidCounts].map((subscriptionId) => ({
        subscriptionId,
        paidCount: this.paidCounts.get(subscriptionId) as number,
      }));
      this.changedPaidCounts.clear();
      writes.push(this.writer.savePaidCounts(counts));
    }
    return Promise.all(writes);
  }

  async findPaidCount(subscriptionId: number): Promise<number> {
    const known = this.paidCounts.get(subscriptionId);
    if (known !== undefined) return known;
    const count = await this.writer.findPaidCount(subscriptionId);
    this.paidCounts.set(subscriptionId, count);
    return count;
  }

  async savePaidCounts(counts: ProjectedPaidCount[]): Promise<void> {
    for (const { subscriptionId, paidCount } of counts) {
      if (paidCount <= (await this.findPaidCount(subscriptionId))) continue;
      this.paidCounts.set(subscriptionId, paidCount);
      this.changedPaidCounts.add(subscriptionId);
    }
  }

  /** The link statuses kept, in one statement (before anything else writes a link's status). */
  private async flushLinkStatuses(): Promise<void> {
    if (this.changedLinkStatuses.size === 0) return;
    const changes = [...this.changedLinkStatuses.values()];
    this.changedLinkStatuses.clear();
    await this.writer.setLinkStatuses(changes);
  }

  async saveLink(link: ProjectedLink): Promise<void> {
    await this.flushLinkStatuses();
    await this.writer.saveLink(link);
    this.linkSaved(link);
  }

  async saveLinks(links: ProjectedLink[]): Promise<void> {
    await this.flushLinkStatuses();
    await this.writer.saveLinks(links);
    for (const link of links) this.linkSaved(link);
  }

  /** What `saveLink` leaves: the link as given, keeping a subscription it had already. */
  private linkSaved(link: ProjectedLink): void {
    const known = this.links.get(link.linkId);
    if (known === undefined) return;
    this.links.set(link.linkId, { ...link, subscriptionId: known?.subscriptionId ?? link.subscriptionId });
  }

  async findLink(linkId: number): Promise<ProjectedLink | null> {
    const known = this.links.get(linkId);
    if (known !== undefined) return known;
    const link = await this.writer.findLink(linkId);
    this.links.set(linkId, link);
    return link;
  }

  async setLinkStatus(linkId: number, statusId: number, txId?: string | null): Promise<void> {
    const known = this.links.get(linkId);
    if (!known) {
      // Not known to be there: at once, as alone (a link saved later in the batch is not changed by it).
      await this.writer.setLinkStatus(linkId, statusId, txId);
      return;
    }
    // Kept for `flush`: a second change of the same link in the batch folds into the first's.
    const kept = this.changedLinkStatuses.get(linkId);
    this.changedLinkStatuses.set(linkId, {
      linkId,
      statusId,
      txId: txId === undefined ? kept?.txId : txId,
    });
    this.links.set(linkId, txId === undefined ? { ...known, statusId } : { ...known, statusId, txId });
  }

  async saveSubscription(subscription: ProjectedSubscription): Promise<void> {
    await this.writer.saveSubscription(subscription);
    this.subscriptions.set(subscription.subscriptionId, { ...subscription });
    const link = this.links.get(subscription.linkId);
    if (link) this.links.set(link.linkId, { ...link, subscriptionId: subscription.subscriptionId });
  }

  async findSubscription(subscriptionId: number): Promise<ProjectedSubscription | null> {
    const known = this.subscriptions.get(subscriptionId);
    if (known !== undefined) return known;
    const subscription = await this.writer.findSubscription(subscriptionId);
    this.subscriptions.set(subscriptionId, subscription);
    return subscription;
  }

  async saveInstallments(installments: Array<Omit<ProjectedInstallment, 'txId'>>): Promise<void> {
    for (const installment of installments) {
      const known = await this.findInstallment(installment.installmentId);
      if (known && known.subscriptionId === installment.subscriptionId && known.number === installment.number)
        continue;
      this.installments.set(installment.installmentId, {
        ...savedOf(installment),
        txId: known?.txId ?? null,
      });
      this.changedInstallments.add(installment.installmentId);
    }
  }

  async findInstallment(installmentId: number): Promise<ProjectedInstallment | null> {
    const known = this.installments.get(installmentId);
    if (known !== undefined) return known;
    const installment = await this.writer.findInstallment(installmentId);
    this.installments.set(installmentId, installment);
    return installment;
  }
}

/** What `saveInstallments` writes of an installment (its transaction is not the projection's to set). */
function savedOf(installment: Omit<ProjectedInstallment, 'txId'>): Omit<ProjectedInstallment, 'txId'> {
  return {
    installmentId: installment.installmentId,
    subscriptionId: installment.subscriptionId,
    number: installment.number,
  };
}

/** The projection rows a batch names, as read before its first event (see `loadProjectionOf`). */
export interface LoadedProjection {
  keys: ProjectionKeys;
  rows: ProjectionRows;
}

const noRows: ProjectionRows = { links: [], subscriptions: [], installments: [], paidCounts: [] };

/**
 * Reads the projection rows `events` name, one statement (none when they name none). It only reads, so it
 * may be sent before the batch's duplicates are known (with the inbox insert, `preload`): the events of a
 * message handled before only add keys, whose rows are then known and never written by it.
 */
export async function loadProjectionOf(
  projection: WebhookProjectionStore,
  events: EventEnvelope[],
): Promise<LoadedProjection> {
  const keys = projectionKeysOf(events);
  if (keys.linkIds.length + keys.subscriptionIds.length + keys.installmentIds.length === 0)
    return { keys, rows: noRows };
  return { keys, rows: await projection.loadProjection(keys) };
}

/**
 * A batch of bus events into the webhook log, in one transaction (the consumer's): each event changes the
 * projection and makes its envelopes exactly as `recordWebhookEvents` would, one after the other in the
 * order given, and the batch's envelopes are appended together at the end (`finish`), in that order.
 * `loaded`: the projection rows of (at least) these events, read earlier in the same transaction before
 * anything was written; without it they are read here.
 */
export async function webhookEventBatch(
  stores: WebhookStores,
  events: EventEnvelope[],
  loaded?: LoadedProjection,
) {
  const projection = new BatchProjection(stores.projection);
  projection.load(loaded ?? (await loadProjectionOf(stores.projection, events)));
  const entries: WebhookLogEntry[] = [];
  return {
    /** The projection the batch's events go through (for changes made outside `record`). */
    projection: projection as WebhookProjection,
    async record(event: EventEnvelope): Promise<void> {
      entries.push(...(await webhookEntriesOf(projection, event)));
    },
    /**
     * Writes what was kept and appends the envelopes, the statements sent together (one round trip: the
     * log and the deliveries read nothing the projection's writes change); returns how many were appended.
     */
    async finish(): Promise<number> {
      const [, appended] = await Promise.all([
        projection.flush(),
        entries.length === 0 ? 0 : stores.eventLog.appendEvents(entries),
      ]);
      return appended;
    },
  };
}
