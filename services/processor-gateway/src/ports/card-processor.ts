/**
 * The port every card processor adapter implements (`PARAGUAY.PROCESSOR_A`: iframe, MD5 tokens, synchronous
 * alias charge; `PARAGUAY.PROCESSOR_B`: redirect, SHA-1 tokens, asynchronous charge against an order).
 *
 * Rules every adapter keeps, because the exactly-once charge core depends on them:
 * - No method throws for a processor answer or for the network. Every outcome is a value: a timeout, a reset
 *   connection or an unreadable reply after the request may have reached the processor is `unknown`, never a
 *   decline. Only a reply that proves nothing was charged (a 503 outage page, a refused token, a decline
 *   code) may become `declined`. A thrown error means a bug in our code, and the caller treats it as `unknown`.
 * - Amounts cross this port as decimal strings with two places (`"150000.00"`); the adapter converts to the
 *   processor's own format (`"150000.00"` for A, integer `150000` for B). Never a JS float.
 * - `reference` is ours: digits only, at most 15 (PROCESSOR_A's `shop_process_id` is an integer of up to 15
 *   digits; PROCESSOR_B's `id_pedido_comercio` accepts it as text). The gateway allocates one per charge and
 *   keeps it for that charge's life, so a status query by it finds the charge even when our request's reply
 *   was lost. The adapter sends it as the processor's id for the operation and never invents another.
 * - Card numbers never cross this port: only the processor's durable references, masked number, last 4,
 *   brand and expiry. Short-lived alias tokens stay inside the adapter (it lists the cards to get a fresh
 *   alias right before it charges or deletes).
 * - `customerRef` is the processor-side customer id the gateway allocated for one (merchant, customer,
 *   processor): digits only, at most 15 (PROCESSOR_A's `user_id` is an integer; PROCESSOR_B's
 *   `identificador` takes it as text).
 */

export type ProcessorId = 'PARAGUAY.PROCESSOR_A' | 'PARAGUAY.PROCESSOR_B';

/** Decimal string with exactly two places. */
export type DecimalAmount = string;

/**
 * Why a charge was refused, as the charge core needs it:
 * - `soft`: may succeed later (insufficient funds `51`, over limit `61`, issuer down `96`, `05` do not honour);
 * - `hard`: will not succeed with this card (invalid card `14`, expired `54`/`33`, not permitted `57`,
 *   invalid transaction `12`);
 * - `card-blocked`: the processor (or our own counter) locked the card at the merchant; do not try it again
 *   until the block ends;
 * - `processor-down`: the processor answered that it did not process the request (outage, 503); retryable
 *   and nothing was charged.
 */
export type DeclineCategory = 'soft' | 'hard' | 'card-blocked' | 'processor-down';

export interface Decline {
  /** The processor's response code (`"51"`) or error key (`"CardBlockedError"`), or `"503"` for an outage. */
  code: string;
  category: DeclineCategory;
  /** The processor's own words, for logs and the merchant; never shown as ours. */
  message?: string;
}

/** What our page needs to let the person type the card on the processor's own origin. */
export type HostedForm =
  | {
      kind: 'iframe';
      /** The processor's id for this form session (`process_id`). */
      processId: string;
      /** The URL the iframe loads. */
      formUrl: string;
      /** The processor's checkout script, when the page must load one to build the iframe. */
      scriptUrl?: string;
    }
  | {
      kind: 'redirect';
      /** Full-page redirect target. */
      url: string;
      /** The processor's id for this payment or registration (`hash`, form id). */
      hash: string;
    };

export interface OpenPaymentInput {
  reference: string;
  amount: DecimalAmount;
  currency: string;
  /** Short text shown on the form; the adapter cuts it to the processor's limit (A: 20 characters). */
  description: string;
  returnUrl: string;
  cancelUrl: string;
  /** Who pays, when known (PROCESSOR_B asks for a buyer). Never card data. */
  buyer?: { name?: string; email?: string; phone?: string; documentNumber?: string };
  /** When the processor cancels the unpaid order on its own (B's `fecha_maxima_pago`); ISO 8601. */
  expiresAt?: string;
}

export interface OpenCardRegistrationInput {
  customerRef: string;
  returnUrl: string;
  /** A's `card_id`: digits only, allocated by the gateway, unique per registration. */
  registrationRef: string;
  email?: string;
  phone?: string;
  name?: string;
}

export interface StoredCard {
  /** The processor's durable card reference (A: `card_id`; B: its card id). Never the alias token. */
  cardRef: string;
  /** As the processor shows it, e.g. `424242******4242`. Never more digits than the processor shows. */
  maskedNumber: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
}

export interface ChargeStoredCardInput {
  reference: string;
  customerRef: string;
  cardRef: string;
  amount: DecimalAmount;
  currency: string;
  description: string;
  /**
   * The request that moves money (A's `charge`, B's `pagar`) does not leave at or after this moment: by then
   * the janitor may be asking the processor about the reference, and a "not found" it believes must not be
   * followed by our own request arriving. Past it the call sends nothing more and answers `unknown` (the
   * janitor's status query decides, and sends the charge again under the same reference if it never left).
   */
  sendBy: Date;
}

/** The answer of an adapter whose request that moves money was not sent because its `sendBy` had passed. */
export const SEND_WINDOW_PASSED = 'not sent: the send window had passed';

