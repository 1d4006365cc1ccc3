import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '@payrail/time';
import {
  type CardProcessor,
  type ChargeResult,
  type ChargeStoredCardInput,
  type ConfirmationResult,
  type DeclineCategory,
  type OpenResult,
  type ProcessorId,
  type ProcessorStatus,
  SEND_WINDOW_PASSED,
  type StoredCard,
} from '../src/ports/card-processor';

/**
 * A card processor in memory, for the charge core's tests: it keeps customers, cards and a ledger of what
 * it actually charged, and lets a test script what happens next (decline codes per card, an outage, a reply
 * lost after the charge, an asynchronous charge). It is not a stub: a status query answers from its ledger,
 * a reused reference is refused like the real processors refuse it, and a webhook must carry a valid HMAC.
 * Card numbers exist only here, as a person would type them on the processor's form.
 */

export type Fault =
  /** 503 before anything happens: nothing charged. */
  | 'outage'
  /** The charge happens, then the reply is lost (our side sees a timeout). */
  | 'lose-reply'
  /** The request never arrives (our side sees a timeout); nothing charged. */
  | 'lose-request'
  /** The adapter itself throws (a bug in parsing an answer, after the request went out). */
  | 'throw-after-charge'
  /**
   * Our process dies before the request reaches the processor: the call never returns. `releaseHeld('die')`
   * ends it with nothing charged; `releaseHeld('arrive')` lets the request reach the processor late (charged).
   */
  | 'die-before-request'
  /** The charge happens, then our process dies before it reads the reply: the call never returns. */
  | 'die-after-charge'
  /**
   * Our live process is slow before the request would leave (the card listing, our database): the call
   * waits until `releaseHeld('arrive')`, then goes on as the adapters do: nothing is sent once its `sendBy`
   * has passed on `clock`, else the charge is made and answered.
   */
  | 'slow-before-request'
  /** As `slow-before-request`, then an outage answers (503): nothing charged, a late processor-down decline. */
  | 'slow-then-outage';

export interface LedgerEntry {
  processor: ProcessorId;
  reference: string;
  amount: string;
  currency: string;
  cardRef: string | null;
  code: string;
  at: number;
}

interface Card extends StoredCard {
  number: string;
  customerRef: string;
}

const SOFT = new Set(['05', '51', '61', '96']);

export function categoryOf(code: string): DeclineCategory {
  if (code === 'CardBlockedError') return 'card-blocked';
  return SOFT.has(code) ? 'soft' : 'hard';
}

export const FAKE_WEBHOOK_SECRET = 'fake-processor-webhook-secret';

export function signFakeWebhook(body: string): string {
  return createHmac('sha256', FAKE_WEBHOOK_SECRET).update(body).digest('hex');
}

export class FakeCardProcessor implements CardProcessor {
  readonly ledger: LedgerEntry[] = [];
  /** Every `chargeStoredCard` call, whatever happened to it. */
  readonly chargeCalls: ChargeStoredCardInput[] = [];
  readonly statusQueries: string[] = [];
  private readonly cards = new Map<string, Card>();
  private readonly registrations = new Map<string, { customerRef: string }>();
  private readonly hosted = new Map<string, { amount: string; currency: string; paid?: string }>();
  private readonly scripted = new Map<string, string[]>();
  private readonly faults: Fault[] = [];
  private readonly asyncPending = new Map<string, LedgerEntry>();
  private nextCardId = 1;
  private held: Array<(mode: 'die' | 'arrive') => void> = [];
  /** When true, stored-card charges answer `pending` and are decided by `decidePending` (PROCESSOR_B's style). */
  asynchronous = false;
  /** When true, the processor shows the whole number in its "masked" field (a processor's bug). */
  leakFullNumberInMask = false;
  /** Called on every charge before anything else, e.g. to look at our database at that instant. */
  onCharge?: (input: ChargeStoredCardInput) => Promise<void>;
  /** Delay before answering a charge, in ms. */
  chargeDelayMs = 0;
  /** The clock a charge's `sendBy` is read against, as the adapters read it (unset: not checked). */
  clock?: Clock;

  constructor(readonly id: ProcessorId = 'PARAGUAY.PROCESSOR_A') {}

  // ---- the test's controls -------------------------------------------------------------------------

  /** The next charges of this card answer these codes, in order (then `00`). */
  script(cardRef: string, codes: string[]): void {
    this.scripted.set(cardRef, [...(this.scripted.get(cardRef) ?? []), ...codes]);
  }

