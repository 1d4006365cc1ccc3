import type { ProcessorId } from '../../ports/card-processor';

/** What one adapter needs to reach its processor (parsed from the environment by the service's config). */
export interface ProcessorAdapterSettings {
  id: ProcessorId;
  baseUrl: string;
  publicKey: string;
  privateKey: string;
  /** Deadline of every call to the processor; past it the call counts as a lost reply. */
  timeoutMs: number;
}
