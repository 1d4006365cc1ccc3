import { rowsOf } from '@payrail/db';
import type { DeliveredMessage } from '@payrail/messaging';
import type { ServiceUnderTest } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inbox } from '../../src/adapters/postgres/schema';
import { postgresCreatedLinkRecorder } from '../../src/adapters/postgres/created-link-recorder';
import { postgresWebhookProjectionStore } from '../../src/adapters/postgres/webhook-projection-store';
import type { ProjectedLink } from '../../src/ports/webhook-projection';
import { createMerchant, freshId, startWebhookGateway } from './support';

// `link.created` is recorded in one statement (inbox row and projected link together): once per
// message, a redelivery changes nothing, and a new message for the link upserts it as `saveLink` does.

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await gateway?.stop();
});

const CONSUMER = 'test.link-created';

function linkOf(linkId: number, merchantId: string): ProjectedLink {
  return {
    linkId,
    merchantId,
    label: 'Gym membership',
    amount: '150000.00',
    currency: 'PYG',
    customIdentifier: '4567890',
    customIdentifier2: null,
    recurrent: true,
    totalPeriods: 3,
    statusId: 1,
    subscriptionId: null,
    txId: null,
  };
}

const message = (id: string): DeliveredMessage => ({
  id,
  type: 'link.created',
  body: '{}',
  headers: {},
  attempt: 1,
});

describe('link.created in one statement', () => {
  it('saves the link with its inbox row, once per message', async () => {
    const { merchantId } = await createMerchant(gateway);
    const db = gateway.database.db;
    const projection = postgresWebhookProjectionStore(db);
    const linkId = freshId();
    const save = postgresCreatedLinkRecorder(db, inbox).handlerFor(CONSUMER, () =>
      linkOf(linkId, merchantId),
    );
    const first = `msg-${linkId}-a`;

    await save(message(first));
    const link = () => projection.findLink(linkId);
    expect(await link()).toMatchObject({ ...linkOf(linkId, merchantId) });
    const inboxRows = async (id: string) =>
      rowsOf<{ n: number }>(
        await db.execute(
          sql`select count(*)::int as n from ${inbox} where consumer = ${CONSUMER} and message_id = ${id}`,
        ),
      )[0]?.n;
    expect(await inboxRows(first)).toBe(1);

    // Paid since, and part of a subscription: a redelivery of the creation must not undo it.
    await projection.setLinkStatus(linkId, 200, 'A-1');
    await db.execute(sql`update gateway.webhook_links set subscription_id = 77 where link_id = ${linkId}`);
    await save(message(first));
    expect(await link()).toMatchObject({ statusId: 200, txId: 'A-1', subscriptionId: 77 });
    expect(await inboxRows(first)).toBe(1);

    // Another message for the same link is another creation: the upsert runs, its subscription kept.
    await save(message(`msg-${linkId}-b`));
    expect(await link()).toMatchObject({ statusId: 1, txId: null, subscriptionId: 77 });
  });
});