  /** The next calls (charges or status queries) meet these faults, in order. */
  inject(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** A person typed a card on the registration form: the processor now holds it for the customer. */
  completeRegistrationForm(
    registrationRef: string,
    number: string,
    expiry = { month: 12, year: 2030 },
  ): string {
    const registration = this.registrations.get(registrationRef);
    if (!registration) throw new Error(`no registration ${registrationRef}`);
    return this.addCard(registration.customerRef, number, expiry);
  }

  addCard(customerRef: string, number: string, expiry = { month: 12, year: 2030 }): string {
    const cardRef = `card-${this.nextCardId++}`;
    const last4 = number.slice(-4);
    this.cards.set(cardRef, {
      cardRef,
      customerRef,
      number,
      last4,
      maskedNumber: this.leakFullNumberInMask ? number : `${number.slice(0, 6)}******${last4}`,
      brand: number.startsWith('5') ? 'MASTERCARD' : 'VISA',
      expiryMonth: expiry.month,
      expiryYear: expiry.year,
    });
    return cardRef;
  }

  /** A person paid a hosted payment with this card number. */
  payHosted(reference: string, code = '00'): void {
    const payment = this.hosted.get(reference);
    if (!payment) throw new Error(`no hosted payment ${reference}`);
    payment.paid = code;
    this.ledger.push({
      processor: this.id,
      reference,
      amount: payment.amount,
      currency: payment.currency,
      cardRef: null,
      code,
      at: Date.now(),
    });
  }

  /** Decides an asynchronous charge (as PROCESSOR_B does some time after `pagar`). */
  decidePending(reference: string, code = '00'): void {
    const entry = this.asyncPending.get(reference);
    if (!entry) throw new Error(`no pending charge ${reference}`);
    this.asyncPending.delete(reference);
    this.ledger.push({ ...entry, code, at: Date.now() });
  }

  /** A confirmation as this processor would POST it to us. */
  webhookFor(
    reference: string,
    signature?: string,
    named: 'reference' | 'hash' = 'reference',
  ): { body: string; headers: Record<string, string> } {
    const body = JSON.stringify(named === 'hash' ? { hash: `h${reference}` } : { reference });
    return { body, headers: { 'x-fake-signature': signature ?? signFakeWebhook(body) } };
  }

  /** Ends the calls held by `die-before-request`, `die-after-charge` or `slow-*`; waits until they have ended. */
  async releaseHeld(mode: 'die' | 'arrive' = 'die'): Promise<void> {
    const held = this.held.splice(0);
    for (const release of held) release(mode);
    await new Promise((resolve) => setImmediate(resolve));
  }

  chargesOf(reference: string): LedgerEntry[] {
    return this.ledger.filter((entry) => entry.reference === reference);
  }

  // ---- the port ------------------------------------------------------------------------------------

  async openPayment(input: { reference: string; amount: string; currency: string }): Promise<OpenResult> {
    if (this.takeFault('outage'))
      return { kind: 'refused', decline: { code: '503', category: 'processor-down' } };
    if (this.hosted.has(input.reference))
      return { kind: 'refused', decline: { code: 'InvalidOperationError', category: 'hard' } };
    this.hosted.set(input.reference, { amount: input.amount, currency: input.currency });
    if (this.id === 'PARAGUAY.PROCESSOR_B') {
      return {
        kind: 'opened',
        form: {
          kind: 'redirect',
          url: `http://fake-processor.test/pagos/h${input.reference}`,
          hash: `h${input.reference}`,
        },
      };
    }
    return {
      kind: 'opened',
      form: {
        kind: 'iframe',
        processId: `p${input.reference}`,
        formUrl: `http://fake-processor.test/checkout/new?process_id=p${input.reference}`,
      },
    };
  }

  async openCardRegistration(input: { customerRef: string; registrationRef: string }): Promise<OpenResult> {
    if (this.takeFault('outage'))
      return { kind: 'refused', decline: { code: '503', category: 'processor-down' } };
    this.registrations.set(input.registrationRef, { customerRef: input.customerRef });
    return {
      kind: 'opened',
      form: {
        kind: 'redirect',
        url: `http://fake-processor.test/cards/new/${input.registrationRef}`,
        hash: `r${input.registrationRef}`,
      },
    };
  }

  async completeCardRegistration(input: { customerRef: string }): Promise<StoredCard[]> {
    return this.listCards(input.customerRef);
  }

  async listCards(customerRef: string): Promise<StoredCard[]> {
    return [...this.cards.values()]
      .filter((card) => card.customerRef === customerRef)
      .map(({ number: _number, customerRef: _customer, ...card }) => card);
  }

  async chargeStoredCard(input: ChargeStoredCardInput): Promise<ChargeResult> {
    this.chargeCalls.push(input);
    await this.onCharge?.(input);
    if (this.chargeDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.chargeDelayMs));
    const fault = this.faults.shift();
    if (fault === 'outage') return { kind: 'declined', code: '503', category: 'processor-down' };
    if (fault === 'lose-request') return { kind: 'unknown', reason: 'timeout' };
    const late = fault === 'die-before-request' ? await this.hold() : undefined;
    if (late === 'die') throw new Error('process died');
    if (fault === 'slow-before-request' || fault === 'slow-then-outage') {
      if ((await this.hold()) === 'die') throw new Error('process died');
      if (fault === 'slow-then-outage') return { kind: 'declined', code: '503', category: 'processor-down' };
    }
    // (A request held by `die-before-request` had already left: it arrives whatever the time.)
    if (late === undefined && this.clock && this.clock.now().getTime() >= input.sendBy.getTime())
      return { kind: 'unknown', reason: SEND_WINDOW_PASSED };
    const card = this.cards.get(input.cardRef);
    if (!card || card.customerRef !== input.customerRef)
      return { kind: 'declined', code: '14', category: 'hard', message: 'invalid card' };
    // The real processors refuse an id they have seen and never charge it twice; our adapters answer that
    // refusal as `unknown` (PROCESSOR_A's "process has already been taken") so that the status query decides.
    if (
      this.ledger.some((entry) => entry.reference === input.reference) ||
      this.asyncPending.has(input.reference)
    )
      return { kind: 'unknown', reason: 'reference already taken' };
    const code = this.scripted.get(input.cardRef)?.shift() ?? '00';
    const entry: LedgerEntry = {
      processor: this.id,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      cardRef: input.cardRef,
      code,
      at: Date.now(),
    };
    if (this.asynchronous) {
      this.asyncPending.set(input.reference, entry);
      if (fault === 'lose-reply') return { kind: 'unknown', reason: 'timeout' };
      return { kind: 'pending', processorReference: `h${input.reference}` };
    }
    this.ledger.push(entry);
    // A dead process reads no reply (its call fails; what it writes then is as harmless as a lost reply).
    if (fault === 'die-after-charge') await this.hold();
    if (fault === 'die-after-charge' || late === 'arrive') throw new Error('process died');
    if (fault === 'lose-reply') return { kind: 'unknown', reason: 'timeout' };
    if (fault === 'throw-after-charge') throw new Error('unreadable reply');
    if (code === '00') return { kind: 'approved', authorizationCode: `A${input.reference.slice(-6)}` };
    return { kind: 'declined', code, category: categoryOf(code) };
  }

