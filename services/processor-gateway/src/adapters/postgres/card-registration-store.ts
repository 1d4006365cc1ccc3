import type { Executor } from '@payrail/db';
import { and, eq } from 'drizzle-orm';
import type { ProcessorId } from '../../ports/card-processor';
import type { CardRegistration, CardRegistrationStore } from '../../ports/card-registration-store';
import { cardRegistrations } from './schema';

type RegistrationRow = typeof cardRegistrations.$inferSelect;

function toRegistration(row: RegistrationRow): CardRegistration {
  return { ...row, processor: row.processor as ProcessorId };
}

/** Card registrations on PostgreSQL, bound to the database or to one transaction. */
export function postgresCardRegistrationStore(db: Executor): CardRegistrationStore {
  return {
    async insertRegistration(registration) {
      await db.insert(cardRegistrations).values(registration);
    },
    async lockRegistration(merchantId, registrationId) {
      const [row] = await db
        .select()
        .from(cardRegistrations)
        .where(and(eq(cardRegistrations.id, registrationId), eq(cardRegistrations.merchantId, merchantId)))
        .for('update');
      return row && toRegistration(row);
    },
    async saveRegistration(registration) {
      const { id, ...changes } = registration;
      await db.update(cardRegistrations).set(changes).where(eq(cardRegistrations.id, id));
    },
  };
}
