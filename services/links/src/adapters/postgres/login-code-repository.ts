import type { Database } from '@payrail/db';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { LoginCodeRepository } from '../../ports/login-code-repository';
import { loginCodes, paymentLinks } from './schema';

export function postgresLoginCodeRepository(db: Database): LoginCodeRepository {
  return {
    async consume({ codeHash, slug, now }) {
      // One conditional UPDATE: the row lock makes a concurrent second use find `consumed_at` set.
      const [grant] = await db
        .update(loginCodes)
        .set({ consumedAt: now })
        .where(
          and(
            eq(loginCodes.codeHash, codeHash),
            isNull(loginCodes.consumedAt),
            gt(loginCodes.expiresAt, now),
            eq(
              loginCodes.linkId,
              sql`(select ${paymentLinks.id} from ${paymentLinks} where ${paymentLinks.slug} = ${slug})`,
            ),
          ),
        )
        .returning({
          merchantId: loginCodes.merchantId,
          customerId: loginCodes.customerId,
          linkId: loginCodes.linkId,
        });
      return grant;
    },
  };
}
