import { PROCESSOR_TIME_ZONE } from '@payrail/contracts';
import { sameLocalDay } from '@payrail/time';
import {
  APPROVED,
  type EnteredCard,
  formatExpiry,
  RESPONSE_DESCRIPTIONS,
  type ResponseCode,
  SLOW_CARD_DELAY_MS,
} from '../domain/cards';
import { processorATokens } from './signatures';
import { randomDigits, randomToken } from './ids';
import { PROCESSOR_A } from './processors';
import type { SandboxCore } from './sandbox-state';

/** Card alias tokens of PROCESSOR_A are single use and live about 10 minutes. */
export const ALIAS_TTL_A_MS = 10 * 60_000;

export class ProcessorAError extends Error {
  constructor(
    readonly httpStatus: 400 | 401 | 404 | 503,
    readonly key: string,
    readonly dsc: string,
  ) {
    super(`${key}: ${dsc}`);
  }
}

export interface ConfirmationA {
  token: string;
  shop_process_id: number;
  response: 'S' | 'N';
  response_details: string;
  amount: string;
  currency: string;
  authorization_number: string | null;
  ticket_number: string;
  response_code: ResponseCode;
  response_description: string;
  extended_response_description: string | null;
  security_information: {
    card_source: string;
    customer_ip: string;
    card_country: string;
    version: string;
    risk_index: number;
  };
  card_masked_number: string;
  card_brand: string;
}

interface Payment {
  spid: string;
  processId: string;
  origin: 'single_buy' | 'charge';
  amount: string;
  currency: string;
  returnUrl?: string;
  cancelUrl?: string;
  formUsed: boolean;
  cancelled: boolean;
  confirmation?: ConfirmationA;
  paidAt?: Date;
  rolledBack: boolean;
}

interface Registration {
  processId: string;
  userId: string;
  cardId: string;
  returnUrl: string;
  formUsed: boolean;
}

interface StoredCard {
  userId: string;
  cardId: string;
  card: EnteredCard;
}

interface Alias {
  token: string;
  userId: string;
  cardId: string;
  expiresAt: Date;
  used: boolean;
}

export interface HostedResult {
  outcome: 'approved' | 'declined' | 'registered' | 'failed' | 'cancelled';
  responseCode: ResponseCode | null;
  /** payment_success | payment_fail | add_new_card_success | add_new_card_fail | payment_cancel */
  status: string;
  redirectUrl: string;
  processId: string;
  /** Milliseconds the processor takes before answering the browser (slow test card). */
  delayMs: number;
}

/** Codes a processor reports as "processed" (`S`) although the payment is refused. */
const PROCESSED_DECLINES = new Set<ResponseCode>(['51', '54', '57', '61']);

/**
 * PROCESSOR_A, shaped like Bancard vPOS 2.0: iframe payments (single_buy), a webhook sent once,
 * status query, same-day rollback, stored cards with short-lived single-use aliases and a synchronous
 * charge. One class because its operations share one merchant's books.
 */
export class ProcessorA {
  private payments = new Map<string, Payment>();
  private paymentByProcess = new Map<string, string>();
  private registrations = new Map<string, Registration>();
  private cards = new Map<string, StoredCard[]>();
  private aliases = new Map<string, Alias>();

  constructor(private readonly core: SandboxCore) {}

  private get privateKey() {
    return this.core.settings.processorA.privateKey;
  }

  /** The stored cards, by user and card id, with the last four digits only. */
  storedCards(): Array<{ userId: string; cardId: string; last4: string }> {
    return [...this.cards.values()].flatMap((cards) =>
      cards.map((stored) => ({ userId: stored.userId, cardId: stored.cardId, last4: stored.card.last4 })),
    );
  }

  /** Stores `card` for each (user, card id) not stored yet, as a registration on the hosted form does. */
  restoreStoredCards(card: EnteredCard, entries: Array<{ userId: string; cardId: string }>): number {
    let restored = 0;
    for (const { userId, cardId } of entries) {
      const cards = this.cards.get(userId) ?? [];
      if (cards.some((stored) => stored.cardId === cardId)) continue;
      cards.push({ userId, cardId, card });
      this.cards.set(userId, cards);
      restored += 1;
    }
    return restored;
  }