  async queryStatus(input: { reference: string }): Promise<ProcessorStatus> {
    this.statusQueries.push(input.reference);
    if (this.takeFault('outage')) return { status: 'unreachable', reason: '503' };
    if (this.asyncPending.has(input.reference)) return { status: 'pending' };
    const entry = this.ledger.filter((e) => e.reference === input.reference).at(-1);
    if (!entry) {
      const hosted = this.hosted.get(input.reference);
      return hosted ? { status: 'pending' } : { status: 'not-found' };
    }
    if (entry.code === 'REVERSED') return { status: 'reversed' };
    if (entry.code === '00')
      return { status: 'paid', amount: entry.amount, currency: entry.currency, authorizationCode: 'Q1' };
    return { status: 'declined', code: entry.code, category: categoryOf(entry.code) };
  }

  async verifyConfirmation(raw: {
    body: string;
    headers: Record<string, string>;
  }): Promise<ConfirmationResult> {
    const given = Buffer.from(raw.headers['x-fake-signature'] ?? '');
    const expected = Buffer.from(signFakeWebhook(raw.body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { kind: 'rejected', reason: 'bad signature', reply: { status: 401, body: { status: 'error' } } };
    // Like PROCESSOR_B, a confirmation may name the order only by the processor's own hash.
    const named = JSON.parse(raw.body) as { reference?: string; hash?: string };
    const reference = named.reference ?? named.hash?.replace(/^h/, '') ?? '';
    const outcome = await this.queryStatus({ reference });
    return {
      kind: 'verified',
      reference: named.reference ?? '',
      processorReference: named.hash,
      outcome,
      reply: { status: 200, body: { status: 'success' } },
    };
  }

  async reverse(input: { reference: string }) {
    const entry = this.ledger.find((e) => e.reference === input.reference && e.code === '00');
    if (!entry) return { kind: 'refused' as const, code: 'PaymentNotFoundError' };
    this.ledger.push({ ...entry, code: 'REVERSED', at: Date.now() });
    return { kind: 'reversed' as const };
  }

  async removeCard(input: { customerRef: string; cardRef: string }): Promise<boolean> {
    // The port has no value for "could not ask" here: the adapters throw.
    if (this.takeFault('outage')) throw new Error('processor unavailable');
    const card = this.cards.get(input.cardRef);
    if (!card || card.customerRef !== input.customerRef) return false;
    this.cards.delete(input.cardRef);
    return true;
  }

  private hold(): Promise<'die' | 'arrive'> {
    return new Promise((resolve) => this.held.push(resolve));
  }

  private takeFault(kind: Fault): boolean {
    if (this.faults[0] !== kind) return false;
    this.faults.shift();
    return true;
  }
}
