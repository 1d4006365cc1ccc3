import type { Frame, Page } from 'playwright-core';
import { waitFor } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type BrowserSystem,
  byTestId,
  CARDS,
  type CreatedLink,
  describeViolations,
  fillCardForm,
  loginCodeFor,
  type Merchant,
  MerchantApi,
  newCustomer,
  payStatus,
  processorFrame,
  screenshot,
  seriousAccessibilityViolations,
  startBrowserSystem,
  VIEWPORT,
  waitForStatus,
} from './harness';

// Issue 30, item 9: the pay page tells the truth. A subscription's page shows the schedule as it is now
// (after the merchant's modify-all, modify-dates, a cancelled installment), says the card is debited
// automatically on each date, and once paid lists what is still to come. Amounts never wrap at 390 px;
// the login code field, the button after "Pagar" and the sandbox's forms read right. Screenshots at 390 and
// 1280 px in both languages (`UPDATE_SCREENSHOTS=1` writes them into docs/screenshots/).

const chromium = inject('chromium');

const DESKTOP = { width: 1280, height: 900 };

let env: BrowserSystem;
let api: MerchantApi;
let merchant: Merchant;

const subscriptionLink = (label: string, amount: number, extra: Record<string, unknown> = {}) => ({
  label,
  amount,
  handleValue: 'sofia@example.com',
  handleLabel: 'Sofía Benítez',
  singlePayment: false,
  creditAndDebitCard: true,
  recurrentPayment: true,
  recurrentPaymentType: 'STATIC',
  installmentAmount: 1250000,
  totalPeriods: 6,
  dayOfMonth: 5,
  monthForSecondInstallment: 1,
  ...extra,
});

interface ShownRow {
  number: number;
  status: string;
  date: string;
  amount: string;
  text: string;
}

/** The schedule's rows as the page shows them (its stable hooks, and the words a customer reads). */
async function scheduleRows(page: Page): Promise<ShownRow[]> {
  const rows = page.locator('[data-testid="pay-schedule-row"]');
  const count = await rows.count();
  const shown: ShownRow[] = [];
  for (let index = 0; index < count; index++) {
    const row = rows.nth(index);
    shown.push({
      number: Number(await row.getAttribute('data-number')),
      status: (await row.getAttribute('data-status')) ?? '',
      date: (await row.getAttribute('data-date')) ?? '',
      amount: (await row.getAttribute('data-amount')) ?? '',
      text: (await row.locator('td').allTextContents()).join(' ').replace(/\s+/g, ' ').trim(),
    });
  }
  return shown;
}

/**
 * Every amount (`.money`) that is shown, measured in the browser: the client rectangles of its text, one
 * line each; also the page is not wider than the window (an amount that cannot wrap must not push it out).
 */
/**
 * Runs in the page (a string, so that it is the browser's code, not this file's): each shown `.money`, the
 * distinct lines its text's client rectangles sit on, its height and line height; and how much wider than
 * the window the page is.
 */
const AMOUNT_LAYOUT = `(() => {
  const amounts = [];
  for (const element of document.querySelectorAll('.money')) {
    if (element.getClientRects().length === 0) continue; // not rendered (a closed <details>)
    const range = document.createRange();
    range.selectNodeContents(element);
    const tops = new Set(
      Array.from(range.getClientRects()).filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
    );
    const style = getComputedStyle(element);
    const lineHeight = Number.parseFloat(style.lineHeight) || Number.parseFloat(style.fontSize) * 1.5;
    amounts.push({
      text: element.textContent || '',
      lines: tops.size,
      height: range.getBoundingClientRect().height,
      lineHeight,
    });
  }
  return { amounts, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
})()`;

interface AmountLayout {
  amounts: Array<{ text: string; lines: number; height: number; lineHeight: number }>;
  overflow: number;
}

async function amountLayout(target: Page | Frame): Promise<AmountLayout> {
  return (await target.evaluate(AMOUNT_LAYOUT)) as AmountLayout;
}

async function expectNoAmountWraps(target: Page | Frame, step: string, atLeast = 1): Promise<void> {
  const { amounts, overflow } = await amountLayout(target);
  expect(amounts.length, `${step}: amounts measured`).toBeGreaterThanOrEqual(atLeast);
  const wrapped = amounts.filter((amount) => amount.lines !== 1 || amount.height > amount.lineHeight * 1.5);
  expect(wrapped, `${step}: amounts on more than one line`).toEqual([]);
  expect(overflow, `${step}: the page is wider than the window`).toBeLessThanOrEqual(0);
}

