import { describe, expect, it } from 'vitest';
import { cancelsAfterDunning, consecutiveFailedInstallments } from '../src/domain/dunning';
import type { Installment } from '../src/domain/installment';
import type { InstallmentStatus } from '../src/domain/status';

/** Installments 1.. of one subscription, a month apart, with these statuses. */
function schedule(...statuses: InstallmentStatus[]): Installment[] {
  return statuses.map((status, index) => ({
    id: index + 1,
    subscriptionId: 1,
    number: index + 1,
    paymentDate: `2026-${String(index + 1).padStart(2, '0')}-10`,
    amount: '150000.00',
    status,
    invoiceNumber: null,
    paidAt: null,
  }));
}

describe('the dunning rule: cancel after N failed installments in a row', () => {
  it('counts the failed installments after the last paid one, by payment date', () => {
    expect(consecutiveFailedInstallments(schedule('paid', 'pending', 'pending'))).toBe(0);
    expect(consecutiveFailedInstallments(schedule('paid', 'failed', 'pending'))).toBe(1);
    expect(consecutiveFailedInstallments(schedule('paid', 'failed', 'failed', 'pending'))).toBe(2);
    // A paid one between resets the count.
    expect(consecutiveFailedInstallments(schedule('paid', 'failed', 'paid', 'failed'))).toBe(1);
    // A failed one followed by a paid later one (a retry that failed after the next month was paid): 0.
    expect(consecutiveFailedInstallments(schedule('paid', 'failed', 'paid'))).toBe(0);
  });

  it('cancelled, pending and processing installments neither count nor break the run', () => {
    expect(
      consecutiveFailedInstallments(
        schedule('paid', 'failed', 'cancelled', 'processing', 'failed', 'pending'),
      ),
    ).toBe(2);
  });

  it('orders by payment date, not by number (a DYNAMIC invoice or a moved date)', () => {
    const installments = schedule('paid', 'failed', 'paid', 'failed');
    // Installment 3 (paid) moved before installment 2: 2 and 4 are now in a row.
    const moved = installments.map((i) => (i.number === 3 ? { ...i, paymentDate: '2026-01-20' } : i));
    expect(consecutiveFailedInstallments(moved)).toBe(2);
  });

  it('cancels at N and beyond, never when the rule is off (null)', () => {
    const twoFailed = schedule('paid', 'failed', 'failed', 'pending');
    expect(cancelsAfterDunning(twoFailed, null)).toBe(false);
    expect(cancelsAfterDunning(twoFailed, 3)).toBe(false);
    expect(cancelsAfterDunning(twoFailed, 2)).toBe(true);
    expect(cancelsAfterDunning(twoFailed, 1)).toBe(true);
    expect(cancelsAfterDunning(schedule('paid', 'failed', 'paid', 'failed'), 2)).toBe(false);
  });
});
