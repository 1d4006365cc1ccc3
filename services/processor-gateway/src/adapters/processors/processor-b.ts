import { PROCESSOR_TIME_ZONE } from '@payrail/contracts';
import type { Logger } from '@payrail/observability';
import { type Clock, localDateTime } from '@payrail/time';
import {
  type CardProcessor,
  type ChargeResult,
  type ChargeStoredCardInput,
  type ConfirmationResult,
  type Decline,
  type OpenResult,
  type ProcessorStatus,
  type ReversalResult,
  SEND_WINDOW_PASSED,
  type StoredCard,
  type WebhookReply,
} from '../../ports/card-processor';
import { declineFromResponseCode, processorDown } from './decline-categories';
import { amountForProcessorB, amountFromProcessor } from './processor-amounts';
import { processorBToken } from './processor-b-token';
import { answerMayHideACharge, createProcessorHttp, type ProcessorExchange } from './processor-http';
import type { ProcessorAdapterSettings } from './processor-settings';
import { ProcessorUnavailable } from './processor-unavailable';
import { sameToken } from './token-compare';
import { isObject, type JsonObject, parseExpiry, parseJson, textOf } from './wire-json';

/** B's stored-card charges run against an order we create first; it only has to outlive the charge. */
const STORED_CHARGE_ORDER_LIFETIME_MS = 48 * 60 * 60 * 1000;
/** A hosted payment's order stays payable this long unless the caller says otherwise. */
const HOSTED_ORDER_LIFETIME_MS = 24 * 60 * 60 * 1000;

// B answers in Spanish prose; these are the refusals the adapter must tell apart.
const ORDER_EXISTS = 'El pedido ya existe para ese comercio';
const ORDER_ALREADY_PAID = 'El pedido ya fue pagado';
const ORDER_NOT_PAID = 'El pedido no está pagado';
const ORDER_ALREADY_REVERSED = 'El pedido ya fue reversado';
const NO_SUCH_ORDER = 'No existe pedido';
const ORDER_BEING_PAID = 'El pedido tiene un pago en proceso';
const NO_SUCH_CUSTOMER = 'Cliente inexistente';
const ALIAS_INVALID = 'Alias de tarjeta inválido o expirado';
const TOKEN_MISMATCH = 'Token no coincide';
const PUBLIC_KEY_MISMATCH = 'Public key no coincide';

type Answered = Extract<ProcessorExchange, { kind: 'answered' }>;

/**
 * PROCESSOR_B, a redirect-style processor shaped like Pagopar: SHA-1 tokens, whole-number amounts, a
 * processor-assigned order hash, a full-page redirect, a payment notification retried until its `resultado`
 * is echoed, status polling (`traer`) that must confirm every notification, stored cards behind a mandatory
 * confirm step with 15-minute single-use aliases, and an asynchronous charge against an order created first.
 */
