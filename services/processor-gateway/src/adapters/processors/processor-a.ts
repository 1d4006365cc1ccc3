import type { Logger } from '@payrail/observability';
import { type Clock, systemClock } from '@payrail/time';
import {
  type CardProcessor,
  type ChargeResult,
  type ConfirmationResult,
  type Decline,
  type OpenResult,
  type ProcessorStatus,
  type ReversalResult,
  SEND_WINDOW_PASSED,
  type StoredCard,
  type WebhookReply,
} from '../../ports/card-processor';
import { cardBlocked, declineFromResponseCode, processorDown } from './decline-categories';
import { amountForProcessorA, amountFromProcessor } from './processor-amounts';
import { processorAToken } from './processor-a-token';
import { answerMayHideACharge, createProcessorHttp, type ProcessorExchange } from './processor-http';
import type { ProcessorAdapterSettings } from './processor-settings';
import { sameToken } from './token-compare';
import { ProcessorUnavailable } from './processor-unavailable';
import {
  arrayField,
  type JsonObject,
  isObject,
  objectField,
  parseExpiry,
  parseJson,
  textOf,
} from './wire-json';

/**
 * PROCESSOR_A, an iframe-style processor shaped like Bancard vPOS 2.0: every call is
 * `{public_key, operation: {token, ...}}` with an MD5 token, amounts as `"150000.00"`, our reference as its
 * integer `shop_process_id`; a one-shot signed confirmation webhook for hosted payments; stored cards charged
 * synchronously through a single-use alias that lives about ten minutes.
 */
