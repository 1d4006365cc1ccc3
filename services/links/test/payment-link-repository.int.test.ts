import { randomUUID } from 'node:crypto';
import { type DatabaseHandle, openDatabase } from '@payrail/db';
import { openPgliteDatabase } from '@payrail/db/pglite';
import { aMerchant, aOneOffLink, aStaticLink, createTestDatabase, type TestDatabase } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresPaymentLinkRepository } from '../src/adapters/postgres/payment-link-repository';
import { outbox, paymentLinks } from '../src/adapters/postgres/schema';
import { linkDraft, type PaymentLinkInput } from '../src/application/create-payment-link';
import { linkCreatedEvent } from '../src/application/events';
import { linksService } from '../src/service';

const now = new Date('2026-11-22T12:00:00Z');
const merchant = aMerchant();
const draftOf = (input: object) =>
  linkDraft(merchant, input as PaymentLinkInput, `slug-${randomUUID()}`, now);

// The link and its event in one statement, hand-written: run on both drivers the service runs on.
const drivers: Array<[string, () => Promise<{ database: DatabaseHandle; drop(): Promise<void> }>]> = [
  [
    'PostgreSQL',
    async () => {
      const testDatabase: TestDatabase = await createTestDatabase('links_repository');
      const database = openDatabase({ url: testDatabase.url, max: 2 });
      return {
        database,
        async drop() {
          await database.close();
          await testDatabase.drop();
        },
      };
    },
  ],
  [
    'PGlite',
    async () => {
      const database = openPgliteDatabase();
      return { database, drop: () => database.close() };
    },
  ],
];

describe.each(drivers)('payment link repository on %s', (_, open) => {
  let handle: { database: DatabaseHandle; drop(): Promise<void> };
  beforeAll(async () => {
    handle = await open();
    if (linksService.database) await handle.database.migrate(linksService.database);
  });
  afterAll(async () => handle?.drop());

  const repository = () => postgresPaymentLinkRepository(handle.database.db);

  it('stores the link and the very event its builder makes of the stored link', async () => {
    for (const input of [aOneOffLink(), aStaticLink({ installmentAmount: 100000 })]) {
      const draft = draftOf(input);
      let eventId = '';
      const link = await repository().createWithEvent(draft, (created) => {
        const event = linkCreatedEvent(created, merchant, now);
        eventId = event.id;
        return event;
      });
      const [row] = await handle.database.db.select().from(paymentLinks).where(eq(paymentLinks.id, link.id));
      expect(row).toMatchObject({ slug: draft.slug, amount: draft.amount, statusId: 1, customerId: null });
      expect(link).toMatchObject({ ...draft, statusId: 1, customerId: null });
      const [stored] = await handle.database.db.select().from(outbox).where(eq(outbox.id, eventId));
      const expected = { ...linkCreatedEvent(link, merchant, now), id: eventId };
      expect(stored?.type).toBe('link.created');
      expect(JSON.parse(stored?.body ?? '{}')).toEqual(expected);
      expect(stored?.body).toBe(JSON.stringify(expected));
      expect(stored?.publishedAt).toBeNull();
    }
  });

  it('stores neither the link nor the event when the event cannot be stored', async () => {
    const event = linkCreatedEvent(
      { ...draftOf(aOneOffLink()), id: 1, statusId: 1, customerId: null },
      merchant,
      now,
    );
    await repository().createWithEvent(draftOf(aOneOffLink()), (link) => ({
      ...event,
      data: { ...event.data, linkId: link.id },
    }));
    const before = await handle.database.db.select({ id: paymentLinks.id }).from(paymentLinks);
    // The same event id again: the outbox refuses it, so the link of that statement must not stay either.
    const draft = draftOf(aOneOffLink());
    await expect(
      repository().createWithEvent(draft, (link) => ({ ...event, data: { ...event.data, linkId: link.id } })),
    ).rejects.toThrow();
    const after = await handle.database.db.select({ id: paymentLinks.id }).from(paymentLinks);
    expect(after).toEqual(before);
    expect(
      await handle.database.db.select().from(paymentLinks).where(eq(paymentLinks.slug, draft.slug)),
    ).toEqual([]);
  });

  it('writes the same when a label contains the number that stands in for the id', async () => {
    const draft = draftOf({ ...aOneOffLink(), label: 'order 9007199254740881' });
    let eventId = '';
    const link = await repository().createWithEvent(draft, (created) => {
      const event = linkCreatedEvent(created, merchant, now);
      eventId = event.id;
      return event;
    });
    const [stored] = await handle.database.db.select().from(outbox).where(eq(outbox.id, eventId));
    expect(JSON.parse(stored?.body ?? '{}').data).toMatchObject({
      linkId: link.id,
      label: 'order 9007199254740881',
    });
  });
});
