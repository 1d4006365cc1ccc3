import type { Database } from '@payrail/db';
import { idempotentStatement, type InboxTable } from '@payrail/messaging';
import { sql } from 'drizzle-orm';
import type { CreatedLinkRecorder } from '../../ports/unit-of-work';
import { webhookLinks } from './schema';
import { savedLinkColumns } from './webhook-projection-store';

/**
 * The inbox row of a message and its projected link in one statement: the link's upsert (the same as
 * `saveLink`'s) runs only when the inbox row is new. Prepared, so that it is one round trip: a query
 * without a name is described first, a round trip of its own, on every run (postgres.js).
 */
function createdLinkStatement(db: Database, inbox: InboxTable) {
  const value = (name: string) => sql.placeholder(name);
  const fresh = db.$with('fresh', { messageId: sql<string>`message_id` }).as(sql`
    insert into ${inbox} (consumer, message_id) values (${value('consumer')}, ${value('messageId')})
    on conflict do nothing
    returning message_id`);
  return db
    .with(fresh)
    .insert(webhookLinks)
    .select(sql`
      select ${value('linkId')}::integer, ${value('merchantId')}::uuid, ${value('label')}::text,
        ${value('amount')}::text, ${value('currency')}::text, ${value('customIdentifier')}::text,
        ${value('customIdentifier2')}::text, ${value('recurrent')}::boolean, ${value('totalPeriods')}::integer,
        ${value('statusId')}::integer, ${value('subscriptionId')}::integer, ${value('txId')}::text
      from ${fresh}`)
    .onConflictDoUpdate({ target: webhookLinks.linkId, set: savedLinkColumns })
    .returning({ linkId: webhookLinks.linkId })
    .prepare('gateway_save_created_link');
}

/** `link.created`'s one statement, beside the unit of work: inbox row and projected link together. */
export function postgresCreatedLinkRecorder(db: Database, inbox: InboxTable): CreatedLinkRecorder {
  return {
    handlerFor(consumer, linkOf) {
      const statement = createdLinkStatement(db, inbox);
      return idempotentStatement({
        consumer,
        async run(message) {
          const saved = await statement.execute({ consumer, messageId: message.id, ...linkOf(message) });
          return saved.length > 0;
        },
      });
    },
  };
}
