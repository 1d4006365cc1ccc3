import type { Processor } from '@payrail/contracts';
import { ProcessorNotEnabled } from './errors';

/** A merchant pays through the processors the operator enabled for it (its signed context lists them). */
export function assertProcessorEnabled(enabled: readonly Processor[], processor: Processor): void {
  if (!enabled.includes(processor)) throw new ProcessorNotEnabled(processor);
}
