import { type CardLockState, isBlocked, recordDecline } from '../domain/card-lock';
import { APPROVED, type EnteredCard, naturalCode, type ResponseCode } from '../domain/cards';
import type { ProcessorId } from './processors';

interface ScriptedOutcome {
  last4: string;
  processor?: ProcessorId;
  codes: ResponseCode[];
}

/**
 * Decides the response code of each payment: codes scripted by the test API first, then the test
 * card's own behaviour. Also keeps each card's history (approved payments, declines for the lock rule).
 */
export class CardOutcomes {
  private scripted: ScriptedOutcome[] = [];
  private approvedPayments = new Map<string, number>();
  private locks = new Map<string, CardLockState>();

  script(outcome: ScriptedOutcome): void {
    this.scripted = this.scripted.filter(
      (s) => !(s.last4 === outcome.last4 && s.processor === outcome.processor),
    );
    if (outcome.codes.length > 0) this.scripted.push({ ...outcome, codes: [...outcome.codes] });
  }

  decide(processor: ProcessorId, card: EnteredCard, storedCharge: boolean): ResponseCode {
    const scripted =
      this.scripted.find((s) => s.last4 === card.last4 && s.processor === processor) ??
      this.scripted.find((s) => s.last4 === card.last4 && s.processor === undefined);
    if (scripted) {
      const code = scripted.codes.shift() as ResponseCode;
      if (scripted.codes.length === 0) this.scripted = this.scripted.filter((s) => s !== scripted);
      return code;
    }
    return naturalCode(card, {
      storedCharge,
      earlierApprovedPayments: this.approvedPayments.get(card.number) ?? 0,
    });
  }

  /** Counts an approval or a decline; `countsForLock` is false where the processor has no lock rule. */
  record(card: EnteredCard, code: ResponseCode, now: Date, countsForLock: boolean): void {
    if (code === APPROVED) {
      this.approvedPayments.set(card.number, (this.approvedPayments.get(card.number) ?? 0) + 1);
    } else if (countsForLock) {
      this.locks.set(card.number, recordDecline(this.locks.get(card.number) ?? { declines: [] }, now));
    }
  }

  isBlocked(card: EnteredCard, now: Date): boolean {
    return isBlocked(this.locks.get(card.number), now);
  }

  clear(): void {
    this.scripted = [];
    this.approvedPayments.clear();
    this.locks.clear();
  }
}
