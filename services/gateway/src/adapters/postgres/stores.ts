import type { Transaction } from '@payrail/db';
import type { WebhookStores } from '../../ports/unit-of-work';
import { webhookEventLogIn } from './webhook-event-log';
import { postgresWebhookProjectionStore } from './webhook-projection-store';

/** The stores the event consumer writes, bound to its transaction (the unit of work's). */
export function webhookStores(tx: Transaction): WebhookStores {
  return { projection: postgresWebhookProjectionStore(tx), eventLog: webhookEventLogIn(tx) };
}