  reset(): void {
    this.payments.clear();
    this.paymentByProcess.clear();
    this.registrations.clear();
    this.cards.clear();
    this.aliases.clear();
  }

  singleBuy(input: {
    spid: string;
    amount: string;
    currency: string;
    returnUrl: string;
    cancelUrl: string;
  }): { processId: string } {
    this.claimSpid(input.spid);
    const processId = randomToken(10);
    this.payments.set(input.spid, {
      spid: input.spid,
      processId,
      origin: 'single_buy',
      amount: input.amount,
      currency: input.currency,
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      formUsed: false,
      cancelled: false,
      rolledBack: false,
    });
    this.paymentByProcess.set(processId, input.spid);
    return { processId };
  }

  describeProcess(
    processId: string,
  ):
    | { kind: 'payment'; amount: string; currency: string; open: boolean }
    | { kind: 'registration'; open: boolean }
    | undefined {
    const spid = this.paymentByProcess.get(processId);
    const payment = spid ? this.payments.get(spid) : undefined;
    if (payment) {
      return {
        kind: 'payment',
        amount: payment.amount,
        currency: payment.currency,
        open: !payment.formUsed && !payment.cancelled,
      };
    }
    const registration = this.registrations.get(processId);
    if (registration) return { kind: 'registration', open: !registration.formUsed };
    return undefined;
  }

  /** The customer submitted the hosted payment form (or the test API did it for them). */
  async payHosted(processId: string, card: EnteredCard): Promise<HostedResult> {
    const payment = this.openPayment(processId);
    payment.formUsed = true;
    const now = this.core.clock.now();
    const code: ResponseCode = this.core.outcomes.isBlocked(card, now)
      ? '57'
      : this.core.outcomes.decide(PROCESSOR_A, card, false);
    if (!this.core.outcomes.isBlocked(card, now)) {
      this.core.outcomes.record(card, code, now, true);
    }
    const confirmation = this.settle(payment, card, code, now);
    // The processor confirms to the merchant before it lets the browser go back.
    await this.core.webhooks.sendOnce(
      PROCESSOR_A,
      { operation: confirmation },
      { dropFirstAttempt: card.behaviour.kind === 'reply-lost' },
    );
    const approved = code === APPROVED;
    const status = approved ? 'payment_success' : 'payment_fail';
    const query: Record<string, string> = { status };
    if (!approved) query.description = confirmation.response_description;
    return {
      outcome: approved ? 'approved' : 'declined',
      responseCode: code,
      status,
      redirectUrl: withQuery(payment.returnUrl ?? '', query),
      processId,
      delayMs: card.behaviour.kind === 'slow' ? SLOW_CARD_DELAY_MS : 0,
    };
  }

  cancelHosted(processId: string): HostedResult {
    const payment = this.openPayment(processId);
    payment.cancelled = true;
    return {
      outcome: 'cancelled',
      responseCode: null,
      status: 'payment_cancel',
      redirectUrl: payment.cancelUrl ?? '',
      processId,
      delayMs: 0,
    };
  }

  getConfirmation(spid: string): ConfirmationA {
    const payment = this.payments.get(spid);
    if (!payment) throw new ProcessorAError(404, 'BuyNotFoundError', 'No existe el proceso de compra');
    if (payment.rolledBack) {
      throw new ProcessorAError(400, 'AlreadyRollbackedError', 'La transaccion ya fue revertida');
    }
    if (!payment.confirmation) {
      throw new ProcessorAError(404, 'PaymentNotFoundError', 'No se encontro el pago');
    }
    return payment.confirmation;
  }

