import type { ProcessorId } from './processors';

export interface LedgerEntry {
  id: number;
  processor: ProcessorId;
  kind: 'charge' | 'rollback' | 'reversal';
  /** Our reference: shop_process_id (A) or id_pedido_comercio (B). */
  reference: string;
  /** The processor's reference: process_id (A) or hash_pedido (B). */
  processReference: string;
  /** As the processor received it: "150000.00" (A), "150000" (B). */
  amount: string;
  currency: string;
  resultCode: string;
  last4: string;
  at: string;
}

/** What money the simulated processors moved: the judge of exactly-once tests. */
export class Ledger {
  private entries: LedgerEntry[] = [];

  record(entry: Omit<LedgerEntry, 'id'>): LedgerEntry {
    const recorded = { id: this.entries.length + 1, ...entry };
    this.entries.push(recorded);
    return recorded;
  }

  /** The entries after id `after` (0: from the first), at most `limit` of them, oldest first. */
  list(after = 0, limit = Number.POSITIVE_INFINITY): LedgerEntry[] {
    // Ids are positions + 1: a page is a slice, whatever the size of the ledger.
    return this.entries.slice(Math.max(0, after), Math.max(0, after) + limit);
  }

  get size(): number {
    return this.entries.length;
  }

  clear(): void {
    this.entries = [];
  }
}