export function createProcessorA(
  settings: ProcessorAdapterSettings,
  deps: { logger: Logger; clock?: Clock; fetch?: typeof fetch },
): CardProcessor {
  const { publicKey, privateKey } = settings;
  const clock = deps.clock ?? systemClock;
  const exchange = createProcessorHttp({
    baseUrl: settings.baseUrl,
    timeoutMs: settings.timeoutMs,
    fetch: deps.fetch,
  });
  const logger = deps.logger.child({ processor: settings.id });

  function call(path: string, operation: Record<string, unknown>, method: 'POST' | 'DELETE' = 'POST') {
    return exchange(method, `vpos/api/0.3/${path}`, { public_key: publicKey, operation });
  }

  async function listCardsWithAliases(
    userId: string,
  ): Promise<
    { kind: 'cards'; cards: Array<StoredCard & { alias: string }> } | { kind: 'failed'; decline: Decline }
  > {
    const reply = await call(`users/${userId}/cards`, {
      token: processorAToken.userCards(privateKey, userId),
    });
    if (reply.kind !== 'answered') return { kind: 'failed', decline: processorDown(reply.reason) };
    if (isSuccess(reply.body)) {
      const cards = arrayField(reply.body, 'cards').flatMap((raw) => {
        const card = storedCardFromA(raw);
        return card ? [card] : [];
      });
      return { kind: 'cards', cards };
    }
    return { kind: 'failed', decline: refusalOf(reply) };
  }

  async function chargeWithFreshAlias(
    input: Parameters<CardProcessor['chargeStoredCard']>[0],
    spid: number,
    amount: string,
    secondTry: boolean,
  ): Promise<ChargeResult> {
    const listing = await listCardsWithAliases(input.customerRef);
    // Listing moves no money: whatever went wrong there, nothing was charged.
    if (listing.kind === 'failed') return { kind: 'declined', ...listing.decline };
    const card = listing.cards.find((candidate) => candidate.cardRef === input.cardRef);
    if (!card)
      return {
        kind: 'declined',
        code: 'CardNotFound',
        category: 'hard',
        message: 'card no longer at the processor',
      };

    // The listing (or our own database before it) took too long: the janitor may already be asking about
    // this reference, so the charge must not arrive after its answer. Nothing was sent.
    if (clock.now().getTime() >= input.sendBy.getTime())
      return { kind: 'unknown', reason: SEND_WINDOW_PASSED };
    const reply = await call('charge', {
      token: processorAToken.charge(privateKey, String(spid), amount, input.currency, card.alias),
      shop_process_id: spid,
      amount,
      currency: input.currency,
      alias_token: card.alias,
      number_of_payments: 1,
      description: shortDescription(input.description),
    });
    if (reply.kind === 'not-sent') return { kind: 'declined', ...processorDown(reply.reason) };
    if (reply.kind === 'no-answer') return { kind: 'unknown', reason: reply.reason };
    if (isSuccess(reply.body)) {
      const confirmation = objectField(reply.body, 'confirmation');
      if (!confirmation) return { kind: 'unknown', reason: 'charge answered success without a confirmation' };
      return chargeResultOf(confirmation);
    }
    const key = errorOf(reply.body)?.key;
    // The alias we were just given expired or was consumed in between: nothing was charged; one fresh try.
    if (key === 'CardAliasTokenExpiredError' && !secondTry)
      return chargeWithFreshAlias(input, spid, amount, true);
    // Our reference is already taken: an earlier call under it may have charged. Only a status query can tell.
    if (key === 'InvalidOperationError') return { kind: 'unknown', reason: 'shop_process_id already taken' };
    if (!key && answerMayHideACharge(reply.status))
      return { kind: 'unknown', reason: `HTTP ${reply.status} without a readable answer` };
    return { kind: 'declined', ...refusalOf(reply) };
  }

  async function listCards(customerRef: string): Promise<StoredCard[]> {
    const userId = spidOf(customerRef);
    if (userId === undefined) return [];
    const listing = await listCardsWithAliases(String(userId));
    if (listing.kind === 'failed') throw new ProcessorUnavailable(settings.id, listing.decline);
    return listing.cards.map(({ alias: _alias, ...card }) => card);
  }

  async function queryStatus(input: { reference: string }): Promise<ProcessorStatus> {
    const spid = spidOf(input.reference);
    if (spid === undefined) return { status: 'not-found' };
    const reply = await call('single_buy/confirmations', {
      token: processorAToken.getConfirmation(privateKey, String(spid)),
      shop_process_id: spid,
    });
    if (reply.kind !== 'answered') return { status: 'unreachable', reason: reply.reason };
    if (isSuccess(reply.body)) {
      const confirmation = objectField(reply.body, 'confirmation');
      if (!confirmation) return { status: 'unreachable', reason: 'confirmation missing from the answer' };
      const result = chargeResultOf(confirmation);
      if (result.kind === 'approved') {
        return {
          status: 'paid',
          amount: amountFromProcessor(confirmation['amount']),
          currency: textOf(confirmation['currency']),
          authorizationCode: result.authorizationCode,
        };
      }
      if (result.kind === 'declined') {
        const { kind: _kind, ...decline } = result;
        return { status: 'declined', ...decline };
      }
      return { status: 'pending' };
    }
    switch (errorOf(reply.body)?.key) {
      case 'BuyNotFoundError':
      case 'PaymentNotFoundError':
        return { status: 'not-found' };
      case 'AlreadyRollbackedError':
        return { status: 'reversed' };
      default:
        return { status: 'unreachable', reason: describeRefusal(reply) };
    }
  }

  return {
    id: settings.id,

    async openPayment(input): Promise<OpenResult> {
      const spid = spidOf(input.reference);
      if (spid === undefined) return refused('InvalidReference', 'hard', 'reference must be 1-15 digits');
      const amount = amountForProcessorA(input.amount);
      const reply = await call('single_buy', {
        token: processorAToken.singleBuy(privateKey, String(spid), amount, input.currency),
        shop_process_id: spid,
        amount,
        currency: input.currency,
        description: shortDescription(input.description),
        return_url: input.returnUrl,
        cancel_url: input.cancelUrl,
      });
      const processId = openedProcessId(reply);
      if (processId === undefined) return { kind: 'refused', decline: openRefusal(reply) };
      return {
        kind: 'opened',
        form: { kind: 'iframe', processId, formUrl: pageUrl(settings.baseUrl, 'checkout/new', processId) },
      };
    },

    async openCardRegistration(input): Promise<OpenResult> {
      const cardId = spidOf(input.registrationRef);
      const userId = spidOf(input.customerRef);
      if (cardId === undefined || userId === undefined)
        return refused('InvalidReference', 'hard', 'card and user ids must be 1-15 digits');
      const reply = await call('cards/new', {
        token: processorAToken.newCard(privateKey, String(cardId), String(userId)),
        card_id: cardId,
        user_id: userId,
        user_cell_phone: input.phone ?? '',
        user_mail: input.email ?? '',
        return_url: input.returnUrl,
      });
      const processId = openedProcessId(reply);
      if (processId === undefined) return { kind: 'refused', decline: openRefusal(reply) };
      return {
        kind: 'opened',
        form: {
          kind: 'iframe',
          processId,
          formUrl: pageUrl(settings.baseUrl, 'checkout/register_card/new', processId),
        },
      };
    },

    // A registers the card as soon as its form succeeds; there is no confirm step.
    completeCardRegistration: (input) => listCards(input.customerRef),

    listCards,

    async chargeStoredCard(input): Promise<ChargeResult> {
      const spid = spidOf(input.reference);
      if (spid === undefined || spidOf(input.customerRef) === undefined)
        return {
          kind: 'declined',
          code: 'InvalidReference',
          category: 'hard',
          message: 'ids must be 1-15 digits',
        };
      const result = await chargeWithFreshAlias(input, spid, amountForProcessorA(input.amount), false);
      if (result.kind === 'unknown')
        logger.warn({ reference: input.reference, reason: result.reason }, 'charge outcome unknown');
      return result;
    },

    queryStatus,

    async verifyConfirmation(raw): Promise<ConfirmationResult> {
      const operation = objectField(parseJson(raw.body), 'operation');
      const spid = operation ? operation['shop_process_id'] : undefined;
      const amount = operation ? textOf(operation['amount']) : undefined;
      const currency = operation ? textOf(operation['currency']) : undefined;
      if (!operation || (typeof spid !== 'number' && typeof spid !== 'string') || !amount || !currency)
        return {
          kind: 'rejected',
          reason: 'not a confirmation',
          reply: errorReply(400, 'InvalidJsonError', 'Invalid confirmation'),
        };
      const reference = String(spid);
      const expected = processorAToken.confirmation(privateKey, reference, amount, currency);
      if (!sameToken(expected, operation['token'])) {
        logger.warn({ reference }, 'confirmation with a bad token refused');
        return {
          kind: 'rejected',
          reason: 'bad token',
          reply: errorReply(401, 'InvalidTokenError', 'Invalid token'),
        };
      }
      // The signed body says what happened; the status query says what holds now (a rollback may have
      // followed), and only that is trusted.
      const outcome = await queryStatus({ reference });
      if (outcome.status === 'unreachable') {
        return {
          kind: 'verified',
          reference,
          outcome,
          reply: errorReply(503, 'PosCommunicationError', 'Status query failed; settled later'),
        };
      }
      return { kind: 'verified', reference, outcome, reply: { status: 200, body: { status: 'success' } } };
    },

    async reverse(input): Promise<ReversalResult> {
      const spid = spidOf(input.reference);
      if (spid === undefined) return { kind: 'refused', code: 'InvalidReference' };
      const reply = await call('single_buy/rollback', {
        token: processorAToken.rollback(privateKey, String(spid)),
        shop_process_id: spid,
      });
      if (reply.kind === 'not-sent') return { kind: 'unavailable', reason: reply.reason };
      if (reply.kind !== 'answered') return { kind: 'unknown', reason: reply.reason };
      if (isSuccess(reply.body)) return { kind: 'reversed' };
      const error = errorOf(reply.body);
      if (error?.key === 'AlreadyRollbackedError') return { kind: 'reversed' };
      // Its outage answer says that nothing was done; a 503 it did not word may hide a rollback made.
      if (reply.status === 503 && error?.key === 'PosCommunicationError')
        return { kind: 'unavailable', reason: describeRefusal(reply) };
      if (reply.status === 503 || !error) return { kind: 'unknown', reason: describeRefusal(reply) };
      // TransactionAlreadyConfirmed (a later day), BuyNotFoundError, ...: not possible through the API.
      return { kind: 'refused', code: error.key, message: error.dsc };
    },

    async removeCard(input) {
      const userId = spidOf(input.customerRef);
      if (userId === undefined) return false;
      const listing = await listCardsWithAliases(String(userId));
      if (listing.kind === 'failed') throw new ProcessorUnavailable(settings.id, listing.decline);
      const card = listing.cards.find((candidate) => candidate.cardRef === input.cardRef);
      if (!card) return false;
      const reply = await call(
        `users/${userId}/cards`,
        {
          token: processorAToken.deleteCard(privateKey, String(userId), card.alias),
          alias_token: card.alias,
        },
        'DELETE',
      );
      if (reply.kind === 'answered' && isSuccess(reply.body)) return true;
      if (reply.kind === 'answered' && errorOf(reply.body)?.key === 'CardAliasTokenExpiredError')
        return false;
      throw new ProcessorUnavailable(
        settings.id,
        reply.kind === 'answered' ? refusalOf(reply) : processorDown(reply.reason),
      );
    },
  };
}