  rollback(spid: string): void {
    const payment = this.payments.get(spid);
    if (!payment) throw new ProcessorAError(404, 'BuyNotFoundError', 'No existe el proceso de compra');
    if (payment.rolledBack) {
      throw new ProcessorAError(400, 'AlreadyRollbackedError', 'La transaccion ya fue revertida');
    }
    const now = this.core.clock.now();
    const approved = payment.confirmation?.response_code === APPROVED;
    // Only until the end of the day of payment: after it the payment is settled ("cuponada").
    if (approved && payment.paidAt && !sameLocalDay(payment.paidAt, now, PROCESSOR_TIME_ZONE)) {
      throw new ProcessorAError(
        400,
        'TransactionAlreadyConfirmed',
        'La transaccion ya fue confirmada, no puede revertirse',
      );
    }
    payment.rolledBack = true;
    payment.cancelled = true;
    if (approved && payment.confirmation) {
      this.core.ledger.record({
        processor: PROCESSOR_A,
        kind: 'rollback',
        reference: payment.spid,
        processReference: payment.processId,
        amount: payment.amount,
        currency: payment.currency,
        resultCode: APPROVED,
        last4: payment.confirmation.card_masked_number.slice(-4),
        at: now.toISOString(),
      });
    }
  }

  newCard(input: { cardId: string; userId: string; returnUrl: string }): { processId: string } {
    const taken = (this.cards.get(input.userId) ?? []).some((c) => c.cardId === input.cardId);
    if (taken) throw new ProcessorAError(400, 'InvalidOperationError', 'card_id has already been taken');
    const processId = randomToken(10);
    this.registrations.set(processId, { processId, formUsed: false, ...input });
    return { processId };
  }

  registerHosted(processId: string, card: EnteredCard): HostedResult {
    const registration = this.registrations.get(processId);
    if (!registration) throw new ProcessorAError(404, 'BuyNotFoundError', 'Proceso desconocido');
    if (registration.formUsed) {
      throw new ProcessorAError(400, 'InvalidOperationError', 'process has already been used');
    }
    registration.formUsed = true;
    const fails = card.behaviour.kind === 'decline' && card.behaviour.failsRegistration;
    const cards = this.cards.get(registration.userId) ?? [];
    if (!fails && !cards.some((c) => c.cardId === registration.cardId)) {
      cards.push({ userId: registration.userId, cardId: registration.cardId, card });
      this.cards.set(registration.userId, cards);
    }
    const status = fails ? 'add_new_card_fail' : 'add_new_card_success';
    return {
      outcome: fails ? 'failed' : 'registered',
      responseCode: null,
      status,
      redirectUrl: withQuery(registration.returnUrl, { status }),
      processId,
      delayMs: 0,
    };
  }

  cancelRegistration(processId: string): HostedResult {
    const registration = this.registrations.get(processId);
    if (!registration) throw new ProcessorAError(404, 'BuyNotFoundError', 'Proceso desconocido');
    registration.formUsed = true;
    return {
      outcome: 'cancelled',
      responseCode: null,
      status: 'add_new_card_fail',
      redirectUrl: withQuery(registration.returnUrl, { status: 'add_new_card_fail' }),
      processId,
      delayMs: 0,
    };
  }

  /** Every listing hands out a fresh alias per card. */
  listCards(userId: string) {
    const expiresAt = new Date(this.core.clock.now().getTime() + ALIAS_TTL_A_MS);
    return (this.cards.get(userId) ?? []).map((stored) => {
      const alias: Alias = {
        token: randomToken(16),
        userId,
        cardId: stored.cardId,
        expiresAt,
        used: false,
      };
      this.aliases.set(alias.token, alias);
      return {
        alias_token: alias.token,
        card_masked_number: stored.card.masked,
        expiration_date: formatExpiry(stored.card),
        card_brand: stored.card.brand,
        card_id: Number(stored.cardId),
        card_type: 'credit',
      };
    });
  }

