import { PROCESSOR_TIME_ZONE } from '@payrail/contracts';
import { instantOfLocalDateTime, localDateTime, sameLocalDay } from '@payrail/time';
import {
  APPROVED,
  type EnteredCard,
  formatExpiry,
  RESPONSE_DESCRIPTIONS,
  type ResponseCode,
  SLOW_CARD_DELAY_MS,
} from '../domain/cards';
import { processorBTokens } from './signatures';
import { randomDigits, randomToken } from './ids';
import { withQuery } from './processor-a';
import { PROCESSOR_B } from './processors';
import type { SandboxCore } from './sandbox-state';

/** PROCESSOR_B's card aliases are single use and live 15 minutes. */
export const ALIAS_TTL_B_MS = 15 * 60_000;
/** A reversal asked for after the day of payment is scheduled; the sandbox applies it a day later. */
export const SCHEDULED_REVERSAL_DELAY_MS = 24 * 3_600_000;

export class ProcessorBError extends Error {
  constructor(
    readonly httpStatus: 400 | 404 | 503,
    readonly resultado: string,
  ) {
    super(resultado);
  }
}

export interface OrderView {
  pagado: boolean;
  cancelado: boolean;
  hash_pedido: string;
  numero_pedido: string;
  id_pedido_comercio: string;
  monto: number;
  fecha_maxima_pago: string | null;
  fecha_pago: string | null;
  numero_comprobante_interno: string | null;
  forma_pago: string;
  forma_pago_identificador: string;
  codigo_respuesta: ResponseCode | null;
  ultimo_mensaje_error: string | null;
  tarjeta_numero: string | null;
  fecha_reversion: string | null;
  token: string;
}

interface Order {
  hash: string;
  number: string;
  commerceOrderId: string;
  amount: number;
  maxPaymentAt?: Date;
  maxPaymentText: string | null;
  paidAt?: Date;
  receipt?: string;
  code?: ResponseCode;
  lastError?: string;
  maskedCard?: string;
  last4?: string;
  /** A stored-card charge accepted and not settled yet. */
  chargeInProgress: boolean;
  reversal?: { appliesAt: Date; appliedAt?: Date };
}

interface StoredCard {
  id: string;
  customerId: string;
  card: EnteredCard;
  confirmed: boolean;
}

interface CardForm {
  id: string;
  customerId: string;
  url: string;
  used: boolean;
}

interface Alias {
  token: string;
  customerId: string;
  cardId: string;
  expiresAt: Date;
  used: boolean;
}

export interface HostedResultB {
  outcome: 'approved' | 'declined' | 'registered' | 'failed';
  responseCode: ResponseCode | null;
  redirectUrl: string;
  delayMs: number;
  message?: string;
}

/**
 * PROCESSOR_B, shaped like Pagopar: orders paid on a full-page redirect, a notification retried until
 * echoed, `traer` polling, reversal immediate the same day and scheduled after, and recurring charges
 * (customer, hosted card form, mandatory confirm, 15-minute aliases, asynchronous charge of an order).
 */
export class ProcessorB {
  private orders = new Map<string, Order>();
  private orderByCommerceId = new Map<string, string>();
  private customers = new Set<string>();
  private cards = new Map<string, StoredCard[]>();
  private forms = new Map<string, CardForm>();
  private aliases = new Map<string, Alias>();
  private nextOrderNumber = 1001;
  private timers = new Set<NodeJS.Timeout>();

  constructor(private readonly core: SandboxCore) {}

  private get privateKey() {
    return this.core.settings.processorB.privateKey;
  }

  reset(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.orders.clear();
    this.orderByCommerceId.clear();
    this.customers.clear();
    this.cards.clear();
    this.forms.clear();
    this.aliases.clear();
    this.nextOrderNumber = 1001;
  }