export function createProcessorB(
  settings: ProcessorAdapterSettings,
  deps: { logger: Logger; clock?: Clock; fetch?: typeof fetch },
): CardProcessor {
  const { publicKey, privateKey } = settings;
  const clock = deps.clock ?? { now: () => new Date() };
  const exchange = createProcessorHttp({
    baseUrl: settings.baseUrl,
    timeoutMs: settings.timeoutMs,
    fetch: deps.fetch,
  });
  const logger = deps.logger.child({ processor: settings.id });
  const recurringToken = () => processorBToken.recurring(privateKey);

  function call(path: string, body: JsonObject) {
    return exchange('POST', `api/${path}`, body);
  }

  function recurring(operation: string, body: JsonObject) {
    return call(`pago-recurrente/3.0/${operation}`, {
      token: recurringToken(),
      token_publico: publicKey,
      ...body,
    });
  }

  async function startOrder(input: {
    reference: string;
    integerAmount: string;
    description: string;
    expiresAt: Date;
    buyer?: { name?: string; email?: string; phone?: string; documentNumber?: string };
  }): Promise<{ kind: 'started'; hash: string } | { kind: 'exists' } | { kind: 'failed'; decline: Decline }> {
    const reply = await call('comercios/2.0/iniciar-transaccion', {
      token: processorBToken.startTransaction(privateKey, input.reference, input.integerAmount),
      public_key: publicKey,
      monto_total: Number(input.integerAmount),
      id_pedido_comercio: input.reference,
      tipo_pedido: 'VENTA-COMERCIO',
      descripcion_resumen: input.description,
      // B's dates are wall-clock `YYYY-MM-DD HH:mm:ss` in Asunción.
      fecha_maxima_pago: localDateTime(input.expiresAt, PROCESSOR_TIME_ZONE),
      forma_pago: 9,
      comprador: {
        nombre: input.buyer?.name ?? '',
        email: input.buyer?.email ?? '',
        telefono: input.buyer?.phone ?? '',
        documento: input.buyer?.documentNumber ?? '',
        tipo_documento: 'CI',
      },
      compras_items: [
        {
          nombre: input.description,
          cantidad: 1,
          precio_total: Number(input.integerAmount),
          id_producto: input.reference,
        },
      ],
    });
    // Starting an order moves no money: a lost reply leaves at most an unpaid order that expires.
    if (reply.kind !== 'answered') return { kind: 'failed', decline: processorDown(reply.reason) };
    if (isSuccessful(reply.body)) {
      const first = firstResult(reply.body);
      const hash = first ? textOf(first['data']) : undefined;
      if (hash) return { kind: 'started', hash };
      return { kind: 'failed', decline: processorDown('start answered without a hash', 'InvalidAnswer') };
    }
    if (messageOf(reply) === ORDER_EXISTS) return { kind: 'exists' };
    return { kind: 'failed', decline: refusalOf(reply) };
  }

  async function traer(
    lookup: { hash: string } | { reference: string },
  ): Promise<
    { kind: 'order'; order: JsonObject } | { kind: 'none' } | { kind: 'unreachable'; reason: string }
  > {
    const reply = await call('pedidos/1.1/traer', {
      token: processorBToken.query(privateKey),
      token_publico: publicKey,
      // Looking an order up by our own id is a sandbox extra; a real B answers only by hash.
      ...('hash' in lookup ? { hash_pedido: lookup.hash } : { id_pedido_comercio: lookup.reference }),
    });
    if (reply.kind !== 'answered') return { kind: 'unreachable', reason: reply.reason };
    if (isSuccessful(reply.body)) {
      const order = firstResult(reply.body);
      return order ? { kind: 'order', order } : { kind: 'none' };
    }
    if (messageOf(reply) === NO_SUCH_ORDER) return { kind: 'none' };
    return { kind: 'unreachable', reason: describeRefusal(reply) };
  }

  async function queryStatus(input: {
    reference: string;
    processorReference?: string;
  }): Promise<ProcessorStatus> {
    const found = await traer(
      input.processorReference ? { hash: input.processorReference } : { reference: input.reference },
    );
    if (found.kind === 'unreachable') return { status: 'unreachable', reason: found.reason };
    if (found.kind === 'none') return { status: 'not-found' };
    return statusOfOrder(found.order);
  }

  async function cardsWithAliases(
    customerRef: string,
  ): Promise<
    { kind: 'cards'; cards: Array<StoredCard & { alias: string }> } | { kind: 'failed'; decline: Decline }
  > {
    const reply = await recurring('listar-tarjeta', { identificador: customerRef });
    if (reply.kind !== 'answered') return { kind: 'failed', decline: processorDown(reply.reason) };
    if (isSuccessful(reply.body) && isObject(reply.body)) {
      const list = Array.isArray(reply.body['resultado']) ? reply.body['resultado'] : [];
      return {
        kind: 'cards',
        cards: list.flatMap((raw) => {
          const card = storedCardFromB(raw);
          return card ? [card] : [];
        }),
      };
    }
    // A customer B never heard of simply has no cards.
    if (messageOf(reply) === NO_SUCH_CUSTOMER) return { kind: 'cards', cards: [] };
    return { kind: 'failed', decline: refusalOf(reply) };
  }

  async function listCards(customerRef: string): Promise<StoredCard[]> {
    const listing = await cardsWithAliases(customerRef);
    if (listing.kind === 'failed') throw new ProcessorUnavailable(settings.id, listing.decline);
    return listing.cards.map(({ alias: _alias, ...card }) => card);
  }

  async function payOrder(
    input: ChargeStoredCardInput,
    hash: string,
    secondTry: boolean,
  ): Promise<ChargeResult> {
    const listing = await cardsWithAliases(input.customerRef);
    if (listing.kind === 'failed') return { kind: 'declined', processorReference: hash, ...listing.decline };
    const card = listing.cards.find((candidate) => candidate.cardRef === input.cardRef);
    if (!card)
      return {
        kind: 'declined',
        processorReference: hash,
        code: 'CardNotFound',
        category: 'hard',
        message: 'card no longer at the processor',
      };
    // Opening the order and the listing (or our own database before them) took too long: the janitor may
    // already be asking about this reference, so `pagar` must not arrive after its answer. Nothing was sent.
    if (clock.now().getTime() >= input.sendBy.getTime())
      return { kind: 'unknown', reason: SEND_WINDOW_PASSED, processorReference: hash };
    const reply = await recurring('pagar', {
      identificador: input.customerRef,
      hash_pedido: hash,
      tarjeta: card.alias,
    });
    if (reply.kind === 'not-sent')
      return { kind: 'declined', processorReference: hash, ...processorDown(reply.reason) };
    // B named the order before we paid it: the status query can use the hash (a real B answers only by it).
    if (reply.kind === 'no-answer')
      return { kind: 'unknown', reason: reply.reason, processorReference: hash };
    // Accepted: B decides later and says so by notification; traer confirms.
    if (isSuccessful(reply.body)) return { kind: 'pending', processorReference: hash };
    const message = messageOf(reply);
    if (message === ALIAS_INVALID && !secondTry) return payOrder(input, hash, true);
    if (message === ORDER_BEING_PAID) return { kind: 'pending', processorReference: hash };
    // Already paid or already being paid under this reference: an earlier call got through.
    if (message === ORDER_ALREADY_PAID)
      return resultFromStatus(
        await queryStatus({ reference: input.reference, processorReference: hash }),
        hash,
      );
    if (message === undefined && answerMayHideACharge(reply.status))
      return {
        kind: 'unknown',
        reason: `HTTP ${reply.status} without a readable answer`,
        processorReference: hash,
      };
    return { kind: 'declined', processorReference: hash, ...refusalOf(reply) };
  }

  /**
   * Charging again under a reference B already knows (our earlier reply was lost, or the core retries the
   * same charge): look at that order before paying, so a paid or in-flight order is never paid twice.
   */
  async function chargeExistingOrder(input: ChargeStoredCardInput): Promise<ChargeResult> {
    const found = await traer({ reference: input.reference });
    if (found.kind === 'unreachable')
      return { kind: 'unknown', reason: `order exists, status unknown: ${found.reason}` };
    if (found.kind === 'none') return { kind: 'unknown', reason: 'order exists but cannot be found' };
    const hash = textOf(found.order['hash_pedido']);
    const status = statusOfOrder(found.order);
    if (!hash) return { kind: 'unknown', reason: 'order without a hash' };
    // An order that shows no attempt yet is paid now; if B is in fact deciding on an earlier attempt it
    // refuses the second one ("pago en proceso") and the answer is `pending`, never a second charge.
    if (status.status === 'pending') return payOrder(input, hash, false);
    return resultFromStatus(status, hash);
  }

  return {
    id: settings.id,

    async openPayment(input): Promise<OpenResult> {
      const integerAmount = amountForProcessorB(input.amount);
      if (integerAmount === undefined)
        return refused('InvalidAmount', 'hard', 'PROCESSOR_B takes whole amounts only');
      // B sends the person back to the return page configured in its merchant panel, not to a URL per order.
      const started = await startOrder({
        reference: input.reference,
        integerAmount,
        description: input.description,
        expiresAt: input.expiresAt
          ? new Date(input.expiresAt)
          : new Date(clock.now().getTime() + HOSTED_ORDER_LIFETIME_MS),
        buyer: input.buyer,
      });
      if (started.kind === 'failed') return { kind: 'refused', decline: started.decline };
      if (started.kind === 'exists')
        return refused('OrderExists', 'hard', 'an order already exists under this reference');
      return {
        kind: 'opened',
        form: {
          kind: 'redirect',
          hash: started.hash,
          url: pageUrl(settings.baseUrl, `pagos/${started.hash}`),
        },
      };
    },

    async openCardRegistration(input): Promise<OpenResult> {
      const customer = await recurring('agregar-cliente', {
        identificador: input.customerRef,
        nombre_apellido: input.name ?? '',
        email: input.email ?? '',
        celular: input.phone ?? '',
      });
      if (customer.kind !== 'answered') return { kind: 'refused', decline: processorDown(customer.reason) };
      if (!isSuccessful(customer.body)) return { kind: 'refused', decline: refusalOf(customer) };
      const card = await recurring('agregar-tarjeta', {
        identificador: input.customerRef,
        url: input.returnUrl,
        proveedor: 'Bancard',
      });
      if (card.kind !== 'answered') return { kind: 'refused', decline: processorDown(card.reason) };
      const formId =
        isSuccessful(card.body) && isObject(card.body) ? textOf(card.body['resultado']) : undefined;
      if (!formId) return { kind: 'refused', decline: refusalOf(card) };
      return {
        kind: 'opened',
        form: { kind: 'redirect', hash: formId, url: pageUrl(settings.baseUrl, `pagos/tarjetas/${formId}`) },
      };
    },

    // B lists a card only after this mandatory confirmation.
    async completeCardRegistration(input) {
      const reply = await recurring('confirmar-tarjeta', { identificador: input.customerRef });
      if (reply.kind !== 'answered') throw new ProcessorUnavailable(settings.id, processorDown(reply.reason));
      if (!isSuccessful(reply.body)) throw new ProcessorUnavailable(settings.id, refusalOf(reply));
      return listCards(input.customerRef);
    },

    listCards,

    async chargeStoredCard(input): Promise<ChargeResult> {
      const integerAmount = amountForProcessorB(input.amount);
      if (integerAmount === undefined)
        return {
          kind: 'declined',
          code: 'InvalidAmount',
          category: 'hard',
          message: 'PROCESSOR_B takes whole amounts only',
        };
      const started = await startOrder({
        reference: input.reference,
        integerAmount,
        description: input.description,
        expiresAt: new Date(clock.now().getTime() + STORED_CHARGE_ORDER_LIFETIME_MS),
      });
      const result =
        started.kind === 'started'
          ? await payOrder(input, started.hash, false)
          : started.kind === 'exists'
            ? await chargeExistingOrder(input)
            : ({ kind: 'declined', ...started.decline } as const);
      if (result.kind === 'unknown')
        logger.warn({ reference: input.reference, reason: result.reason }, 'charge outcome unknown');
      return result;
    },

    queryStatus,

    async verifyConfirmation(raw): Promise<ConfirmationResult> {
      const body = parseJson(raw.body);
      const resultado = isObject(body) ? body['resultado'] : undefined;
      const orders = Array.isArray(resultado) ? resultado.filter(isObject) : [];
      if (orders.length === 0 || orders.length !== (resultado as unknown[]).length)
        return {
          kind: 'rejected',
          reason: 'not a notification',
          reply: errorReply('Datos inválidos: resultado'),
        };
      // Every entry must carry its own valid token before any of them is looked at.
      for (const order of orders) {
        const hash = textOf(order['hash_pedido']);
        if (!hash || !sameToken(processorBToken.notification(privateKey, hash), order['token'])) {
          logger.warn({ hash }, 'notification with a bad token refused');
          return { kind: 'rejected', reason: 'bad token', reply: errorReply(TOKEN_MISMATCH) };
        }
      }
      const notified = orders[0]!;
      const hash = textOf(notified['hash_pedido'])!;
      // The notification only says "look now": the state is what traer answers, so a late or duplicated
      // notification can never move a payment backwards.
      const found = await traer({ hash });
      if (found.kind === 'unreachable') {
        // Not echoing makes B send it again in ten minutes, by which time traer may answer.
        return {
          kind: 'verified',
          reference: textOf(notified['id_pedido_comercio']) ?? hash,
          processorReference: hash,
          outcome: { status: 'unreachable', reason: found.reason },
          reply: { status: 503, body: { respuesta: false, resultado: 'Consulta de estado no disponible' } },
        };
      }
      if (found.kind === 'none')
        return {
          kind: 'rejected',
          reason: 'order unknown to the processor',
          reply: errorReply(NO_SUCH_ORDER),
        };
      // A real B names the order only by its hash; the sandbox also gives our id. The gateway finds the charge
      // by either.
      const reference =
        textOf(found.order['id_pedido_comercio']) ?? textOf(notified['id_pedido_comercio']) ?? hash;
      return {
        kind: 'verified',
        reference,
        processorReference: hash,
        outcome: statusOfOrder(found.order),
        // B stops retrying only when its own `resultado` comes back unchanged.
        reply: { status: 200, body: { respuesta: true, resultado } },
      };
    },

    async reverse(input): Promise<ReversalResult> {
      let hash = input.processorReference;
      if (!hash) {
        const found = await traer({ reference: input.reference });
        // Nothing was asked to be reversed yet.
        if (found.kind === 'unreachable') return { kind: 'unavailable', reason: found.reason };
        if (found.kind === 'none') return { kind: 'refused', code: 'NoSuchOrder', message: NO_SUCH_ORDER };
        hash = textOf(found.order['hash_pedido']);
        if (!hash) return { kind: 'unknown', reason: 'order without a hash' };
      }
      const reply = await call('pedidos/1.1/reversar', {
        token: processorBToken.reverse(privateKey),
        token_publico: publicKey,
        hash_pedido: hash,
      });
      if (reply.kind === 'not-sent') return { kind: 'unavailable', reason: reply.reason };
      if (reply.kind !== 'answered') return { kind: 'unknown', reason: reply.reason };
      if (isSuccessful(reply.body) && isObject(reply.body)) {
        const mode = textOf(reply.body['resultado']);
        if (mode === 'Inmediata') return { kind: 'reversed' };
        if (mode === 'Agendada') return { kind: 'scheduled' };
        return { kind: 'unknown', reason: `reversal answered ${String(mode)}` };
      }
      const message = messageOf(reply);
      // B says the same of a reversal applied and of one it holds scheduled: its order tells which.
      if (message === ORDER_ALREADY_REVERSED) return reversalOf(await traer({ hash }));
      // Its outage answer says that nothing was done; a 503 it did not word may hide a reversal made.
      if (reply.status === 503 && message !== undefined)
        return { kind: 'unavailable', reason: describeRefusal(reply) };
      if (reply.status === 503 || message === undefined)
        return { kind: 'unknown', reason: describeRefusal(reply) };
      return { kind: 'refused', code: refusalCode(message), message };
    },

    async removeCard(input) {
      const listing = await cardsWithAliases(input.customerRef);
      if (listing.kind === 'failed') throw new ProcessorUnavailable(settings.id, listing.decline);
      const card = listing.cards.find((candidate) => candidate.cardRef === input.cardRef);
      if (!card) return false;
      const reply = await recurring('eliminar-tarjeta', {
        identificador: input.customerRef,
        tarjeta: card.alias,
      });
      if (reply.kind === 'answered' && isSuccessful(reply.body)) return true;
      if (reply.kind === 'answered' && messageOf(reply) === ALIAS_INVALID) return false;
      throw new ProcessorUnavailable(
        settings.id,
        reply.kind === 'answered' ? refusalOf(reply) : processorDown(reply.reason),
      );
    },
  };
}

