/**
 * The projection envelopes are filled from: what the gateway keeps of links, subscriptions, installments
 * and paid counts from the bus events (no other service is called to fill an envelope).
 */
export interface ProjectedLink {
  linkId: number;
  merchantId: string;
  label: string;
  amount: string;
  currency: string;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  recurrent: boolean;
  totalPeriods: number | null;
  statusId: number;
  subscriptionId: number | null;
  txId: string | null;
}

export interface ProjectedSubscription {
  subscriptionId: number;
  merchantId: string;
  linkId: number;
  totalPeriods: number | null;
}

export interface ProjectedInstallment {
  installmentId: number;
  subscriptionId: number;
  number: number;
  txId: string | null;
}

/** The ids of the projection rows some events read or write (a batch's, read at once). */
export interface ProjectionKeys {
  linkIds: number[];
  subscriptionIds: number[];
  installmentIds: number[];
}

/**
 * How many of a subscription's periods are paid, as far as the projection knows: the greatest `paidCount`
 * of its `installment.paid` events seen (a count only grows, so a late or repeated event changes nothing).
 */
export interface ProjectedPaidCount {
  subscriptionId: number;
  paidCount: number;
}

/** A link's new status (and its payment's transaction: `undefined` leaves the stored one). */
export interface LinkStatusChange {
  linkId: number;
  statusId: number;
  txId?: string | null;
}

/** Projection rows read together; an id asked for and not there is absent from its list. */
export interface ProjectionRows {
  links: ProjectedLink[];
  subscriptions: ProjectedSubscription[];
  installments: ProjectedInstallment[];
  /** The paid counts of every subscription read (those of `subscriptions` and of the keys). */
  paidCounts: ProjectedPaidCount[];
}

/** The projection as the event consumer's use cases read and change it (an event, or a batch's view). */
export interface WebhookProjection {
  saveLink(link: ProjectedLink): Promise<void>;
  /** Each link as `saveLink` would, in the order given; as few statements as it can (one per batch). */
  saveLinks(links: ProjectedLink[]): Promise<void>;
  findLink(linkId: number): Promise<ProjectedLink | null>;
  setLinkStatus(linkId: number, statusId: number, txId?: string | null): Promise<void>;
  saveSubscription(subscription: ProjectedSubscription): Promise<void>;
  findSubscription(subscriptionId: number): Promise<ProjectedSubscription | null>;
  saveInstallments(installments: Array<Omit<ProjectedInstallment, 'txId'>>): Promise<void>;
  findInstallment(installmentId: number): Promise<ProjectedInstallment | null>;
  /** The subscription's paid periods as far as known: 0 when none is known to be paid. */
  findPaidCount(subscriptionId: number): Promise<number>;
  /** Each count kept unless a greater one is known already (a subscription's count never goes down). */
  savePaidCounts(counts: ProjectedPaidCount[]): Promise<void>;
}

/** The projection's rows in the database (in the consumer's transaction). */
export interface WebhookProjectionStore extends WebhookProjection {
  /**
   * The rows of `keys` in one statement, with the subscriptions of the installments, the links of those
   * subscriptions and the subscriptions of the links (what an envelope is filled from).
   */
  loadProjection(keys: ProjectionKeys): Promise<ProjectionRows>;
  /** Each change as `setLinkStatus` would, in one statement (each link at most once). */
  setLinkStatuses(changes: LinkStatusChange[]): Promise<void>;
}