function isSuccess(body: unknown): boolean {
  return isObject(body) && body['status'] === 'success';
}

function errorOf(body: unknown): { key: string; dsc?: string } | undefined {
  const first = arrayField(body, 'messages')[0];
  if (!isObject(first) || typeof first['key'] !== 'string') return undefined;
  return { key: first['key'], dsc: textOf(first['dsc']) };
}

function describeRefusal(reply: Extract<ProcessorExchange, { kind: 'answered' }>): string {
  const error = errorOf(reply.body);
  return error ? `${error.key}${error.dsc ? `: ${error.dsc}` : ''}` : `HTTP ${reply.status}`;
}

/**
 * A refusal that proves nothing was charged, as a decline. Keys, not HTTP statuses, decide (the processor's
 * advice). Our own keys being refused is not the card's fault and heals when the keys are fixed, so it is
 * `processor-down` (retryable) rather than a hard decline of the customer's card.
 */
function refusalOf(reply: Extract<ProcessorExchange, { kind: 'answered' }>): Decline {
  const error = errorOf(reply.body);
  if (!error)
    return reply.status === 503
      ? processorDown()
      : processorDown(`HTTP ${reply.status}`, String(reply.status));
  switch (error.key) {
    case 'CardBlockedError':
      return cardBlocked(error.dsc);
    case 'PosCommunicationError':
      return processorDown(error.dsc, error.key);
    case 'InvalidTokenError':
    case 'InvalidPublicKeyError':
      return processorDown(error.dsc, error.key);
    case 'CardAliasTokenExpiredError':
      return { code: error.key, category: 'soft', ...(error.dsc ? { message: error.dsc } : {}) };
    default:
      return { code: error.key, category: 'hard', ...(error.dsc ? { message: error.dsc } : {}) };
  }
}