/**
 * A reversal B already has, from its order: applied (`fecha_reversion` set) or still scheduled. An order
 * that cannot be read now leaves it unknown: the status query settles it later.
 */
function reversalOf(
  found: { kind: 'order'; order: JsonObject } | { kind: 'none' } | { kind: 'unreachable'; reason: string },
): ReversalResult {
  if (found.kind === 'unreachable') return { kind: 'unknown', reason: found.reason };
  if (found.kind === 'none') return { kind: 'unknown', reason: 'reversed order no longer found' };
  return statusOfOrder(found.order).status === 'reversed' ? { kind: 'reversed' } : { kind: 'scheduled' };
}

function isSuccessful(body: unknown): boolean {
  return isObject(body) && body['respuesta'] === true;
}

function firstResult(body: unknown): JsonObject | undefined {
  if (!isObject(body) || !Array.isArray(body['resultado'])) return undefined;
  const first = body['resultado'][0];
  return isObject(first) ? first : undefined;
}

/** B's refusal text (`{respuesta: false, resultado: "<text>"}`). */
function messageOf(reply: Answered): string | undefined {
  if (!isObject(reply.body) || reply.body['respuesta'] !== false) return undefined;
  return textOf(reply.body['resultado']);
}

function describeRefusal(reply: Answered): string {
  return messageOf(reply) ?? `HTTP ${reply.status}`;
}

