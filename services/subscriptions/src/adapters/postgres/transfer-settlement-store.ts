import type { Executor } from '@payrail/db';
import { and, eq } from 'drizzle-orm';
import { ConcurrentModification } from '../../domain/errors';
import type { TransferSettlementStore } from '../../ports/transfer-settlement-store';
import { isUniqueViolation } from './rows';
import { bankTransferSettlements } from './schema';

/** The installments paid by bank transfer, by reference, on the executor given. */
export function postgresTransferSettlementStore(executor: Executor): TransferSettlementStore {
  return {
    async findTransferSettlement(merchantId, reference) {
      const [row] = await executor
        .select()
        .from(bankTransferSettlements)
        .where(
          and(
            eq(bankTransferSettlements.merchantId, merchantId),
            eq(bankTransferSettlements.reference, reference),
          ),
        );
      return row;
    },

    async recordTransferSettlement(settlement) {
      try {
        await executor.insert(bankTransferSettlements).values(settlement);
      } catch (error) {
        // Only a request racing with the same reference for another installment gets here (the lock on the
        // subscription orders two for the same one): the first wins, this one stores nothing.
        if (isUniqueViolation(error, 'bank_transfer_settlements_merchant_id_reference_pk')) {
          throw new ConcurrentModification('The bank reference was used meanwhile; try again');
        }
        throw error;
      }
    },
  };
}
