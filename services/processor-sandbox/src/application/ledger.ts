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

  list(): LedgerEntry[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
  }
}
