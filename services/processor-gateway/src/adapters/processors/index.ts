import type { Logger } from '@payrail/observability';
import type { Clock } from '@payrail/time';
import type { ProcessorSettings } from '../../config';
import type { CardProcessor, CardProcessors, ProcessorId } from '../../ports/card-processor';

/**
 * Placeholder until the two processor adapters land in this folder (they replace this file and keep the
 * export). Every call throws, which the charge core treats as "we do not know": nothing is settled on it.
 */
export function createCardProcessors(
  settings: Record<ProcessorId, ProcessorSettings>,
  _deps: { logger: Logger; clock?: Clock },
): CardProcessors {
  const missing = (id: ProcessorId): CardProcessor => {
    const fail = async (): Promise<never> => {
      throw new Error(`no adapter installed for ${id} (${settings[id].baseUrl})`);
    };
    return {
      id,
      openPayment: fail,
      openCardRegistration: fail,
      completeCardRegistration: fail,
      listCards: fail,
      chargeStoredCard: fail,
      queryStatus: fail,
      verifyConfirmation: fail,
      reverse: fail,
      removeCard: fail,
    };
  };
  const byId = {
    'PARAGUAY.PROCESSOR_A': missing('PARAGUAY.PROCESSOR_A'),
    'PARAGUAY.PROCESSOR_B': missing('PARAGUAY.PROCESSOR_B'),
  };
  return (processor) => byId[processor];
}
