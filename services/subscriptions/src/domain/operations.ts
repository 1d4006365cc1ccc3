import { parseAmount } from '@payrail/money';
import {
  InvoiceNumberRequired,
  InvoiceNumberTaken,
  NoInstallmentWithInvoice,
  NoMatchingPendingInstallments,
  NotEnoughPendingInstallments,
  SubscriptionNotDynamic,
} from './errors';
import {
  byPaymentDate,
  cancelInstallment,
  cancelWithSubscription,
  changeInstallment,
  type Installment,
  isMerchantModifiable,
  assertNotInPast,
} from './installment';
import { moveToDayOfMonth } from './schedule';
import { assertActive, type Subscription } from './subscription';

/**
 * The v1 operations as pure decisions: given a subscription's installments, which ones change and how.
 * Each returns the changed installments (new versions), earliest first; the caller stores them.
 */

function modifiable(installments: Installment[]): Installment[] {
  return installments.filter(isMerchantModifiable).sort(byPaymentDate);
}

function sameAmount(a: string, b: string): boolean {
  return parseAmount(a) === parseAmount(b);
}

function noneMatch(what: string): NoMatchingPendingInstallments {
  return new NoMatchingPendingInstallments(what);
}

export function planCancelByAmount(
  installments: Installment[],
  amount: string,
  quantity?: number,
): Installment[] {
  const matching = modifiable(installments).filter((installment) => sameAmount(installment.amount, amount));
  if (matching.length === 0) throw noneMatch(`has the amount ${amount}`);
  // Asking for more than there is would cancel fewer than the merchant meant: refuse rather than guess.
  if (quantity !== undefined && quantity > matching.length) {
    throw new NotEnoughPendingInstallments(matching.length, amount, quantity);
  }
  return matching.slice(0, quantity ?? matching.length).map(cancelInstallment);
}

export function planCancelByInvoice(
  subscription: Subscription,
  installments: Installment[],
  invoiceNumber: string,
): Installment[] {
  if (subscription.type !== 'DYNAMIC') {
    throw new SubscriptionNotDynamic();
  }
  const installment = installments.find((candidate) => candidate.invoiceNumber === invoiceNumber);
  if (!installment) {
    throw new NoInstallmentWithInvoice(invoiceNumber);
  }
  return [cancelInstallment(installment)];
}

/** Every pending installment, the link payment's too while it is unpaid: nothing will be collected. */
export function planCancelAll(installments: Installment[]): Installment[] {
  return installments
    .filter((installment) => installment.status === 'pending')
    .sort(byPaymentDate)
    .map(cancelWithSubscription);
}

export function planModifyByAmount(
  installments: Installment[],
  amount: string,
  newAmount: string,
): Installment[] {
  const matching = modifiable(installments).filter((installment) => sameAmount(installment.amount, amount));
  if (matching.length === 0) throw noneMatch(`has the amount ${amount}`);
  return matching.map((installment) => changeInstallment(installment, { amount: newAmount }));
}

export function planModifyAll(installments: Installment[], newAmount: string): Installment[] {
  const pending = modifiable(installments);
  if (pending.length === 0) throw noneMatch('is left');
  return pending.map((installment) => changeInstallment(installment, { amount: newAmount }));
}

/**
 * Each pending installment to `dayOfMonth` of its own month. A day already past in the current month
 * makes that installment due at once: the spec's rule is "its own month", not "the next such day".
 */
export function planMoveToDay(installments: Installment[], dayOfMonth: number): Installment[] {
  const pending = modifiable(installments);
  if (pending.length === 0) throw noneMatch('is left');
  return pending.map((installment) =>
    changeInstallment(installment, { paymentDate: moveToDayOfMonth(installment.paymentDate, dayOfMonth) }),
  );
}

export interface InstallmentToAdd {
  paymentDate: string;
  amount: string;
  invoiceNumber: string | null;
}

/**
 * `POST /api/subscriptions/installments`: new pending installments numbered after the last one. DYNAMIC
 * subscriptions collect invoices, so each needs its invoice number, unique within the subscription.
 */
export function planAdditions(
  subscription: Subscription,
  existing: Installment[],
  additions: InstallmentToAdd[],
  today: string,
): NewInstallmentPlan[] {
  assertActive(subscription);
  const usedInvoices = new Set(
    existing.map((installment) => installment.invoiceNumber).filter((n) => n !== null),
  );
  let number = existing.reduce((max, installment) => Math.max(max, installment.number), 0);
  return additions.map((addition, index) => {
    if (subscription.type === 'DYNAMIC' && !addition.invoiceNumber) {
      throw new InvoiceNumberRequired(index);
    }
    if (addition.invoiceNumber && usedInvoices.has(addition.invoiceNumber)) {
      throw new InvoiceNumberTaken({ invoiceNumber: addition.invoiceNumber, index });
    }
    if (addition.invoiceNumber) usedInvoices.add(addition.invoiceNumber);
    assertNotInPast(addition.paymentDate, today, ['installments', index, 'paymentDate']);
    number += 1;
    return {
      number,
      paymentDate: addition.paymentDate,
      amount: addition.amount,
      status: 'pending',
      invoiceNumber: addition.invoiceNumber,
      paidAt: null,
    };
  });
}

export interface NewInstallmentPlan {
  number: number;
  paymentDate: string;
  amount: string;
  status: 'pending';
  invoiceNumber: string | null;
  paidAt: null;
}
