// Object mothers only (no vitest): also usable outside a test run, as by the benchmarks.
import { randomUUID } from 'node:crypto';
import type { MerchantContext } from '@payrail/contracts';

// Object mothers: one valid thing of each kind, with the defaults the spec's examples use. A test
// names only what matters to it (`aStaticLink({ dayOfMonth: 28 })`) and spreads or removes the rest.

/** The result of a mother: its defaults, with each override's own type in place of the default's. */
type With<Defaults, Overrides> = Omit<Defaults, keyof Overrides> & Overrides;

function mother<Defaults extends object>(defaults: Defaults) {
  return <Overrides extends object = object>(overrides?: Overrides): With<Defaults, Overrides> =>
    ({ ...defaults, ...overrides }) as unknown as With<Defaults, Overrides>;
}

/** A merchant context as the gateway signs it; a new merchant id each call, so tests never share data. */
export function aMerchant(overrides: Partial<MerchantContext> = {}): MerchantContext {
  return {
    merchantId: randomUUID(),
    name: 'Test merchant',
    instance: 'NATIONAL',
    currency: 'PYG',
    saasContract: false,
    noLoginEnabled: false,
    callbackUrl: null,
    timezone: 'America/Asuncion',
    processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
    ...overrides,
  };
}

const oneOffLink = {
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
};

/** `POST /api/saleitems/add`: a one-off payment link (no subscription). */
export const aOneOffLink = mother(oneOffLink);

const staticLink = {
  ...oneOffLink,
  singlePayment: false,
  recurrentPayment: true,
  recurrentPaymentType: 'STATIC' as const,
  installmentAmount: 120000,
  totalPeriods: 12,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
};

/** `POST /api/saleitems/add`: a STATIC subscription link (fixed installments, 12 monthly on the 5th). */
export const aStaticLink = mother(staticLink);

const dynamicLink = {
  ...oneOffLink,
  singlePayment: false,
  recurrentPayment: true,
  recurrentPaymentType: 'DYNAMIC' as const,
};

/** `POST /api/saleitems/add`: a DYNAMIC subscription link (installments given later through the API). */
export const aDynamicLink = mother(dynamicLink);

const signedInUserRequest = {
  label: 'Invoice 2026-11',
  amount: 99000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana Gómez',
  singlePayment: true,
  creditAndDebitCard: true,
  payWaitHours: 48,
  signedInUser: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Gómez' },
};

/** `POST /api/ext-app/payrequests/signed-in-user`: a one-off link for a customer the merchant signed in. */
export const aSignedInUserRequest = mother(signedInUserRequest);

/** A copy of `body` without `fields`, for "field missing" cases. */
export function without<T extends object, K extends keyof T>(body: T, ...fields: K[]): Omit<T, K> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !fields.includes(key as K))) as Omit<T, K>;
}
