import type { Logger } from '@payrail/observability';
import { CardOutcomes } from './card-outcomes';
import { FaultBook } from './faults';
import { Ledger } from './ledger';
import type { SimulatedClock } from './simulated-clock';
import type { WebhookDispatcher } from './webhooks';

/** Keys and where the sandbox sends and sends browsers back; env defaults, changeable by the test API. */
export interface SandboxSettings {
  processorA: { publicKey: string; privateKey: string; webhookUrl?: string };
  processorB: { publicKey: string; privateKey: string; notificationUrl?: string; returnUrlTemplate: string };
}

/** What both simulated processors share. Everything lives in memory: a restart forgets it. */
export interface SandboxCore {
  settings: SandboxSettings;
  clock: SimulatedClock;
  ledger: Ledger;
  faults: FaultBook;
  outcomes: CardOutcomes;
  webhooks: WebhookDispatcher;
  logger: Logger;
}

export function createCoreParts() {
  return { ledger: new Ledger(), faults: new FaultBook(), outcomes: new CardOutcomes() };
}