/** A short stable code for B's prose refusals (it has no error keys). */
function refusalCode(message: string): string {
  if (message === TOKEN_MISMATCH) return 'InvalidToken';
  if (message === PUBLIC_KEY_MISMATCH) return 'InvalidPublicKey';
  if (message === ALIAS_INVALID) return 'AliasExpired';
  if (message === ORDER_NOT_PAID) return 'OrderNotPaid';
  if (message === ORDER_ALREADY_PAID) return 'OrderAlreadyPaid';
  if (message === NO_SUCH_ORDER) return 'NoSuchOrder';
  if (message === ORDER_EXISTS) return 'OrderExists';
  if (message.startsWith('Datos inválidos')) return 'InvalidData';
  return 'Refused';
}

/**
 * A refusal that proves nothing was charged. B has no card lock, so there is no `card-blocked` here. Our own
 * keys being refused is not the card's fault and heals when they are fixed: `processor-down`, retryable.
 */
function refusalOf(reply: Answered): Decline {
  const message = messageOf(reply);
  if (reply.status === 503) return processorDown(message);
  if (message === undefined) return processorDown(`HTTP ${reply.status}`, String(reply.status));
  const code = refusalCode(message);
  if (code === 'InvalidToken' || code === 'InvalidPublicKey') return processorDown(message, code);
  if (code === 'AliasExpired') return { code, category: 'soft', message };
  return { code, category: 'hard', message };
}

