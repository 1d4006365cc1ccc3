import { type CustomerEmailKind, CUSTOMER_EMAIL_KINDS } from '@payrail/contracts';
import { composeEmail, type EmailFacts, type EmailLang } from '@payrail/links/src/domain/customer-email';
import { type Browser, chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHROMIUM_ARGS } from './chromium';
import { describeViolations, screenshot, seriousAccessibilityViolations } from './harness';

// Each customer e-mail (issue 29) as a mail reader shows its HTML, in Chromium at a phone's width, in both
// languages: readable, axe-core clean, its one action link marked. With UPDATE_SCREENSHOTS=1 the pictures
// go to docs/screenshots/customer/emails/.

const chromium = inject('chromium');

const card = { brand: 'Visa', last4: '0341' };
const FACTS: Record<CustomerEmailKind, EmailFacts> = {
  receipt: {
    kind: 'receipt',
    concept: 'Plan Gimnasio',
    amount: '150000.00',
    currency: 'PYG',
    paidAt: '2026-12-05T13:00:00.000Z',
    paidAtLocal: '2026-12-05 10:00',
    paymentId: '0193b0c2-7a1e-7c4d-9e2f-3a4b5c6d7e8f',
    card,
    bankTransfer: false,
    installment: 2,
  },
  'payment-failed': {
    kind: 'payment-failed',
    concept: 'Plan Gimnasio',
    amount: '150000.00',
    currency: 'PYG',
    category: 'soft',
    card,
    installment: 2,
  },
  'upcoming-debit': {
    kind: 'upcoming-debit',
    concept: 'Plan Gimnasio',
    amount: '150000.00',
    currency: 'PYG',
    paymentDate: '2026-12-05',
    card,
    installment: 2,
  },
  'card-expiring': {
    kind: 'card-expiring',
    concept: 'Plan Gimnasio',
    card,
    expiry: '12/2026',
    paymentDate: '2027-01-05',
  },
  'past-due': {
    kind: 'past-due',
    concept: 'Plan Gimnasio',
    amount: '150000.00',
    currency: 'PYG',
    installment: 2,
  },
  cancelled: { kind: 'cancelled', concept: 'Plan Gimnasio', byDunning: true },
};
const WITH_ACTION: CustomerEmailKind[] = ['payment-failed', 'card-expiring', 'past-due'];

describe.skipIf(!chromium.available)('the customer e-mails in Chromium (issue 29)', () => {
  let browser: Browser;
  beforeAll(async () => {
    if (!chromium.available) return;
    browser = await playwright.launch({ executablePath: chromium.path, args: CHROMIUM_ARGS });
  });
  afterAll(async () => browser?.close());

  for (const kind of CUSTOMER_EMAIL_KINDS) {
    for (const lang of ['es', 'en'] as EmailLang[]) {
      it(`${kind} (${lang})`, async () => {
        const email = composeEmail(FACTS[kind], lang, { firstName: 'Ana' }, 'Gimnasio Centro');
        const html = email.html.replaceAll('{{action}}', 'https://pay.example.com/pay/care/abc.def');
        const page = await browser.newPage({ viewport: { width: 390, height: 700 } });
        try {
          await page.setContent(html);
          expect(await page.locator('html').getAttribute('lang')).toBe(lang);
          const actions = page.locator('a[data-action]');
          expect(await actions.count()).toBe(WITH_ACTION.includes(kind) ? 1 : 0);
          expect(await page.locator('a[href]').count()).toBe(WITH_ACTION.includes(kind) ? 1 : 0);
          // Nothing wider than the phone: no horizontal scrolling.
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
          const violations = await seriousAccessibilityViolations(page);
          expect(violations, describeViolations(violations)).toEqual([]);
          await screenshot(page, `customer/emails/${kind}.${lang}`);
        } finally {
          await page.close();
        }
      });
    }
  }
});
