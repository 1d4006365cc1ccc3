export {
  ContractViolation,
  createEvent,
  type EventData,
  type EventEnvelope,
  type EventType,
  eventSchemas,
  moneyString,
  PAYMENT_METHOD_KINDS,
  type PaymentMethodKind,
  parseEvent,
  recurrenceSchema,
} from './events';
export {
  CURRENCIES,
  type Currency,
  INSTANCES,
  type MerchantContext,
  merchantContextSchema,
  PROCESSORS,
  type Processor,
} from './merchant-context';
export {
  amountInput,
  type CreatePaymentLinkRequest,
  createPaymentLinkRequest,
  createPaymentLinkResponse,
  identifierInput,
  identifierText,
  listPaymentLinksQuery,
  PAYMENT_LINK_PAGE,
  PAYMENT_LINK_STATUS_NAMES,
  paymentLinkIdParams,
  type PaymentLinkStatusName,
  paymentMethodsInput,
} from './api/payment-links';
export { API_TAGS, type ApiOperation, type ApiTag, defineOperation, type ExampleOf } from './api/operation';
export { DEMO_MERCHANT_ID, STORY_BASE_URL, STORY_DAY } from './api/story';
export {
  COMMON_ERRORS,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeInfo,
  GATEWAY_ERRORS,
  type GatewayErrorCode,
  LINK_ERRORS,
  type LinkErrorCode,
  SUBSCRIPTION_ERRORS,
  BANK_TRANSFER_ERRORS,
  BILLING_ERRORS,
  type BillingErrorCode,
  type BankTransferErrorCode,
  type SubscriptionErrorCode,
} from './api/errors';
export { offsetDateTime } from './api/time';
export { DAY_OF_MONTH, dayOfMonthSchema, isDayOfMonth } from './rules';
export { calendarDate, MAX_LENGTH, MIN_CALENDAR_YEAR, text, textRules } from './text';
export { apiOperations } from './api/index';
export { adminApi } from './api/admin';
export {
  BILLING_RUN_STATUSES,
  billingAdminApi,
  billingAdminOperations,
  billingRunIdParams,
  billingRunListQuery,
  billingRunListResponse,
  billingRunResponse,
  type CreateBillingRunRequest,
  createBillingRunRequest,
  dunningPolicyRequest,
  dunningPolicyResponse,
} from './api/billing';
export { paymentLinkApi } from './api/payment-links';
export { subscriptionApi } from './api/subscriptions';
export {
  MAX_PAY_WAIT_HOURS,
  PAYMENT_LINK_STATUSES,
  PAYMENT_LINK_STATUS_TABLE,
  type PaymentLinkDetails,
  paymentLinkDetails,
  type SignedInUserLinkRequest,
  signedInUserLinkRequest,
  signedInUserLinkResponse,
} from './api/payment-links';
export {
  type CreateMerchantRequest,
  createMerchantRequest,
  createMerchantResponse,
  DEFAULT_TIMEZONE,
  INSTANCE_CURRENCIES,
  issueTokenResponse,
  merchantIdParams,
  merchantResponse,
  merchantTokenParams,
  type UpdateMerchantRequest,
  updateMerchantRequest,
} from './api/admin';
export {
  DECLINE_CATEGORIES,
  type DeclineCategory,
  INSTALLMENT_STATUSES,
  SUBSCRIPTION_STATUSES,
} from './events';
export {
  addInstallmentsRequest,
  BULK_LIMITS,
  type BulkModifyInstallmentsRequest,
  bulkModifyInstallmentsRequest,
  bulkModifyInstallmentsResponse,
  cancelAllRequest,
  cancelByAmountRequest,
  cancelByInvoiceRequest,
  changedInstallmentsResponse,
  chargeAttemptsResponse,
  installmentIdParams,
  installmentResponse,
  installmentsResponse,
  listInstallmentsQuery,
  listSubscriptionsQuery,
  SUBSCRIPTION_PAGE,
  subscriptionIdParams,
  subscriptionListResponse,
  subscriptionResponse,
  modifyAllRequest,
  pendingInstallmentsResponse,
  modifyByAmountRequest,
  modifyDatesRequest,
  modifyInstallmentRequest,
  subscriptionOperations,
} from './api/subscriptions';
export {
  type BankNotificationRequest,
  type BankNotificationResponse,
  bankNotificationOperations,
  bankNotificationRequest,
  bankNotificationResponse,
  bankTransferTarget,
  INTERNAL_SETTLE_PATH,
  type SettleInstallmentByTransferRequest,
  type SettleInstallmentByTransferResponse,
  type SettleLinkByTransferRequest,
  type SettleLinkByTransferResponse,
  settleInstallmentByTransferRequest,
  settleInstallmentByTransferResponse,
  settleLinkByTransferRequest,
  settleLinkByTransferResponse,
} from './api/bank-notifications';
export {
  INSTALLMENT_PAID_BY_CHARGE,
  INSTALLMENT_PAID_OTHERWISE,
  LINK_PAYMENT_FAILED,
  LINK_PAYMENT_SUCCEEDED,
  RECURRENT_LINK_CREATED,
  routingKeyOf,
} from './routing';
export {
  adminWebhookApi,
  type CreateWebhookEndpointRequest,
  createWebhookEndpointRequest,
  DELIVERIES_PAGE,
  EVENT_RETENTION_DAYS,
  EVENTS_PAGE,
  RESERVED_WEBHOOK_HEADERS,
  SECRET_ROTATION_OVERLAP_HOURS,
  type UpdateWebhookEndpointRequest,
  updateWebhookEndpointRequest,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_EXAMPLES,
  WEBHOOK_TEST_KIND,
  webhookApi,
  webhookEnvelope,
  type WebhookEventKind,
  webhookOperations,
} from './api/webhooks';
export {
  type SubscriptionOfLink,
  subscriptionOfLinkPath,
  subscriptionOfLinkResponse,
} from './subscription-of-link';