async function expectAccessible(page: Page, step: string): Promise<void> {
  const violations = await seriousAccessibilityViolations(page);
  expect(violations, `${step}:\n${describeViolations(violations)}`).toEqual([]);
}

/** Signs in on the link page with e-mail and the code from the development mailbox; checks the code field. */
async function signIn(page: Page, email: string): Promise<void> {
  await byTestId(page, 'pay-sign-in').click();
  await byTestId(page, 'login-email').fill(email);
  const before = new Date(Date.now() - 2000);
  await byTestId(page, 'login-send').click();
  const code = byTestId(page, 'login-code');
  await code.waitFor({ timeout: 15_000 });
  // A phone offers its number pad and the code from the message.
  expect(await code.getAttribute('inputmode')).toBe('numeric');
  expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
  await code.fill(await loginCodeFor(env, email, before));
  await byTestId(page, 'login-verify').click();
  await byTestId(page, 'pay-form').waitFor({ timeout: 15_000 });
}

/** The screenshots of one page at both widths; the page is left at the phone's width. */
async function shots(page: Page, name: string): Promise<void> {
  await screenshot(page, `${name}-390`);
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize(VIEWPORT);
}

async function newLinkWithSubscription(label: string, amount: number, extra: Record<string, unknown> = {}) {
  const link = await api.link(merchant, subscriptionLink(label, amount, extra));
  const subscription = await waitFor(() => api.subscriptionOf(merchant, link.id), 20_000, 200);
  return { link, subscription };
}