  async charge(input: {
    spid: string;
    amount: string;
    currency: string;
    aliasToken: string;
  }): Promise<{ confirmation: ConfirmationA; replyLost: boolean; delayMs: number }> {
    this.claimSpid(input.spid);
    const stored = this.useAlias(input.aliasToken);
    const now = this.core.clock.now();
    const payment: Payment = {
      spid: input.spid,
      processId: randomToken(10),
      origin: 'charge',
      amount: input.amount,
      currency: input.currency,
      formUsed: true,
      cancelled: false,
      rolledBack: false,
    };
    if (this.core.outcomes.isBlocked(stored.card, now)) {
      // The attempt is refused before any authorisation: no charge, but the spid is spent.
      this.payments.set(input.spid, { ...payment, cancelled: true });
      throw new ProcessorAError(400, 'CardBlockedError', 'Tarjeta bloqueada para este comercio');
    }
    this.payments.set(input.spid, payment);
    this.paymentByProcess.set(payment.processId, input.spid);
    const code = this.core.outcomes.decide(PROCESSOR_A, stored.card, true);
    this.core.outcomes.record(stored.card, code, now, true);
    const confirmation = this.settle(payment, stored.card, code, now);
    return {
      confirmation,
      replyLost: stored.card.behaviour.kind === 'reply-lost',
      delayMs: stored.card.behaviour.kind === 'slow' ? SLOW_CARD_DELAY_MS : 0,
    };
  }

  deleteCard(userId: string, aliasToken: string): void {
    const stored = this.useAlias(aliasToken, userId);
    const remaining = (this.cards.get(userId) ?? []).filter((c) => c.cardId !== stored.cardId);
    this.cards.set(userId, remaining);
  }

  private useAlias(token: string, userId?: string): StoredCard {
    const alias = this.aliases.get(token);
    const now = this.core.clock.now();
    const expired = () =>
      new ProcessorAError(400, 'CardAliasTokenExpiredError', 'El alias token ha expirado o no es valido');
    if (!alias || alias.used || alias.expiresAt.getTime() <= now.getTime()) throw expired();
    if (userId !== undefined && alias.userId !== userId) throw expired();
    alias.used = true;
    const stored = (this.cards.get(alias.userId) ?? []).find((c) => c.cardId === alias.cardId);
    if (!stored) throw expired();
    return stored;
  }

  private claimSpid(spid: string): void {
    if (this.payments.has(spid)) {
      throw new ProcessorAError(400, 'InvalidOperationError', 'process has already been taken');
    }
  }

  private openPayment(processId: string): Payment {
    const spid = this.paymentByProcess.get(processId);
    const payment = spid ? this.payments.get(spid) : undefined;
    if (payment?.origin !== 'single_buy') {
      throw new ProcessorAError(404, 'BuyNotFoundError', 'Proceso desconocido');
    }
    if (payment.formUsed || payment.cancelled) {
      throw new ProcessorAError(400, 'InvalidOperationError', 'process has already been used');
    }
    return payment;
  }

  /** Records the result of an authorisation: confirmation, ledger entry. */
  private settle(payment: Payment, card: EnteredCard, code: ResponseCode, now: Date): ConfirmationA {
    const approved = code === APPROVED;
    const confirmation: ConfirmationA = {
      token: processorATokens.confirm(this.privateKey, payment.spid, payment.amount, payment.currency),
      shop_process_id: Number(payment.spid),
      response: approved || PROCESSED_DECLINES.has(code) ? 'S' : 'N',
      response_details: approved ? 'Procesado Satisfactoriamente' : 'Transaccion rechazada',
      amount: payment.amount,
      currency: payment.currency,
      authorization_number: approved ? randomDigits(6) : null,
      ticket_number: randomDigits(10),
      response_code: code,
      response_description: RESPONSE_DESCRIPTIONS[code],
      extended_response_description: null,
      security_information: {
        card_source: 'L',
        customer_ip: '127.0.0.1',
        card_country: 'PARAGUAY',
        version: '0.3',
        risk_index: 0,
      },
      card_masked_number: card.masked,
      card_brand: card.brand,
    };
    payment.confirmation = confirmation;
    payment.paidAt = now;
    this.core.ledger.record({
      processor: PROCESSOR_A,
      kind: 'charge',
      reference: payment.spid,
      processReference: payment.processId,
      amount: payment.amount,
      currency: payment.currency,
      resultCode: code,
      last4: card.last4,
      at: now.toISOString(),
    });
    return confirmation;
  }
}

export function withQuery(url: string, query: Record<string, string>): string {
  const suffix = new URLSearchParams(query).toString();
  if (!url) return `?${suffix}`;
  return `${url}${url.includes('?') ? '&' : '?'}${suffix}`;
}
