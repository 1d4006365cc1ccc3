import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import type { CardProcessor, CardProcessors, ProcessorId } from '../../ports/card-processor';
import { createProcessorA } from './processor-a';
import { createProcessorB } from './processor-b';
import type { ProcessorAdapterSettings } from './processor-settings';

export { ProcessorUnavailable } from './processor-unavailable';
export type { ProcessorAdapterSettings } from './processor-settings';

/**
 * The adapters by processor id, each with its own keys, base URL and deadline (from the environment; by
 * default the sandbox). Built once at start, so a wrong id fails the boot rather than a payment.
 */
export function createCardProcessors(
  settings: Record<ProcessorId, ProcessorAdapterSettings>,
  deps: { logger: Logger; clock?: Clock; fetch?: typeof fetch },
): CardProcessors {
  const adapters: Record<ProcessorId, CardProcessor> = {
    'PARAGUAY.PROCESSOR_A': createProcessorA(
      { ...settings['PARAGUAY.PROCESSOR_A'], id: 'PARAGUAY.PROCESSOR_A' },
      deps,
    ),
    'PARAGUAY.PROCESSOR_B': createProcessorB(
      { ...settings['PARAGUAY.PROCESSOR_B'], id: 'PARAGUAY.PROCESSOR_B' },
      deps,
    ),
  };
  return (processor) => {
    const adapter = adapters[processor];
    if (!adapter) throw new Error(`no adapter for processor ${String(processor)}`);
    return adapter;
  };
}