/**
 * What an order says now. Paid only while `pagado` holds and no reversal date is set; a charge that B has
 * accepted but not decided shows `pagado: false` with no response code yet, exactly as an order nothing has
 * paid does (`unpaidOrder`).
 */
function statusOfOrder(order: JsonObject): ProcessorStatus {
  const processorReference = textOf(order['hash_pedido']);
  const withReference = processorReference ? { processorReference } : {};
  if (order['fecha_reversion'] !== null && order['fecha_reversion'] !== undefined)
    return { status: 'reversed', ...withReference };
  if (order['pagado'] === true) {
    const authorizationCode = textOf(order['numero_comprobante_interno']);
    const amount = amountFromProcessor(order['monto']);
    return {
      status: 'paid',
      ...withReference,
      ...(amount ? { amount } : {}),
      ...(authorizationCode ? { authorizationCode } : {}),
    };
  }
  const code = textOf(order['codigo_respuesta']);
  if (code && code !== '00')
    return {
      status: 'declined',
      ...withReference,
      ...declineFromResponseCode(code, textOf(order['ultimo_mensaje_error'])),
    };
  // An unpaid order past its deadline can never be paid: nothing was charged under it.
  if (order['cancelado'] === true) return { status: 'not-found' };
  return { status: 'pending', ...withReference, unpaidOrder: true };
}

