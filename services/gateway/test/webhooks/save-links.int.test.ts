import { randomUUID } from 'node:crypto';
import type { ServiceUnderTest } from '@payrail/testing';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookLinks } from '../../src/adapters/postgres/schema';
import { postgresWebhookProjectionStore } from '../../src/adapters/postgres/webhook-projection-store';
import type { ProjectedLink } from '../../src/ports/webhook-projection';
import { freshId, startWebhookGateway } from './support';

// `saveLinks` writes a batch in one statement; what it leaves must be what `saveLink` one link after the
// other leaves, also when a link comes more than once in the batch or is already stored.

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await gateway?.stop();
});

const merchantId = randomUUID();

function link(linkId: number, changes: Partial<ProjectedLink> = {}): ProjectedLink {
  return {
    linkId,
    merchantId,
    label: 'Monthly pass',
    amount: '150000.00',
    currency: 'PYG',
    customIdentifier: null,
    customIdentifier2: null,
    recurrent: false,
    totalPeriods: null,
    statusId: 1,
    subscriptionId: null,
    txId: null,
    ...changes,
  };
}

/** The batch for links `a`, `b`, `c`: `a` three times (its subscription given from the second on), `c` stored before. */
function batch(a: number, b: number, c: number): ProjectedLink[] {
  return [
    link(a, { label: 'Yoga' }),
    link(b, { customIdentifier: 'CUST-1', recurrent: true, totalPeriods: 12 }),
    link(a, { label: 'Yoga, monthly', subscriptionId: 70 }),
    link(c, { statusId: 3, txId: 'tx-c', subscriptionId: 91 }),
    link(a, { label: 'Yoga, yearly', statusId: 3, subscriptionId: 71, txId: 'tx-a' }),
  ];
}

async function stored(ids: number[]) {
  const rows = await gateway.database.db.select().from(webhookLinks).where(inArray(webhookLinks.linkId, ids));
  return ids.map((id) => {
    const { linkId: _linkId, ...rest } = rows.find((row) => row.linkId === id) ?? { linkId: id };
    return rest;
  });
}

describe('saveLinks', () => {
  it('leaves what saveLink one after the other leaves, links given twice and stored ones included', async () => {
    const one = [freshId(), freshId(), freshId()] as const;
    const batched = [freshId(), freshId(), freshId()] as const;
    const writer = postgresWebhookProjectionStore(gateway.database.db);
    // The third link of each set is stored before, with a subscription the batch must not replace.
    await writer.saveLink(link(one[2], { subscriptionId: 90 }));
    await writer.saveLink(link(batched[2], { subscriptionId: 90 }));

    for (const each of batch(...one)) await writer.saveLink(each);
    await writer.saveLinks(batch(...batched));

    const expected = await stored([...one]);
    expect(expected[0]).toMatchObject({
      label: 'Yoga, yearly',
      statusId: 3,
      subscriptionId: 70,
      txId: 'tx-a',
    });
    expect(expected[2]).toMatchObject({ statusId: 3, subscriptionId: 90, txId: 'tx-c' });
    expect(await stored([...batched])).toEqual(expected);
  });

  it('writes nothing for an empty batch', async () => {
    await expect(postgresWebhookProjectionStore(gateway.database.db).saveLinks([])).resolves.toBeUndefined();
  });
});
