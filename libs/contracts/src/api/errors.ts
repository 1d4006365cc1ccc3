/**
 * Every error `code` of the API, its HTTP status and what it tells a merchant. One table per service:
 * the service's HTTP adapter maps its domain errors through its table, and the OpenAPI document lists
 * the codes of each operation from the same tables, so a code or its status is never typed twice.
 */
export interface ErrorCodeInfo {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 500 | 502 | 503;
  /** For the reference: when the code is answered, in a merchant's terms. */
  description: string;
  /** An example `detail`. */
  detail: string;
}

/** Answered by every service (`@payrail/http`) and the gateway's edge. */
export const COMMON_ERRORS = {
  VALIDATION_ERROR: {
    status: 400,
    description: 'A field is missing or has the wrong format; `errors[]` names each one.',
    detail: 'amount is required',
  },
  MALFORMED_JSON: {
    status: 400,
    description: 'The body is not valid JSON.',
    detail: 'Request body is not valid JSON',
  },
  UNAUTHORIZED: {
    status: 401,
    description: 'Credentials missing or invalid.',
    detail: 'Api-Token header missing or invalid',
  },
  FORBIDDEN: {
    status: 403,
    description:
      "The credentials are valid but lack the operation's permission: a `read-only` token's write, a console user's role (the operation's description names who may).",
    detail: 'A read-only API token cannot create payment links (links: write)',
  },
  NOT_FOUND: { status: 404, description: 'No such path.', detail: 'No route for GET /api/nothing' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    description: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
    detail: 'PUT is not allowed on /api/saleitems/add; allowed: POST',
  },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    description: 'A request with the same Idempotency-Key is still being processed.',
    detail: 'A request with this Idempotency-Key is still being processed; retry later',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    description: 'The Idempotency-Key was already used with another request.',
    detail: 'This Idempotency-Key was already used with another request',
  },
  IDEMPOTENCY_RESPONSE_UNAVAILABLE: {
    status: 422,
    description:
      'The request with this Idempotency-Key was processed, but its response can no longer be replayed.',
    detail: 'The request with this Idempotency-Key was already processed; read the resource instead',
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The body is too large.', detail: 'Request body too large' },
  UPSTREAM_UNAVAILABLE: {
    status: 502,
    description: 'A service behind the gateway did not answer; retry later.',
    detail: 'The service behind /api/saleitems/add did not answer',
  },
  INTERNAL_ERROR: { status: 500, description: 'An unexpected error.', detail: 'Internal error' },
} as const satisfies Record<string, ErrorCodeInfo>;