  startTransaction(input: { commerceOrderId: string; amount: number; maxPaymentText?: string }) {
    if (this.orderByCommerceId.has(input.commerceOrderId)) {
      throw new ProcessorBError(400, 'El pedido ya existe para ese comercio');
    }
    let maxPaymentAt: Date | undefined;
    if (input.maxPaymentText) {
      maxPaymentAt = instantOfLocalDateTime(input.maxPaymentText, PROCESSOR_TIME_ZONE);
      if (!maxPaymentAt) throw new ProcessorBError(400, 'Datos inválidos: fecha_maxima_pago');
    }
    const order: Order = {
      hash: randomToken(20),
      number: String(this.nextOrderNumber++),
      commerceOrderId: input.commerceOrderId,
      amount: input.amount,
      maxPaymentAt,
      maxPaymentText: input.maxPaymentText ?? null,
      chargeInProgress: false,
    };
    this.orders.set(order.hash, order);
    this.orderByCommerceId.set(order.commerceOrderId, order.hash);
    return { hash: order.hash, number: order.number };
  }

  describeOrder(hash: string): { amount: number; open: boolean; paid: boolean } | undefined {
    const order = this.orders.get(hash);
    if (!order) return undefined;
    return { amount: order.amount, open: this.isPayable(order), paid: order.paidAt !== undefined };
  }

  hasCardForm(id: string): { open: boolean } | undefined {
    const form = this.forms.get(id);
    return form ? { open: !form.used } : undefined;
  }

  returnUrl(hash: string): string {
    return this.core.settings.processorB.returnUrlTemplate.replaceAll('($hash)', hash);
  }

  /** The customer paid on the payment page (or the test API did it for them). */
  async payHosted(hash: string, card: EnteredCard): Promise<HostedResultB> {
    const order = this.payableOrder(hash);
    const now = this.core.clock.now();
    const code = this.core.outcomes.decide(PROCESSOR_B, card, false);
    this.core.outcomes.record(card, code, now, false);
    this.settle(order, card, code, now);
    if (code !== APPROVED) {
      // A refused card leaves the order open: the buyer may try another card on the same page.
      return {
        outcome: 'declined',
        responseCode: code,
        redirectUrl: this.returnUrl(hash),
        delayMs: 0,
        message: `${code} ${RESPONSE_DESCRIPTIONS[code]}`,
      };
    }
    await this.notify(order, { dropFirstAttempt: card.behaviour.kind === 'reply-lost' });
    return {
      outcome: 'approved',
      responseCode: code,
      redirectUrl: this.returnUrl(hash),
      delayMs: card.behaviour.kind === 'slow' ? SLOW_CARD_DELAY_MS : 0,
    };
  }

  query(input: { hash?: string; commerceOrderId?: string }): OrderView {
    const hash = input.hash ?? this.orderByCommerceId.get(input.commerceOrderId ?? '');
    const order = hash ? this.orders.get(hash) : undefined;
    if (!order) throw new ProcessorBError(400, 'No existe pedido');
    return this.view(order);
  }

  reverse(hash: string): 'Inmediata' | 'Agendada' {
    const order = this.orders.get(hash);
    if (!order) throw new ProcessorBError(400, 'No existe pedido');
    if (order.reversal) throw new ProcessorBError(400, 'El pedido ya fue reversado');
    if (!order.paidAt || order.code !== APPROVED) throw new ProcessorBError(400, 'El pedido no está pagado');
    const now = this.core.clock.now();
    if (sameLocalDay(order.paidAt, now, PROCESSOR_TIME_ZONE)) {
      order.reversal = { appliesAt: now };
      void this.applyReversal(order, now);
      return 'Inmediata';
    }
    order.reversal = { appliesAt: new Date(now.getTime() + SCHEDULED_REVERSAL_DELAY_MS) };
    return 'Agendada';
  }

  /** Applies scheduled reversals that became due on the simulated clock. */
  async runDue(): Promise<void> {
    const now = this.core.clock.now();
    for (const order of this.orders.values()) {
      if (
        order.reversal &&
        !order.reversal.appliedAt &&
        order.reversal.appliesAt.getTime() <= now.getTime()
      ) {
        await this.applyReversal(order, now);
      }
    }
  }

  addCustomer(customerId: string): void {
    this.customers.add(customerId);
  }

