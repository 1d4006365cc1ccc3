import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type BrowserSystem,
  byTestId,
  describeViolations,
  type Merchant,
  MerchantApi,
  newCustomer,
  payStatus,
  screenshot,
  seriousAccessibilityViolations,
  startBrowserSystem,
} from './harness';

// The pay page of an open-ended subscription (`totalPeriods: null`, every month until cancelled), in Debian's
// Chromium: the plan says so in Spanish and in English, where a fixed plan states its number of installments.
// Screenshots `open-ended-es` and `open-ended-en` (into docs/screenshots/ with UPDATE_SCREENSHOTS=1).

const chromium = inject('chromium');

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;

async function expectAccessible(page: Page, step: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, `${step}:\n${describeViolations(violations)}`).toEqual([]);
}

describe.skipIf(!chromium.available)('the pay page of an open-ended subscription in Chromium', () => {
  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path);
    api = new MerchantApi(env);
    merchant = await api.merchant();
  });
  afterAll(async () => env?.stop());

  it('says every month until cancelled, in Spanish and in English', async () => {
    const link = await api.link(merchant, {
      label: 'Membresía del gimnasio',
      amount: 180000,
      handleValue: 'ana@example.com',
      handleLabel: 'Ana Gómez',
      singlePayment: false,
      creditAndDebitCard: true,
      recurrentPayment: true,
      recurrentPaymentType: 'STATIC',
      installmentAmount: 150000,
      totalPeriods: null,
      dayOfMonth: 5,
      monthForSecondInstallment: 1,
    });

    const spanish = await newCustomer(env, 'es-PY');
    const es = await spanish.newPage();
    await es.goto(link.publicPayUrl);
    expect(await payStatus(es)).toBe('pending');
    expect(await es.getAttribute('html', 'lang')).toBe('es');
    const esWords = (await byTestId(es, 'pay-schedule-words').textContent()) ?? '';
    expect(esWords).toMatch(
      /^Un primer pago de Gs\. 180\.000 hoy y luego Gs\. 150\.000 el día 5 de cada mes desde \S+ de \d{4}, todos los meses hasta que se cancele\.$/,
    );
    const esSchedule = (await byTestId(es, 'pay-schedule').textContent()) ?? '';
    expect(esSchedule).toContain('… y así todos los meses hasta que se cancele.');
    expect(esSchedule).not.toMatch(/cuotas más|\d+ cuotas de/);
    await screenshot(es, 'open-ended-es');
    await expectAccessible(es, 'Spanish page');

    const english = await newCustomer(env, 'en-US');
    const en = await english.newPage();
    await en.goto(link.publicPayUrl);
    expect(await en.getAttribute('html', 'lang')).toBe('en');
    const enWords = (await byTestId(en, 'pay-schedule-words').textContent()) ?? '';
    expect(enWords).toMatch(
      /^A first payment of Gs\. 180,000 today, then Gs\. 150,000 on day 5 of each month from \S+ \d{4}, every month until cancelled\.$/,
    );
    const enSchedule = (await byTestId(en, 'pay-schedule').textContent()) ?? '';
    expect(enSchedule).toContain('… and so on every month until cancelled.');
    expect(enSchedule).not.toMatch(/more installments|\d+ installments of/);
    await screenshot(en, 'open-ended-en');
    await expectAccessible(en, 'English page');

    await spanish.close();
    await english.close();
  });
});