function resultFromStatus(status: ProcessorStatus, hash: string): ChargeResult {
  switch (status.status) {
    case 'paid':
      return {
        kind: 'approved',
        processorReference: hash,
        ...(status.authorizationCode ? { authorizationCode: status.authorizationCode } : {}),
      };
    case 'declined': {
      const { status: _status, ...decline } = status;
      return { kind: 'declined', ...decline, processorReference: hash };
    }
    case 'pending':
      return { kind: 'pending', processorReference: hash };
    case 'reversed':
      // Paid once and reversed since: charging again under the same reference would be a second charge.
      return { kind: 'declined', processorReference: hash, code: 'OrderReversed', category: 'hard' };
    case 'not-found':
      return { kind: 'declined', processorReference: hash, code: 'OrderCancelled', category: 'hard' };
    case 'unreachable':
      return { kind: 'unknown', reason: status.reason };
  }
}

function storedCardFromB(raw: unknown): (StoredCard & { alias: string }) | undefined {
  if (!isObject(raw)) return undefined;
  const alias = textOf(raw['alias_token']);
  const cardRef = textOf(raw['id_tarjeta']);
  const maskedNumber = textOf(raw['tarjeta_numero']);
  const expiry = parseExpiry(raw['vencimiento']);
  if (!alias || !cardRef || !maskedNumber || !expiry) return undefined;
  return {
    alias,
    cardRef,
    maskedNumber,
    last4: maskedNumber.slice(-4),
    brand: textOf(raw['marca']) ?? 'unknown',
    ...expiry,
  };
}

function refused(code: string, category: Decline['category'], message: string): OpenResult {
  return { kind: 'refused', decline: { code, category, message } };
}

function pageUrl(baseUrl: string, path: string): string {
  return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).toString();
}

function errorReply(resultado: string): WebhookReply {
  return { status: 400, body: { respuesta: false, resultado } };
}