  addCard(customerId: string, url: string): string {
    this.requireCustomer(customerId);
    const form: CardForm = { id: randomToken(12), customerId, url, used: false };
    this.forms.set(form.id, form);
    return form.id;
  }

  registerHosted(formId: string, card: EnteredCard): HostedResultB {
    const form = this.forms.get(formId);
    if (!form) throw new ProcessorBError(404, 'Formulario inexistente');
    if (form.used) throw new ProcessorBError(400, 'Formulario ya utilizado');
    form.used = true;
    const fails = card.behaviour.kind === 'decline' && card.behaviour.failsRegistration;
    if (!fails) {
      const cards = this.cards.get(form.customerId) ?? [];
      cards.push({ id: randomToken(8), customerId: form.customerId, card, confirmed: false });
      this.cards.set(form.customerId, cards);
    }
    const status = fails ? 'add_new_card_fail' : 'add_new_card_success';
    return {
      outcome: fails ? 'failed' : 'registered',
      responseCode: null,
      redirectUrl: withQuery(form.url, { status }),
      delayMs: 0,
    };
  }

  confirmCards(customerId: string): void {
    this.requireCustomer(customerId);
    for (const stored of this.cards.get(customerId) ?? []) stored.confirmed = true;
  }

  listCards(customerId: string) {
    this.requireCustomer(customerId);
    const expiresAt = new Date(this.core.clock.now().getTime() + ALIAS_TTL_B_MS);
    return (this.cards.get(customerId) ?? [])
      .filter((stored) => stored.confirmed)
      .map((stored) => {
        const alias: Alias = {
          token: randomToken(16),
          customerId,
          cardId: stored.id,
          expiresAt,
          used: false,
        };
        this.aliases.set(alias.token, alias);
        return {
          alias_token: alias.token,
          id_tarjeta: stored.id,
          tarjeta_numero: stored.card.masked,
          marca: stored.card.brand,
          vencimiento: formatExpiry(stored.card),
          proveedor: 'Bancard',
          tipo_tarjeta: 'Crédito',
        };
      });
  }

  deleteCard(customerId: string, aliasToken: string): void {
    const stored = this.useAlias(customerId, aliasToken);
    this.cards.set(
      customerId,
      (this.cards.get(customerId) ?? []).filter((c) => c.id !== stored.id),
    );
  }