function openedProcessId(reply: ProcessorExchange): string | undefined {
  if (reply.kind !== 'answered' || !isSuccess(reply.body) || !isObject(reply.body)) return undefined;
  return textOf(reply.body['process_id']);
}

// Opening a form moves no money: a lost reply is simply "try again".
function openRefusal(reply: ProcessorExchange): Decline {
  if (reply.kind !== 'answered') return processorDown(reply.reason);
  return refusalOf(reply);
}

function refused(code: string, category: Decline['category'], message: string): OpenResult {
  return { kind: 'refused', decline: { code, category, message } };
}

/** PROCESSOR_A approves only on response code `00`; `response: "S"` alone means "processed", not "paid". */
function chargeResultOf(confirmation: JsonObject): ChargeResult {
  const code = textOf(confirmation['response_code']);
  if (code === '00') {
    const authorizationCode = textOf(confirmation['authorization_number']);
    return { kind: 'approved', ...(authorizationCode ? { authorizationCode } : {}) };
  }
  if (!code) return { kind: 'pending' };
  return { kind: 'declined', ...declineFromResponseCode(code, textOf(confirmation['response_description'])) };
}

function storedCardFromA(raw: unknown): (StoredCard & { alias: string }) | undefined {
  if (!isObject(raw)) return undefined;
  const alias = textOf(raw['alias_token']);
  const cardRef = textOf(raw['card_id']);
  const maskedNumber = textOf(raw['card_masked_number']);
  const expiry = parseExpiry(raw['expiration_date']);
  if (!alias || !cardRef || !maskedNumber || !expiry) return undefined;
  return {
    alias,
    cardRef,
    maskedNumber,
    last4: maskedNumber.slice(-4),
    brand: textOf(raw['card_brand']) ?? 'unknown',
    ...expiry,
  };
}

/** Our references are digit strings; A wants them as integers of at most 15 digits (within 2^53). */
function spidOf(reference: string): number | undefined {
  return /^[1-9]\d{0,14}$/.test(reference) ? Number(reference) : undefined;
}

/** A's description is at most 20 characters. */
function shortDescription(text: string): string {
  let short = Array.from(text).slice(0, 20).join('');
  while (short.length > 20) short = Array.from(short).slice(0, -1).join('');
  return short;
}

function pageUrl(baseUrl: string, path: string, processId: string): string {
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('process_id', processId);
  return url.toString();
}

function errorReply(status: number, key: string, dsc: string): WebhookReply {
  return { status, body: { status: 'error', messages: [{ key, level: 'error', dsc }] } };
}
