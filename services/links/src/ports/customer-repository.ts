export interface CustomerRepository {
  /** The customer with that document number at that merchant, created on first confirmation. */
  findOrCreateByDocument(request: { merchantId: string; documentNumber: string; now: Date }): Promise<number>;
  /**
   * One try at a link's document number, serialised per link: refused (`limited`, with the oldest counted
   * failure) when `limit` failures were recorded after `windowStart`; else a wrong number is recorded.
   */
  tryDocument(request: {
    linkId: number;
    requesterHash: string;
    matches: boolean;
    now: Date;
    windowStart: Date;
    limit: number;
  }): Promise<{ outcome: 'match' | 'wrong' } | { outcome: 'limited'; oldestCounted: Date }>;
  /** The customer's e-mail, when the customer has one (for the account page). */
  emailOf(merchantId: string, customerId: number): Promise<string | null | undefined>;
}