/** The gateway's own (operator API, webhooks). */
export const GATEWAY_ERRORS = {
  // A merchant's settings that cannot go together, a webhook URL on a private network: 400 on the field.
  VALIDATION_ERROR: COMMON_ERRORS.VALIDATION_ERROR,
  MERCHANT_NOT_FOUND: { status: 404, description: 'No such merchant.', detail: 'Merchant not found' },
  API_TOKEN_NOT_FOUND: {
    status: 404,
    description: 'No such token of the merchant.',
    detail: 'API token not found',
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: {
    status: 404,
    description: "No such webhook endpoint for this merchant (another merchant's is not found either).",
    detail: 'Webhook endpoint not found',
  },
  WEBHOOK_DELIVERY_NOT_FOUND: {
    status: 404,
    description: 'No such webhook delivery for this merchant.',
    detail: 'Webhook delivery not found',
  },
  FORBIDDEN: COMMON_ERRORS.FORBIDDEN,
  USER_NOT_FOUND: {
    status: 404,
    description: "No such console user of the merchant (another merchant's is not found either).",
    detail: 'User not found',
  },
  USER_EMAIL_TAKEN: {
    status: 409,
    description: 'The e-mail already belongs to a console account (one account per e-mail address).',
    detail: 'ana@gym.example.com already has a console account',
  },
  LAST_OWNER: {
    status: 409,
    description: 'The change would leave the merchant without an owner.',
    detail: 'The merchant must keep at least one owner',
  },
  MAIL_UNAVAILABLE: {
    status: 503,
    description:
      'The invitation could not be mailed (no mail transport configured, or the mail server refused it): nothing was stored; send it again.',
    detail: 'The invitation could not be mailed; nothing was stored',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** The links service: payment links and the merchant-configuration rules of spec 2.1 and 5. */
export const LINK_ERRORS = {
  PAYMENT_LINK_NOT_FOUND: {
    status: 404,
    description: "No such link for this merchant (another merchant's link is not found either).",
    detail: 'Payment link not found',
  },
  CUSTOMER_NOT_FOUND: {
    status: 404,
    description: "No such customer for this merchant (another merchant's customer is not found either).",
    detail: 'Customer not found',
  },
  NO_LOGIN_NOT_ENABLED: {
    status: 422,
    description: '`noLoginRequired` is not enabled for the merchant.',
    detail: 'noLoginRequired is not enabled for this merchant',
  },
  SAAS_CONTRACT_REQUIRED: {
    status: 422,
    description: 'DYNAMIC subscriptions and links for signed-in users need a SaaS contract.',
    detail: 'DYNAMIC subscriptions are only for merchants with a SaaS contract',
  },
  CALLBACK_URL_NOT_CONFIGURED: {
    status: 422,
    description: '`redirectUrl` needs a callback URL, configured by the operator.',
    detail: 'redirectUrl needs a callback URL configured by the service operator',
  },
  REDIRECT_ORIGIN_MISMATCH: {
    status: 422,
    description: '`redirectUrl` must share the origin of the configured callback URL.',
    detail: 'redirectUrl must share the origin of the configured callback URL',
  },
  CURRENCY_NOT_OFFERED: {
    status: 422,
    description: "`currency` is not offered by the merchant's instance.",
    detail: "currency EUR is not offered by this merchant's NATIONAL instance",
  },
  PAYMENT_LINK_ALREADY_PAID: {
    status: 409,
    description:
      'The link is already paid: a bank notification cannot pay it, the merchant cannot cancel it.',
    detail: 'Payment link 2 is already paid',
  },
  PAYMENT_LINK_CANCELLED: {
    status: 409,
    description: 'The link is cancelled: a bank notification cannot pay it, nor can it be cancelled again.',
    detail: 'Payment link 5 is cancelled',
  },
  PAYMENT_LINK_EXPIRED: {
    status: 409,
    description:
      'The link is no longer payable (`payWaitHours` elapsed): neither paid by a bank notification nor cancelled.',
    detail: 'Payment link 1 has expired',
  },
  AMOUNT_MISMATCH: {
    status: 422,
    description: 'Bank notification: the transferred amount is not exactly what the target is due.',
    detail: 'The transfer is 140000.00; the payment link is due 150000.00',
  },
  CURRENCY_MISMATCH: {
    status: 422,
    description: "Bank notification: `currency` is not the target's currency.",
    detail: 'The transfer is in USD; the payment link is due in PYG',
  },
  /** A link's amount with decimals its currency does not have (a fraction of a guaraní): 400, each field named. */
  VALIDATION_ERROR: COMMON_ERRORS.VALIDATION_ERROR,
} as const satisfies Record<string, ErrorCodeInfo>;

/** The subscriptions service: subscriptions and installments. */
export const SUBSCRIPTION_ERRORS = {
  /**
   * Input the domain refuses as malformed once it knows the subscription (an amount with decimals its
   * currency does not have): answered as every other input error.
   */
  VALIDATION_ERROR: COMMON_ERRORS.VALIDATION_ERROR,
  SUBSCRIPTION_NOT_FOUND: {
    status: 404,
    description:
      "No subscription of the merchant matches (among pending and active ones where identifiers name it); another merchant's is not found either.",
    detail: 'No pending or active subscription matches the identifiers',
  },
  INSTALLMENT_NOT_FOUND: {
    status: 404,
    description: "No such installment of the merchant (another merchant's is not found either).",
    detail: 'Installment 1203 not found',
  },
  MULTIPLE_SUBSCRIPTIONS_MATCH: {
    status: 409,
    description: 'More than one subscription matches: give the second identifier or the link id too.',
    detail: '2 subscriptions match the identifiers; give customIdentifier2 or payRequestId to choose one',
  },
  SUBSCRIPTION_NOT_ACTIVE: {
    status: 409,
    description: 'The subscription is not active: its first payment is not made yet, or it has ended.',
    detail: 'The subscription is pending; installments can be added once the first payment is made',
  },
  INSTALLMENT_NOT_PENDING: {
    status: 409,
    description: 'The installment is not pending (paid, in progress or cancelled).',
    detail: 'Installment 1203 is paid; only pending installments can be changed or cancelled',
  },
  FIRST_INSTALLMENT_SETTLED_BY_LINK: {
    status: 409,
    description: 'Installment 1 is the payment of the link itself; change or cancel the link instead.',
    detail: 'Installment 1 is settled by the payment link',
  },
  NO_MATCHING_PENDING_INSTALLMENTS: {
    status: 409,
    description: 'No pending installment (from the 2nd on) has that amount.',
    detail: 'No pending installment has the amount 150000.00',
  },
  NOT_ENOUGH_PENDING_INSTALLMENTS: {
    status: 409,
    description: '`quantity` is more than the pending installments of that amount.',
    detail: '3 installments of 150000.00 asked for, 2 pending',
  },
  INVOICE_NUMBER_TAKEN: {
    status: 409,
    description: 'An installment of the subscription already has this invoice number.',
    detail: 'An installment of the subscription already has this invoice number',
  },
  INVALID_STATE_TRANSITION: {
    status: 409,
    description: 'The subscription cannot change that way in its current status.',
    detail: 'Subscription 3 cannot go from cancelled to active',
  },
  CONCURRENT_MODIFICATION: {
    status: 409,
    description: 'Another request changed the installments meanwhile; try again.',
    detail: 'An installment changed meanwhile; try again',
  },
  SUBSCRIPTION_NOT_DYNAMIC: {
    status: 422,
    description: 'Invoices apply to DYNAMIC subscriptions only.',
    detail: 'Cancelling by invoice applies to DYNAMIC subscriptions only',
  },
  INVOICE_NUMBER_REQUIRED: {
    status: 422,
    description: 'DYNAMIC subscriptions need an invoice number per installment.',
    detail: 'DYNAMIC subscriptions need an invoice number per installment',
  },
  PAYMENT_DATE_IN_PAST: {
    status: 422,
    description: "The date is before today in the merchant's time zone.",
    detail: 'The payment date 2026-01-02 is before today (2026-01-10)',
  },
  INSTALLMENT_ALREADY_PAID: {
    status: 409,
    description: 'Bank notification: the installment is already paid.',
    detail: 'Installment 1203 is already paid',
  },
  INSTALLMENT_CANCELLED: {
    status: 409,
    description: 'Bank notification: the installment is cancelled.',
    detail: 'Installment 1203 is cancelled',
  },
  MULTIPLE_INSTALLMENTS_MATCH: {
    status: 409,
    description:
      'Bank notification: more than one installment of the subscription falls on `paymentDate`; give `installmentId`.',
    detail: '2 installments of the subscription fall on 2026-12-10; give installmentId',
  },
  AMOUNT_MISMATCH: {
    status: 422,
    description: 'Bank notification: the transferred amount is not exactly what the target is due.',
    detail: 'The transfer is 140000.00; installment 1203 is due 150000.00',
  },
  CURRENCY_MISMATCH: {
    status: 422,
    description: "Bank notification: `currency` is not the target's currency.",
    detail: 'The transfer is in USD; the installment is due in PYG',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** processor-gateway: bank notifications (the owners' refusals are passed on with their own codes). */
export const BANK_TRANSFER_ERRORS = {
  BANK_REFERENCE_REUSED: {
    status: 409,
    description:
      'The bank `reference` already registered a transfer with other content; the same notification again answers its first result.',
    detail: 'The reference TRF-2026-11-000123 already registered another transfer (1)',
  },
  SETTLEMENT_UNAVAILABLE: {
    status: 503,
    description:
      'The target could not be settled now (its service did not answer); send the same notification again: it never pays twice.',
    detail: 'The target could not be settled now; send the same notification again (it never pays twice)',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/**
 * processor-gateway: refunds of a money movement (`POST /api/payments/{id}/refunds`, issue 27). Every refusal
 * leaves nothing written.
 */
export const REFUND_ERRORS = {
  IDEMPOTENCY_KEY_REQUIRED: {
    status: 400,
    description:
      'The operation gives money back, so it needs an `Idempotency-Key` header: the same key again answers the same refund and never gives money back twice.',
    detail: 'Idempotency-Key header is required: a refund is made once per key',
  },
  PAYMENT_NOT_FOUND: {
    status: 404,
    description: "No such payment of the merchant (another merchant's is not found either).",
    detail: 'Payment 0193a5e2-7c41-7d2e-9a10-5b3c2d1e0f42 not found',
  },
  REFUND_NOT_FOUND: {
    status: 404,
    description: 'No such refund of that payment for the merchant.',
    detail:
      'Refund 0193b1c4-2d5e-7f60-8a71-9b2c3d4e5f60 of payment 0193a5e2-7c41-7d2e-9a10-5b3c2d1e0f42 not found',
  },
  PAYMENT_NOT_REFUNDABLE: {
    status: 409,
    description:
      'The movement took no money that could be given back: a declined attempt, a charge the processor has not decided yet, or a refund itself.',
    detail:
      'Payment 0193a5e2-7c41-7d2e-9a10-5b3c2d1e0f43 was declined: nothing was taken, nothing can be refunded',
  },
  PAYMENT_FULLY_REFUNDED: {
    status: 409,
    description:
      'Nothing is left to refund: the refunds made, scheduled or in progress add up to the amount paid.',
    detail:
      'Payment 0193a5e2-7c41-7d2e-9a10-5b3c2d1e0f42 has nothing left to refund (87500.00 paid, 87500.00 refunded or in progress)',
  },
  PROCESSOR_REFUND_NOT_POSSIBLE: {
    status: 409,
    description:
      'The processor cannot give this payment back through its API: PARAGUAY.PROCESSOR_A rolls a card payment back only on the day it was made (Asunción time), and a bank transfer has no processor. Give the money back yourself and record it: `{amount, method: "BANK_TRANSFER" | "CASH", reference}`.',
    detail:
      'PARAGUAY.PROCESSOR_A rolls a card payment back only on the day it was made (2026-11-23, Asunción time); give the money back outside and record it with method BANK_TRANSFER or CASH',
  },
  PARTIAL_CARD_REFUND_NOT_POSSIBLE: {
    status: 409,
    description:
      'A card payment goes back through its processor whole (a rollback or a reversal has no amount): a part of it can only be given back outside and recorded (`method` `BANK_TRANSFER` or `CASH`).',
    detail:
      'A card payment is given back through the processor whole (87500.00); 50000.00 can only be given back outside and recorded',
  },
  REFUND_AMOUNT_INVALID: {
    status: 422,
    description:
      "`amount` is zero, negative, or has more decimals than the payment's currency (a PYG amount is whole guaraníes); `errors[]` names it.",
    detail: 'amount must be greater than 0',
  },
  REFUND_AMOUNT_EXCEEDS_REFUNDABLE: {
    status: 422,
    description:
      '`amount` is more than what is left to refund of the payment (paid minus refunds not failed).',
    detail: 'amount 100000.00 is more than the 37500.00 left to refund',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** `GET /api/reports/summary` (processor-gateway). */
export const REPORT_ERRORS = {
  REPORT_RANGE_INVALID: {
    status: 400,
    description:
      '`to` is before `from`, or the range is longer than a report covers (366 days by day, 3660 by month); `errors[]` names it.',
    detail: 'to must not be before from',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/**
 * processor-gateway's table (`createApp({ errors })`): its bank notifications (`BANK_TRANSFER_ERRORS`,
 * public), its refunds (`REFUND_ERRORS`, public) and what it answers links over `/internal` for the pay page. The internal codes are not in the
 * public API, so this table is not in `ERROR_CODES` (the OpenAPI document lists those of the public
 * operations only).
 */
export const PROCESSOR_GATEWAY_ERRORS = {
  ...BANK_TRANSFER_ERRORS,
  ...REFUND_ERRORS,
  ...REPORT_ERRORS,
  /** A refund's `Idempotency-Key` already made a refund of another request (as the gateway's own check). */
  IDEMPOTENCY_KEY_REUSED: COMMON_ERRORS.IDEMPOTENCY_KEY_REUSED,
  VALIDATION_ERROR: {
    status: 400,
    description:
      "Bank notification: a well-formed field the service still refuses (a transfer date after today in the merchant's time zone); `errors[]` names it.",
    detail: 'Request body is invalid',
  },
  NOT_FOUND: {
    status: 404,
    description:
      "No such payment, payment method, card registration or customer of the merchant (another merchant's is not found either).",
    detail: 'Payment not found',
  },
  PAYMENT_ATTEMPT_USED: {
    status: 409,
    description:
      "The link's payment attempt (`link:<id>:payment:<n>`) was already made, with another form or another card: the pay page starts the next attempt.",
    detail: 'Payment attempt 1 of link 2 was already made',
  },
  PROCESSOR_NOT_ENABLED: {
    status: 422,
    description: 'The processor is not enabled for the merchant; `errors[]` names `processor`.',
    detail: 'PARAGUAY.PROCESSOR_B is not enabled for this merchant',
  },
  PROCESSOR_UNAVAILABLE: {
    status: 503,
    description:
      'The processor could not be reached, or refused to open a form, while opening a payment or registration form, completing a registration or removing a card: nothing was charged or changed.',
    detail: 'The processor did not answer as expected (ADAPTER_ERROR); nothing was charged',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/**
 * processor-sandbox's table (development and tests only): its answers are the simulated processors' own
 * shapes and pages, so a code here names a refusal its adapters render in those shapes.
 */
export const SANDBOX_ERRORS = {
  CARD_INPUT_INVALID: {
    status: 400,
    description:
      'The card typed on a hosted form (or given to the test API) is not a usable test card: its number, expiry or CVV.',
    detail: 'The card has expired',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** billing-scheduler: billing runs and dunning policies (operator API). */
export const BILLING_ERRORS = {
  BILLING_RUN_NOT_FOUND: {
    status: 404,
    description: 'No such billing run.',
    detail: 'Billing run not found',
  },
  AS_OF_IN_FUTURE: {
    status: 422,
    description:
      "`asOf` is after today in the merchant's time zone; only a deployment with simulated time (`SIMULATED_TIME=true`) runs the future.",
    detail: 'asOf 2026-12-10 is after today (2026-11-23); future runs need SIMULATED_TIME=true',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export const ERROR_CODES = {
  ...COMMON_ERRORS,
  ...GATEWAY_ERRORS,
  ...LINK_ERRORS,
  ...SUBSCRIPTION_ERRORS,
  ...BANK_TRANSFER_ERRORS,
  ...REFUND_ERRORS,
  ...REPORT_ERRORS,
  ...BILLING_ERRORS,
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type LinkErrorCode = keyof typeof LINK_ERRORS;
export type SubscriptionErrorCode = keyof typeof SUBSCRIPTION_ERRORS;
export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;
export type BillingErrorCode = keyof typeof BILLING_ERRORS;
export type BankTransferErrorCode = keyof typeof BANK_TRANSFER_ERRORS;
export type RefundErrorCode = keyof typeof REFUND_ERRORS;
export type ProcessorGatewayErrorCode = keyof typeof PROCESSOR_GATEWAY_ERRORS;
export type SandboxErrorCode = keyof typeof SANDBOX_ERRORS;
