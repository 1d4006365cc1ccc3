export {
  ContractViolation,
  createEvent,
  type EventData,
  type EventEnvelope,
  type EventType,
  eventSchemas,
  moneyString,
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
  paymentMethodsInput,
} from './api/payment-links';
export type { ApiOperation } from './api/operation';
export { DAY_OF_MONTH, dayOfMonthSchema, isDayOfMonth } from './rules';
export { calendarDate, MAX_LENGTH, MIN_CALENDAR_YEAR, text, textRules } from './text';
export { apiOperations } from './api/index';
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
  merchantResponse,
  type UpdateMerchantRequest,
  updateMerchantRequest,
} from './api/admin';
export { DECLINE_CATEGORIES, INSTALLMENT_STATUSES, SUBSCRIPTION_STATUSES } from './events';
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
  installmentIdParams,
  installmentResponse,
  installmentsResponse,
  listInstallmentsQuery,
  modifyAllRequest,
  modifyByAmountRequest,
  modifyDatesRequest,
  modifyInstallmentRequest,
  subscriptionOperations,
} from './api/subscriptions';
