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
export { apiOperations } from './api/index';
