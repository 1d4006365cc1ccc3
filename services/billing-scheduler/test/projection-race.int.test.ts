import type { EventEnvelope } from '@payrail/contracts';
import type { DatabaseHandle } from '@payrail/db';
import { type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingStores } from '../src/adapters/postgres/stores';
import { subscriptions } from '../src/adapters/postgres/schema';
import { projectInstallmentEvent } from '../src/application/project-installment-events';
import type { BillingStores } from '../src/ports/unit-of-work';
import { billingSchedulerService } from '../src/service';
import { aSubscription, subscriptionCreated, subscriptionStatus } from './support';

/**
 * Two consumer batches projecting events of one subscription at the same time (its creation in a batch that
 * is slow to commit, its activation in the next): the activation must not be lost behind the creation. Seen
 * at 10,000 subscriptions in bench:billing: six subscriptions stayed `pending` in the projection, so no run
 * ever charged them.
 */
let migrated: MigratedTestDatabase;
let database: DatabaseHandle;

beforeAll(async () => {
  migrated = await migratedTestDatabase('billing_projection_race', billingSchedulerService, { max: 4 });
  database = migrated.database;
});

afterAll(async () => {
  await migrated?.drop();
});

const message = (event: EventEnvelope) => ({ type: event.type, body: JSON.stringify(event) });

describe('the projection of a subscription under concurrent batches', () => {
  it('an activation committed while its creation is still being projected stays: the subscription is active', async () => {
    const subscription = aSubscription({ dates: ['2026-12-10', '2027-01-10'] });
    let releaseCreation: () => void = () => undefined;
    const creationMayWrite = new Promise<void>((resolve) => {
      releaseCreation = resolve;
    });
    let creationRead: () => void = () => undefined;
    const creationHasRead = new Promise<void>((resolve) => {
      creationRead = resolve;
    });

    // The creation's batch: it has read the subscription and waits before writing it.
    const creation = database.db.transaction(async (tx) => {
      const stores = billingStores(tx);
      const slow: BillingStores = {
        ...stores,
        subscriptions: {
          ...stores.subscriptions,
          async saveSubscription(projected) {
            creationRead();
            await creationMayWrite;
            return stores.subscriptions.saveSubscription(projected);
          },
        },
      };
      await projectInstallmentEvent(slow, message(subscriptionCreated(subscription)));
    });
    await creationHasRead;

    // The activation's batch, meanwhile. It must not be able to commit an `active` that the creation then
    // overwrites: either it waits for the creation, or it commits first and the creation builds on it.
    const activation = database.db.transaction(async (tx) => {
      await projectInstallmentEvent(
        billingStores(tx),
        message(subscriptionStatus(subscription, 'subscription.activated')),
      );
    });
    const activationDone = await Promise.race([
      activation.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500)),
    ]);
    releaseCreation();
    await Promise.all([creation, activation]);

    const [row] = await database.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.subscriptionId, subscription.subscriptionId));
    expect(row?.status).toBe('active');
    // With the row locked, the activation waited for the creation to commit.
    expect(activationDone).toBe(false);
  });
});
