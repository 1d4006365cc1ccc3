import type { DeliveredMessage } from '@payrail/messaging';
import { aMerchant, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inbox, outbox } from '../src/adapters/postgres/schema';
import { createSubscriptionFromLink } from '../src/application/create-subscription-from-link';
import { subscriptionsService } from '../src/service';
import { linkCreated, subscriptionOfLink, unitOfWorkOf } from './support';

const CONSUMER = 'subscriptions.unit-of-work-test';
const clock = testClock(new Date('2026-01-15T18:00:00Z'));

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock });
});
afterAll(async () => svc?.stop());

function delivered(event: ReturnType<typeof linkCreated>): DeliveredMessage {
  return { id: event.id, type: event.type, body: JSON.stringify(event), headers: {}, attempt: 1 };
}

async function inboxHas(messageId: string): Promise<boolean> {
  const rows = await svc.database.db
    .select()
    .from(inbox)
    .where(and(eq(inbox.consumer, CONSUMER), eq(inbox.messageId, messageId)));
  return rows.length === 1;
}

describe("the consumers' unit of work over the service's stores", () => {
  it('commits the inbox row, the use case writes and its outbox rows together, or none of them', async () => {
    const event = linkCreated(aMerchant());
    let runs = 0;
    let failAfterWriting = true;
    const handler = unitOfWorkOf(svc).handlerFor(CONSUMER, async (stores) => {
      runs += 1;
      await createSubscriptionFromLink({ stores, clock }, event.data);
      if (failAfterWriting) throw new Error('the handler failed after writing');
    });
    const announced = async () =>
      (await svc.database.db.select().from(outbox).where(eq(outbox.type, 'subscription.created'))).filter(
        (row) => row.body.includes(`"linkId":${event.data.linkId}`),
      ).length;

    await expect(handler(delivered(event))).rejects.toThrow('the handler failed after writing');
    expect(await subscriptionOfLink(svc, event.data.linkId)).toBeUndefined();
    expect(await inboxHas(event.id)).toBe(false);
    expect(await announced()).toBe(0);

    failAfterWriting = false;
    await handler(delivered(event));
    expect(await subscriptionOfLink(svc, event.data.linkId)).toMatchObject({ status: 'pending' });
    expect(await inboxHas(event.id)).toBe(true);
    expect(await announced()).toBe(1);

    // Redelivered: recorded as handled, so the work does not run again.
    await handler(delivered(event));
    expect(runs).toBe(2);
    expect(await announced()).toBe(1);
  });
});