  /**
   * Accepts a stored-card charge of an order; the result comes later, by notification and `traer`.
   * The authorisation is recorded before this returns (slow card: 8 s later).
   */
  charge(input: { customerId: string; hash: string; aliasToken: string }): { replyLost: boolean } {
    const order = this.orders.get(input.hash);
    if (!order) throw new ProcessorBError(400, 'No existe pedido');
    if (order.paidAt && order.code === APPROVED) throw new ProcessorBError(400, 'El pedido ya fue pagado');
    if (order.chargeInProgress) throw new ProcessorBError(400, 'El pedido tiene un pago en proceso');
    this.payableOrder(input.hash);
    const stored = this.useAlias(input.customerId, input.aliasToken);
    order.chargeInProgress = true;
    const authorise = () => {
      const now = this.core.clock.now();
      const code = this.core.outcomes.decide(PROCESSOR_B, stored.card, true);
      this.core.outcomes.record(stored.card, code, now, false);
      this.settle(order, stored.card, code, now);
      order.chargeInProgress = false;
    };
    if (stored.card.behaviour.kind === 'slow') {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        authorise();
        void this.notify(order);
      }, SLOW_CARD_DELAY_MS);
      this.timers.add(timer);
    } else {
      authorise();
      // After the reply: the charge is asynchronous for the merchant.
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.notify(order);
      }, 0);
      this.timers.add(timer);
    }
    return { replyLost: stored.card.behaviour.kind === 'reply-lost' };
  }

  private useAlias(customerId: string, token: string): StoredCard {
    const alias = this.aliases.get(token);
    const now = this.core.clock.now();
    const invalid = () => new ProcessorBError(400, 'Alias de tarjeta inválido o expirado');
    if (!alias || alias.used || alias.customerId !== customerId) throw invalid();
    if (alias.expiresAt.getTime() <= now.getTime()) throw invalid();
    const stored = (this.cards.get(customerId) ?? []).find((c) => c.id === alias.cardId);
    if (!stored) throw invalid();
    alias.used = true;
    return stored;
  }

  private requireCustomer(customerId: string): void {
    if (!this.customers.has(customerId)) throw new ProcessorBError(400, 'Cliente inexistente');
  }

  private isPayable(order: Order): boolean {
    const now = this.core.clock.now();
    const expired = order.maxPaymentAt !== undefined && order.maxPaymentAt.getTime() < now.getTime();
    return !(order.paidAt && order.code === APPROVED) && !expired && !order.chargeInProgress;
  }

  private payableOrder(hash: string): Order {
    const order = this.orders.get(hash);
    if (!order) throw new ProcessorBError(404, 'No existe pedido');
    if (order.paidAt && order.code === APPROVED) throw new ProcessorBError(400, 'El pedido ya fue pagado');
    if (!this.isPayable(order)) throw new ProcessorBError(400, 'El pedido está cancelado o en proceso');
    return order;
  }

  private settle(order: Order, card: EnteredCard, code: ResponseCode, now: Date): void {
    order.code = code;
    order.maskedCard = card.masked;
    order.last4 = card.last4;
    if (code === APPROVED) {
      order.paidAt = now;
      order.receipt = randomDigits(7);
      order.lastError = undefined;
    } else {
      order.lastError = RESPONSE_DESCRIPTIONS[code];
    }
    this.core.ledger.record({
      processor: PROCESSOR_B,
      kind: 'charge',
      reference: order.commerceOrderId,
      processReference: order.hash,
      amount: String(order.amount),
      currency: 'PYG',
      resultCode: code,
      last4: card.last4,
      at: now.toISOString(),
    });
  }

  private applyReversal(order: Order, now: Date): Promise<void> {
    if (!order.reversal) return Promise.resolve();
    order.reversal.appliedAt = now;
    this.core.ledger.record({
      processor: PROCESSOR_B,
      kind: 'reversal',
      reference: order.commerceOrderId,
      processReference: order.hash,
      amount: String(order.amount),
      currency: 'PYG',
      resultCode: APPROVED,
      last4: order.last4 ?? '',
      at: now.toISOString(),
    });
    return this.notify(order);
  }

  private notify(order: Order, options: { dropFirstAttempt?: boolean } = {}): Promise<void> {
    const resultado = [this.view(order)];
    return this.core.webhooks.sendUntilEchoed(
      PROCESSOR_B,
      { respuesta: true, resultado },
      resultado,
      options,
    );
  }

  private view(order: Order): OrderView {
    const now = this.core.clock.now();
    const paid = order.paidAt !== undefined && order.code === APPROVED;
    const reversed = order.reversal?.appliedAt !== undefined;
    const expired = order.maxPaymentAt !== undefined && order.maxPaymentAt.getTime() < now.getTime();
    return {
      pagado: paid && !reversed,
      cancelado: !paid && expired,
      hash_pedido: order.hash,
      numero_pedido: order.number,
      id_pedido_comercio: order.commerceOrderId,
      monto: order.amount,
      fecha_maxima_pago: order.maxPaymentText,
      fecha_pago: paid && order.paidAt ? localDateTime(order.paidAt, PROCESSOR_TIME_ZONE) : null,
      numero_comprobante_interno: paid ? (order.receipt ?? null) : null,
      forma_pago: 'Tarjetas de crédito/débito',
      forma_pago_identificador: '1',
      codigo_respuesta: order.chargeInProgress ? null : (order.code ?? null),
      ultimo_mensaje_error: order.lastError ?? null,
      tarjeta_numero: order.maskedCard ?? null,
      fecha_reversion: order.reversal?.appliedAt
        ? localDateTime(order.reversal.appliedAt, PROCESSOR_TIME_ZONE)
        : null,
      token: processorBTokens.notification(this.privateKey, order.hash),
    };
  }
}
