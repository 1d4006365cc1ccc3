import type { ProcessorId } from './processors';

export const FAULT_KINDS = [
  'outage',
  'drop-webhook',
  'duplicate-webhook',
  'delay-webhook',
  'reorder-webhooks',
  'lose-reply',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ActiveFault {
  processor: ProcessorId;
  fault: FaultKind;
  remaining: number;
  seconds?: number;
}

/** Faults armed by the test API, each for the next N calls (or webhook attempts) of one processor. */
export class FaultBook {
  private faults: ActiveFault[] = [];

  arm(fault: ActiveFault): void {
    this.faults = this.faults.filter((f) => !(f.processor === fault.processor && f.fault === fault.fault));
    if (fault.remaining > 0) this.faults.push(fault);
  }

  /** Uses one occurrence of the fault, if armed. */
  take(processor: ProcessorId, kind: FaultKind): ActiveFault | undefined {
    const fault = this.faults.find((f) => f.processor === processor && f.fault === kind);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return { ...fault };
  }

  list(): ActiveFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }
}
