import { z } from 'zod';
import { PROCESSORS } from '../merchant-context';
import { MAX_LENGTH, text } from '../text';
import { type ApiOperation, defineOperation } from './operation';
import { MEMBERSHIP_PAYMENT, paymentLinkDetails } from './payment-links';
import { STORY_BASE_URL, STORY_LINKS } from './story';
import { offsetDateTime } from './time';

/**
 * A merchant's customers (links' service users): who signed in on the pay page with their e-mail, who
 * confirmed their document number on a no-login link, or the signed-in user of a SaaS link (spec 2.3
 * `userId`). The console's customers pages read them.
 */
export const CUSTOMER_PAGE = { default: 25, max: 100 } as const;

export const listCustomersQuery = z.object({
  q: text(MAX_LENGTH.email)
    .trim()
    .min(1)
    .optional()
    .meta({ description: 'Text found (whatever its case) in the e-mail, the name or the document number.' }),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${CUSTOMER_PAGE.max}`)
    .transform(Number)
    .pipe(z.number().int().min(1).max(CUSTOMER_PAGE.max))
    .optional()
    .meta({ description: `Page size, 1 to ${CUSTOMER_PAGE.max} (default ${CUSTOMER_PAGE.default}).` }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a nextCursor of an earlier page')
    .optional()
    .meta({ description: '`nextCursor` of the previous page.' }),
});

export const customerView = z.object({
  id: z.number().int().meta({ description: 'The `userId` of a signed-in-user link is this id.' }),
  email: z.string().nullable().meta({ description: 'Null for a customer known by document number only.' }),
  documentNumber: z.string().nullable(),
  firstName: z
    .string()
    .meta({ description: 'Empty when the customer never gave it (e-mail or document only).' }),
  lastName: z.string(),
  status: z.enum(['active', 'inactive']),
  createTime: offsetDateTime,
});

export const customerListResponse = z.object({
  customers: z.array(customerView),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

export const savedCardView = z.object({
  paymentMethodId: z.uuid(),
  processor: z.enum(PROCESSORS),
  brand: z.string(),
  last4: z.string().meta({ description: 'The last four digits: the card number is never stored here.' }),
  expiryMonth: z.number().int(),
  expiryYear: z.number().int(),
});

export const customerDetailsResponse = customerView.extend({
  payRequests: z.array(paymentLinkDetails).meta({
    description: 'Their links (made for them, or paid by them), newest first, at most 50.',
  }),
  savedCards: z.array(savedCardView).nullable().meta({
    description: 'Their saved cards at every processor, masked; null when they could not be read now.',
  }),
});

export const customerIdParams = z.object({
  id: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().positive('must be a positive integer')),
});

// The story's customers (`./story.ts`): Ana, the signed-in user of link 5 (customer 1), then the customer
// who paid link 2 on the pay page with document number 4567890 (customer 2) and link 3 with 4567891
// (customer 3). Each answer's instants and UUIDs are new in every account.
const anaSignedIn = {
  id: 1,
  email: 'ana@example.com',
  documentNumber: null,
  firstName: 'Ana',
  lastName: 'Gómez',
  status: 'active',
  createTime: '2026-11-23T09:00:00-03:00',
};
const byDocument = (id: number, documentNumber: string) => ({
  id,
  email: null,
  documentNumber,
  firstName: '',
  lastName: '',
  status: 'active',
  createTime: '2026-11-23T09:04:12-03:00',
});

export const customerApi = {
  listCustomers: defineOperation({
    method: 'get',
    path: '/api/customers',
    operationId: 'listCustomers',
    summary: 'Find customers',
    description:
      'Your customers, newest first, optionally those whose e-mail, name or document number contains `q`. ' +
      `Paged: at most \`limit\` per page (default ${CUSTOMER_PAGE.default}); when \`nextCursor\` is not null, pass ` +
      'it as `cursor` (with the same `q`) for the next page.',
    tags: ['Customers'],
    security: 'apiToken',
    query: listCustomersQuery,
    parameterExamples: { default: { limit: '10' } },
    responses: {
      200: {
        description: 'One page of customers.',
        schema: customerListResponse,
        example: {
          customers: [byDocument(3, '4567891'), byDocument(2, '4567890'), anaSignedIn],
          nextCursor: null,
        },
      },
    },
  }),
  getCustomer: defineOperation({
    method: 'get',
    path: '/api/customers/{id}',
    operationId: 'getCustomer',
    summary: 'A customer with their links and saved cards',
    description:
      'The customer, their links (those made for them and those they paid), and their saved cards at every ' +
      'processor, masked (brand, last 4, expiry). Another merchant’s customer is 404.',
    tags: ['Customers'],
    security: 'apiToken',
    pathParams: customerIdParams,
    parameterExamples: { default: { id: '2' } },
    errors: ['CUSTOMER_NOT_FOUND'],
    responses: {
      200: {
        description: 'The customer.',
        schema: customerDetailsResponse,
        example: {
          ...byDocument(2, '4567890'),
          payRequests: [
            {
              id: STORY_LINKS.membership,
              statusId: 200,
              paid: true,
              currency: 'PYG',
              amount: '200000.00',
              refundedAmount: '0.00',
              label: 'Monthly membership',
              handleValue: '+595981123456',
              handleLabel: 'Ana Gómez',
              customIdentifier: '4567890',
              customIdentifier2: 'CONTRACT-2026-117',
              createTime: '2026-11-23T09:00:00-03:00',
              expireTime: null,
              slug: 'Zp8rT2mQw4XbK1sLd9VfYg',
              publicPayUrl: `${STORY_BASE_URL}/pay/Zp8rT2mQw4XbK1sLd9VfYg`,
              singlePayment: false,
              creditAndDebitCard: true,
              paymentMethods: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
              recurrentPayment: true,
              recurrentPaymentType: 'STATIC',
              installmentAmount: '150000.00',
              totalPeriods: 12,
              dayOfMonth: 5,
              monthForSecondInstallment: 1,
              ...MEMBERSHIP_PAYMENT,
            },
          ],
          savedCards: [
            {
              paymentMethodId: '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
              processor: 'PARAGUAY.PROCESSOR_A',
              brand: 'Visa',
              last4: '4242',
              expiryMonth: 12,
              expiryYear: 2030,
            },
          ],
        },
      },
    },
  }),
};

export const customerOperations: ApiOperation[] = Object.values(customerApi) as ApiOperation[];
