import { gatherCalls } from '@payrail/messaging';
import { context } from '@payrail/observability';
import { type Charge, isSettled, type Settlement } from '../domain/charge';
import type { OpenedStoredCardCharge } from '../ports/charge-store';
import type { InContext } from '../ports/event-outbox';
import {
  askProcessorToCharge,
  chargeStoredCard,
  newStoredCardCharge,
  type StoredCardChargeOutcome,
  type StoredCardChargeRequest,
  settleStoredCardCharge,
} from './charge-stored-card';
import { chargeSettled } from './events';
import { applySettlement, type ChargeDeps, chargeAfter } from './settle-charge';

export interface StoredCardChargeBatchOptions {
  /** Most charges opened, or settled, by one statement. */
  maxBatch: number;
  /** How long a charge waits for others before its batch goes. */
  gatherMs: number;
}

/**
 * 20 ms: a batch holds what arrives in that time, and its statements cost the same whatever its size. At
 * 300 charges a second, 5 ms made batches of about 10 charges to open and 7 to settle (five round trips
 * each); the wait is nothing beside a charge's way through the services.
 */
export const STORED_CARD_BATCH_DEFAULTS: StoredCardChargeBatchOptions = { maxBatch: 50, gatherMs: 20 };

/** The charge a batch opened, with the card to charge. */
interface Opened {
  charge: Charge;
  method: Pick<OpenedStoredCardCharge, 'customerRef' | 'cardRef'>;
}

interface Answered {
  charge: Charge;
  settlement: Settlement;
  within: InContext;
}

/**
 * `chargeStoredCard` for many charges in flight at once (an as-of run's `charge.requested`), with the same
 * rules and fewer round trips: the charges that arrive within `gatherMs` of each other are committed
 * `pending` by one statement, each is sent to the processor on its own (in its own trace context), and the
 * answers that come back together are applied in one transaction with one outbox statement.
 *
 * Only the common case is batched. A charge the batch did not open (a key seen before, a payment method
 * removed, blocked or not the merchant's) goes through `chargeStoredCard` alone, which decides it as it
 * always did; an answer other than an approval is applied alone too, inside the batch's transaction (a
 * decline counts towards the card's lock). When a batch's statement fails, each of its charges goes the
 * single way, so a batch never does less than the single path would.
 */
export function storedCardChargeBatches(
  deps: ChargeDeps,
  options: StoredCardChargeBatchOptions = STORED_CARD_BATCH_DEFAULTS,
): (request: StoredCardChargeRequest) => Promise<StoredCardChargeOutcome> {
  const open = gatherCalls<StoredCardChargeRequest, Opened | null>({
    ...options,
    run: (requests) => openCharges(deps, requests),
  });
  const settle = gatherCalls<Answered, Charge>({
    ...options,
    run: (answers) => settleCharges(deps, answers),
  });

  return async function charge(request) {
    const opened = await open(request).catch(() => null);
    if (!opened) return chargeStoredCard(deps, request);
    const settlement = await askProcessorToCharge(deps, opened.charge, opened.method, request.description);
    const active = context.active();
    const within: InContext = (work) => context.with(active, work);
    const settled = await settle({ charge: opened.charge, settlement, within }).catch(() =>
      settleStoredCardCharge(deps, opened.charge.id, settlement),
    );
    return { kind: 'charged', charge: settled };
  };
}

/** One statement for the batch; a request it did not insert gets null (the single path decides it). */
async function openCharges(
  deps: ChargeDeps,
  requests: StoredCardChargeRequest[],
): Promise<Array<Opened | null>> {
  const now = deps.clock.now();
  const drafts = requests.map((request) =>
    newStoredCardCharge(request, {
      paymentMethodId: request.paymentMethodId,
      processorCalls: 1,
      now,
      timings: deps.timings,
    }),
  );
  const inserted = new Map(
    (await deps.stores.charges.insertStoredCardCharges(drafts, now)).map((opened) => [opened.id, opened]),
  );
  return drafts.map((draft) => {
    const opened = inserted.get(draft.id);
    if (!opened) return null;
    return {
      charge: { ...draft, processor: opened.processor },
      method: { customerRef: opened.customerRef, cardRef: opened.cardRef },
    };
  });
}

/**
 * The answers of a batch in one transaction: its rows locked in id order; the approvals saved by one
 * statement and announced by another; anything else applied one by one with `applySettlement`, in the
 * order of their cards (two batches lock a card's row in the same order). A row settled in the meantime
 * (the janitor, a webhook) is left as it is, as `applySettlement` would.
 */
async function settleCharges(deps: ChargeDeps, answers: Answered[]): Promise<Charge[]> {
  return deps.transaction(async (stores) => {
    const now = deps.clock.now();
    const locked = new Map(
      (await stores.charges.lockCharges(answers.map((answer) => answer.charge.id))).map((row) => [
        row.id,
        row,
      ]),
    );
    const results: Charge[] = new Array(answers.length);
    const approved: Charge[] = [];
    const events: Array<{ event: ReturnType<typeof chargeSettled>[number]; within: InContext }> = [];
    const alone: number[] = [];
    answers.forEach((answer, index) => {
      const row = locked.get(answer.charge.id);
      if (!row) throw new Error(`charge ${answer.charge.id} vanished`);
      if (isSettled(row.status)) {
        results[index] = row;
      } else if (answer.settlement.status === 'succeeded') {
        const next = chargeAfter(row, answer.settlement, now, deps.timings);
        approved.push(next);
        results[index] = next;
        for (const event of chargeSettled(next, now)) events.push({ event, within: answer.within });
      } else {
        alone.push(index);
      }
    });
    await stores.charges.saveCharges(approved);
    await stores.outbox.publishEach(events);
    alone.sort((a, b) => cardOrder(answers[a] as Answered, answers[b] as Answered));
    for (const index of alone) {
      const answer = answers[index] as Answered;
      const row = locked.get(answer.charge.id) as Charge;
      results[index] = await answer.within(() =>
        applySettlement(stores, row, answer.settlement, now, deps.timings),
      );
    }
    return results;
  });
}

function cardOrder(a: Answered, b: Answered): number {
  const first = a.charge.paymentMethodId ?? '';
  const second = b.charge.paymentMethodId ?? '';
  if (first !== second) return first < second ? -1 : 1;
  return a.charge.id < b.charge.id ? -1 : a.charge.id > b.charge.id ? 1 : 0;
}