describe.skipIf(!chromium.available)('the pay page tells the truth (issue 30, item 9)', () => {
  beforeAll(async () => {
    if (!chromium.available) return;
    env = await startBrowserSystem(chromium.path);
    api = new MerchantApi(env);
    merchant = await api.merchant({ name: 'Colegio San José' });
  });
  afterAll(async () => env?.stop());

  it('the measurement itself finds an amount that wraps, and none once it is kept on one line', async () => {
    const context = await newCustomer(env);
    const page = await context.newPage();
    const narrow = (style: string) =>
      `<!doctype html><html><body><div style="width:70px"><span class="money" style="${style}">Gs. 1.250.000</span></div></body></html>`;
    await page.setContent(narrow(''));
    expect((await amountLayout(page)).amounts[0]?.lines).toBeGreaterThan(1);
    await page.setContent(narrow('white-space:nowrap'));
    expect((await amountLayout(page)).amounts[0]?.lines).toBe(1);
    await context.close();
  });

  it('after modify-all, modify-dates and a cancelled installment the subscription page shows the schedule as it is', async () => {
    const { link, subscription } = await newLinkWithSubscription('Cuota escolar 2027', 1500000);
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    const created = await scheduleRows(page);
    expect(created.map((row) => row.amount)).toEqual([
      '1500000.00',
      '1250000.00',
      '1250000.00',
      '1250000.00',
      '1250000.00',
      '1250000.00',
    ]);
    expect(created[0]?.text).toContain('Hoy');
    expect(created.slice(1).every((row) => row.date.endsWith('-05'))).toBe(true);

    await api.request(merchant, 'PUT', '/api/subscriptions/modify-all', {
      payRequestId: link.id,
      newAmount: 1390000,
    });
    await page.reload();
    expect((await scheduleRows(page)).slice(1).map((row) => row.amount)).toEqual(Array(5).fill('1390000.00'));
    await expect
      .poll(() => byTestId(page, 'pay-schedule-words').textContent())
      .toBe(
        `Un primer pago de Gs. 1.500.000 hoy y luego 5 cuotas de Gs. 1.390.000, el día 5 de cada mes desde ${await monthOfSecond(subscription.installments)}.`,
      );

    await api.request(merchant, 'PUT', '/api/subscriptions/modify-dates', {
      payRequestId: link.id,
      dayOfMonth: 20,
    });
    await page.reload();
    const moved = await scheduleRows(page);
    expect(moved.slice(1).every((row) => row.date.endsWith('-20'))).toBe(true);
    expect(moved[1]?.text).toMatch(/^2 20 de \S+ de \d{4} Gs\. 1\.390\.000$/);

    const third = subscription.installments.find((installment) => installment.number === 3);
    await api.request(merchant, 'POST', `/api/subscriptions/installments/${third?.installmentId}/cancel`);
    await page.reload();
    const withCancel = await scheduleRows(page);
    expect(withCancel[2]).toMatchObject({ number: 3, status: 'cancelled' });
    expect(withCancel[2]?.text).toContain('Anulada');
    expect(await byTestId(page, 'pay-schedule-words').textContent()).toContain(
      'luego 4 cuotas de Gs. 1.390.000',
    );
    // The customer's consent to the automatic debits, in plain words.
    expect(await byTestId(page, 'pay-schedule-consent').textContent()).toContain(
      'tu tarjeta se debite automáticamente en cada fecha',
    );
    await expectNoAmountWraps(page, 'the subscription page after the changes', 7);
    await expectAccessible(page, 'the subscription page after the changes');
    await context.close();
  });

  it('a subscription is paid as a payment (no save-card box, the sandbox form in Spanish, CVV masked), then its page lists what is still to come', async () => {
    const { link, subscription } = await newLinkWithSubscription('Cuota escolar 2027 B', 1510000);
    const second = subscription.installments.find((installment) => installment.number === 2);
    await api.request(merchant, 'PATCH', `/api/subscriptions/installments/${second?.installmentId}`, {
      amount: 990000,
    });
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, 'sofia@example.com');

    // The subscription keeps the card anyway: no box, a word that says so; the button is the payment.
    expect(await byTestId(page, 'pay-save-card').count()).toBe(0);
    expect(await byTestId(page, 'pay-keeps-card').textContent()).toContain('tu tarjeta queda guardada');
    expect((await byTestId(page, 'pay-submit').textContent())?.trim()).toBe('Pagar Gs. 1.510.000');
    expect((await scheduleRows(page))[1]).toMatchObject({ number: 2, amount: '990000.00' });
    await expectNoAmountWraps(page, 'the plan with the pay panel', 7);
    await expectAccessible(page, 'the plan with the pay panel');
    await shots(page, '18-subscription-plan-es');

    await byTestId(page, 'pay-processor-PROCESSOR_A').check();
    await byTestId(page, 'pay-submit').click();
    const form = await processorFrame(env, page);
    await byTestId(form, 'card-number').waitFor({ timeout: 15_000 });
    // The sandbox's form, as the developer and the customer see it: Spanish like the page, the button the
    // payment it is (not "Guardar tarjeta"), the CVV masked.
    expect(await form.getAttribute('html', 'lang')).toBe('es');
    expect((await byTestId(form, 'card-submit').textContent())?.trim()).toBe('Pagar Gs. 1.510.000');
    expect(await form.locator('label[for="card-number"]').textContent()).toBe('Número de tarjeta');
    const cvv = byTestId(form, 'card-cvv');
    expect(await cvv.getAttribute('type')).toBe('password');
    expect(await cvv.getAttribute('inputmode')).toBe('numeric');
    expect(await cvv.getAttribute('autocomplete')).toBe('cc-csc');
    expect(await byTestId(page, 'pay-card-kept').textContent()).toContain('débitos automáticos');
    expect(await byTestId(page, 'pay-continue').textContent()).toBe(
      '¿Ya pagaste y esta página no cambió? Ver cómo quedó tu pago',
    );
    await expectNoAmountWraps(page, 'our page around the card form');
    await expectNoAmountWraps(form, 'the sandbox card form', 2);
    await shots(page, '19-subscription-card-form-es');
    await fillCardForm(form, { number: CARDS.approved });
    await page.locator('[data-testid="pay-status"][data-status="paid"]').first().waitFor({ timeout: 40_000 });
    await expectNoAmountWraps(page, 'the receipt');
    await waitForStatus(api, merchant, link.id, 200);
    await waitFor(
      async () => ((await api.subscriptionOf(merchant, link.id))?.status === 'active' ? true : undefined),
      20_000,
      250,
    );
    // After the payment the merchant cancels installment 4.
    const fourth = subscription.installments.find((installment) => installment.number === 4);
    await api.request(merchant, 'POST', `/api/subscriptions/installments/${fourth?.installmentId}/cancel`);

    await page.goto(link.publicPayUrl);
    expect(await payStatus(page)).toBe('paid');
    expect((await byTestId(page, 'pay-status').textContent())?.trim()).toBe('Primer pago hecho');
    expect(await page.locator('body').textContent()).not.toContain('ya fue pagado');
    expect(await byTestId(page, 'pay-first-payment').textContent()).toBe('El primer pago ya está hecho.');
    expect(await byTestId(page, 'pay-schedule-words').textContent()).toBe(
      'Quedan 4 cuotas por debitar: tu tarjeta se debitará automáticamente en cada fecha de la tabla.',
    );
    const paid = await scheduleRows(page);
    expect(paid.map((row) => [row.number, row.status])).toEqual([
      [1, 'paid'],
      [2, 'pending'],
      [3, 'pending'],
      [4, 'cancelled'],
      [5, 'pending'],
      [6, 'pending'],
    ]);
    // The first period is the day it was paid, not "today".
    expect(paid[0]?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(paid[0]?.text).not.toContain('Hoy');
    expect(paid[0]?.text).toContain('Pagada');
    expect(paid[1]).toMatchObject({ amount: '990000.00' });
    expect(paid[1]?.text).toContain('Por debitar');
    expect(paid[3]?.text).toContain('Anulada');
    expect(await byTestId(page, 'pay-form').count()).toBe(0);
    await expectNoAmountWraps(page, 'the paid subscription', 7);
    await expectAccessible(page, 'the paid subscription');
    await shots(page, '20-subscription-paid-es');

    await page.goto(`${link.publicPayUrl}?lang=en`);
    expect((await byTestId(page, 'pay-status').textContent())?.trim()).toBe('First payment made');
    expect(await page.locator('body').textContent()).not.toContain('nothing more to pay');
    expect(await byTestId(page, 'pay-schedule-words').textContent()).toBe(
      '4 installments are still to come: your card will be debited automatically on each date in the table.',
    );
    expect((await scheduleRows(page))[3]?.text).toContain('Cancelled');
    await expectNoAmountWraps(page, 'the paid subscription in English', 7);
    await expectAccessible(page, 'the paid subscription in English');
    await shots(page, '21-subscription-paid-en');
    await context.close();
  });

  it('in English the plan, the button and the sandbox’s form are English', async () => {
    const { link } = await newLinkWithSubscription('School fee 2027', 1520000);
    const context = await newCustomer(env, 'en-US');
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await byTestId(page, 'pay-schedule-consent').textContent()).toContain(
      'your card will be debited automatically on each date',
    );
    await signIn(page, 'sofia@example.com');
    expect((await byTestId(page, 'pay-submit').textContent())?.trim()).toBe('Pay Gs. 1,520,000');
    await expectNoAmountWraps(page, 'the English plan', 7);
    await expectAccessible(page, 'the English plan');
    await shots(page, '22-subscription-plan-en');
    await byTestId(page, 'pay-processor-PROCESSOR_A').check();
    await byTestId(page, 'pay-submit').click();
    const form = await processorFrame(env, page);
    await byTestId(form, 'card-number').waitFor({ timeout: 15_000 });
    expect(await form.getAttribute('html', 'lang')).toBe('en');
    expect((await byTestId(form, 'card-submit').textContent())?.trim()).toBe('Pay Gs. 1,520,000');
    expect(await form.locator('label[for="card-number"]').textContent()).toBe('Card number');
    expect(await byTestId(page, 'pay-continue').textContent()).toBe(
      'Already paid and this page has not changed? See how your payment went',
    );
    await expectNoAmountWraps(form, 'the English sandbox form', 2);
    await shots(page, '23-subscription-card-form-en');
    await context.close();
  });

  it('PROCESSOR_B’s own page is in the page’s language too, with the amount as the page shows it', async () => {
    const link: CreatedLink = await api.link(merchant, {
      ...subscriptionLink('Matrícula', 1530000),
      singlePayment: true,
      recurrentPayment: false,
      recurrentPaymentType: undefined,
      installmentAmount: undefined,
      totalPeriods: undefined,
      dayOfMonth: undefined,
      monthForSecondInstallment: undefined,
    });
    const context = await newCustomer(env);
    const page = await context.newPage();
    await page.goto(link.publicPayUrl);
    await signIn(page, 'sofia@example.com');
    // A one-off payment keeps its "save this card" box.
    expect(await byTestId(page, 'pay-save-card').count()).toBe(1);
    await byTestId(page, 'pay-processor-PROCESSOR_B').check();
    await byTestId(page, 'pay-submit').click();
    await page.waitForURL((url) => url.origin === new URL(env.sandboxUrl).origin, { timeout: 15_000 });
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    expect((await byTestId(page, 'amount').textContent())?.trim()).toBe('Total: Gs. 1.530.000');
    expect(await byTestId(page, 'card-cvv').getAttribute('type')).toBe('password');
    await expectNoAmountWraps(page, 'PROCESSOR_B’s page', 2);
    await context.close();
  });
});

/** `diciembre de 2026`: the month of installment 2 as the Spanish page writes it. */
async function monthOfSecond(installments: Array<{ number: number; paymentDate: string }>): Promise<string> {
  const months = [
    'enero',
    'febrero',
    'marzo',
    'abril',
    'mayo',
    'junio',
    'julio',
    'agosto',
    'septiembre',
    'octubre',
    'noviembre',
    'diciembre',
  ];
  const date = installments.find((installment) => installment.number === 2)?.paymentDate ?? '';
  return `${months[Number(date.slice(5, 7)) - 1]} de ${date.slice(0, 4)}`;
}
