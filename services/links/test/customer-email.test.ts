import { describe, expect, it } from 'vitest';
import { careTokenSigned, newCareToken } from '../src/application/customer-emails/care-links';
import {
  ACTION_PLACEHOLDER,
  cardLastDay,
  composeEmail,
  EMAIL_RETRY_WINDOW_MS,
  emailLang,
  nextAttemptAt,
} from '../src/domain/customer-email';

const HOUR = 3_600_000;

describe('the customer e-mails, pure', () => {
  it('retries on the schedule (the last step repeating), the last try when 3 days close, then gives up', () => {
    const created = new Date('2026-12-01T00:00:00Z');
    const schedule = [60_000, 5 * 60_000, 24 * HOUR];
    expect(nextAttemptAt(created, created, 1, schedule, EMAIL_RETRY_WINDOW_MS)?.toISOString()).toBe(
      '2026-12-01T00:01:00.000Z',
    );
    expect(nextAttemptAt(created, created, 2, schedule, EMAIL_RETRY_WINDOW_MS)?.toISOString()).toBe(
      '2026-12-01T00:05:00.000Z',
    );
    const late = new Date(created.getTime() + 60 * HOUR);
    expect(nextAttemptAt(created, late, 9, schedule, EMAIL_RETRY_WINDOW_MS)?.toISOString()).toBe(
      '2026-12-04T00:00:00.000Z',
    );
    expect(
      nextAttemptAt(created, new Date(created.getTime() + 72 * HOUR), 10, schedule, EMAIL_RETRY_WINDOW_MS),
    ).toBe(null);
  });

  it('a card can be charged to the end of its expiry month', () => {
    expect(cardLastDay(2, 2028)).toBe('2028-02-29');
    expect(cardLastDay(12, 2026)).toBe('2026-12-31');
  });

  it('speaks the customer’s language, Spanish unless it is English', () => {
    expect(emailLang('en')).toBe('en');
    expect(emailLang(null)).toBe('es');
    expect(emailLang('pt')).toBe('es');
  });

  it('says why in plain words, never the code, and escapes what the merchant wrote', () => {
    const email = composeEmail(
      {
        kind: 'payment-failed',
        concept: '<b>Plan</b>',
        amount: '150000.00',
        currency: 'PYG',
        category: 'hard',
        card: { brand: 'Visa', last4: '0341' },
        installment: 2,
      },
      'en',
      { firstName: 'Ana' },
      'Gym & Co',
    );
    expect(email.subject).toBe('We could not collect your payment for <b>Plan</b>');
    expect(email.html).toContain('&lt;b&gt;Plan&lt;/b&gt;');
    expect(email.html).not.toContain('<b>Plan</b>');
    expect(email.text).toContain('Your bank refused the card');
    expect(email.text).toContain(`Change the card: ${ACTION_PLACEHOLDER}`);
    expect(email.html.match(/href=/g)).toHaveLength(1);
    expect(email.hasAction).toBe(true);
  });

  it('a signed link: ours passes; one character changed, or another secret, does not', () => {
    const token = newCareToken('secret-a');
    expect(careTokenSigned('secret-a', token)).toBe(true);
    expect(careTokenSigned('secret-b', token)).toBe(false);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect(careTokenSigned('secret-a', `${token.slice(0, -1)}${last}`)).toBe(false);
    const first = token[0] === 'A' ? 'B' : 'A';
    expect(careTokenSigned('secret-a', `${first}${token.slice(1)}`)).toBe(false);
    expect(careTokenSigned('secret-a', 'no-dot')).toBe(false);
  });
});