export type ChargeResult =
  | { kind: 'approved'; authorizationCode?: string; processorReference?: string }
  | ({ kind: 'declined'; processorReference?: string } & Decline)
  /**
   * Accepted but not decided yet: PROCESSOR_B's asynchronous charge (the result comes by notification and
   * status query), or A's 3DS branch (`challenge` is the form the person must complete).
   */
  | { kind: 'pending'; processorReference?: string; challenge?: HostedForm }
  /** The request may have reached the processor and we do not know what it did (timeout, lost reply). */
  | { kind: 'unknown'; reason: string; processorReference?: string };

/** What the processor says about one of our references right now. */
export type ProcessorStatus =
  | {
      status: 'paid';
      amount?: DecimalAmount;
      currency?: string;
      authorizationCode?: string;
      processorReference?: string;
    }
  | ({ status: 'declined'; processorReference?: string } & Decline)
  | {
      status: 'pending';
      processorReference?: string;
      /**
       * PROCESSOR_B: the order under our reference exists and shows no payment decided. That is what a
       * stored-card charge stopped between `iniciar-transaccion` and `pagar` leaves, and also what B shows
       * while it decides a `pagar`; B refuses a second `pagar` meanwhile ("pago en proceso"), so sending
       * the charge again under the same reference pays the order at most once.
       */
      unpaidOrder?: true;
    }
  /** Paid and then rolled back or reversed. */
  | { status: 'reversed'; processorReference?: string }
  /** The processor has no payment under this reference: it was never charged (A's `BuyNotFoundError`/`PaymentNotFoundError`). */
  | { status: 'not-found' }
  /** We could not ask (outage, timeout): try again later; decide nothing. */
  | { status: 'unreachable'; reason: string };

export interface RawWebhook {
  /** The request body exactly as received (signatures are over fields inside it). */
  body: string;
  headers: Record<string, string>;
}

/** The HTTP answer the processor expects (A: `{"status":"success"}`; B: the echoed `resultado`). */
export interface WebhookReply {
  status: number;
  body: unknown;
}

export type ConfirmationResult =
  | {
      /** The signature checked out AND a status query confirmed what the processor says now. */
      kind: 'verified';
      reference: string;
      /**
       * The processor's own id (B's hash) when the confirmation names the order by it: the charge is found by
       * it when `reference` is not ours.
       */
      processorReference?: string;
      /** From the status query, not from the webhook body. */
      outcome: ProcessorStatus;
      reply: WebhookReply;
    }
  | {
      /** Bad signature, unknown shape or a reference the processor does not know: change nothing. */
      kind: 'rejected';
      reason: string;
      reply: WebhookReply;
    };

export type ReversalResult =
  /** Given back (also: given back before, by an earlier request under the same reference). */
  | { kind: 'reversed' }
  /**
   * B after the payment day: the processor will reverse later (`Agendada`; also a second request for a
   * reversal it holds scheduled). Its status query shows `reversed` once applied.
   */
  | { kind: 'scheduled'; at?: string }
  /** Not possible through the API (A after the day: `TransactionAlreadyConfirmed`; nothing to reverse). */
  | { kind: 'refused'; code: string; message?: string }
  /** Nothing was done: the processor answered that it is down (503), or nothing reached it. */
  | { kind: 'unavailable'; reason: string }
  /** The request may have reached the processor and we do not know what it did (timeout, lost reply). */
  | { kind: 'unknown'; reason: string };

/**
 * Opening a form moves no money, so a timeout here is simply `refused` with `processor-down`: the person
 * tries again.
 */
export type OpenResult = { kind: 'opened'; form: HostedForm } | { kind: 'refused'; decline: Decline };

export interface CardProcessor {
  readonly id: ProcessorId;

  /** Opens a one-off hosted payment (A: `single_buy` → iframe; B: start transaction → redirect). */
  openPayment(input: OpenPaymentInput): Promise<OpenResult>;

  /** Opens the hosted form where the person registers a card (A: `cards/new`; B: add customer + add card). */
  openCardRegistration(input: OpenCardRegistrationInput): Promise<OpenResult>;

  /**
   * Finishes a registration after the browser came back with success (B's mandatory confirm-card step;
   * A has nothing to do). Returns the customer's cards as they are afterwards.
   */
  completeCardRegistration(input: { customerRef: string; registrationRef: string }): Promise<StoredCard[]>;

  /** The customer's cards at the processor, durable references only. */
  listCards(customerRef: string): Promise<StoredCard[]>;

  /**
   * Charges a stored card under our `reference` (fresh alias fetched inside). A: synchronous result (or 3DS
   * `pending`); B: creates the order for `reference`, pays it, answers `pending`; the result comes later.
   */
  chargeStoredCard(input: ChargeStoredCardInput): Promise<ChargeResult>;

  /** Asks the processor about our reference (A: `get_confirmation`; B: status polling). */
  queryStatus(input: { reference: string; processorReference?: string }): Promise<ProcessorStatus>;

  /**
   * Verifies an incoming confirmation in this processor's scheme, then asks `queryStatus` before trusting
   * it. Returns what to answer the processor in every case.
   */
  verifyConfirmation(raw: RawWebhook): Promise<ConfirmationResult>;

  /** Rolls back (A, same day) or reverses (B, immediate or scheduled) a payment made under `reference`. */
  reverse(input: { reference: string; processorReference?: string }): Promise<ReversalResult>;

  /** Deletes a stored card at the processor. `false` when the processor no longer has it. */
  removeCard(input: { customerRef: string; cardRef: string }): Promise<boolean>;
}

/** Finds the adapter for a processor id; an unknown id is a programming error. */
export type CardProcessors = (processor: ProcessorId) => CardProcessor;
