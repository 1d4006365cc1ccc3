import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from './support/sandbox';

// The hosted card forms as a developer integrating sees them: in the language of the page that frames or
// links to them (Spanish unless told English), amounts as the pay page writes them, the CVV masked, and a
// card registration that a payment follows reading as that payment.

let sandbox: RunningSandbox;
let spid = 5000;
let order = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ SANDBOX_PROCESSOR_B_RETURN_URL: 'http://shop.test/result/($hash)' });
});
afterAll(async () => sandbox.stop());
afterEach(async () => {
  await sandbox.test.reset();
});

/** The text of the element with that test id, tags stripped. */
function testId(html: string, id: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, '').trim();
}

async function paymentFormA(query = '', headers: Record<string, string> = {}) {
  const buy = await sandbox.a.singleBuy(++spid, '150000.00');
  const page = await sandbox.call(`/checkout/new?process_id=${buy.body.process_id}${query}`, { headers });
  expect(page.status).toBe(200);
  return { processId: buy.body.process_id, html: page.text };
}

async function paymentFormB(query = '') {
  const started = await sandbox.b.start(`form${++order}`, 150000);
  const hash = started.body.resultado[0]!.data;
  const page = await sandbox.call(`/pagos/${hash}${query}`);
  expect(page.status).toBe(200);
  return { hash, html: page.text };
}

describe('the hosted forms speak the page’s language', () => {
  it('PROCESSOR_A’s payment form: Spanish by default, the amount as the pay page shows it', async () => {
    const { html } = await paymentFormA();
    expect(html).toContain('<html lang="es">');
    expect(testId(html, 'amount')).toBe('Total: Gs. 150.000');
    expect(html).toContain('<label for="card-number">Número de tarjeta</label>');
    expect(html).toContain('<label for="card-cvv">Código de seguridad (CVV)</label>');
    expect(testId(html, 'card-submit')).toBe('Pagar Gs. 150.000');
    expect(testId(html, 'cancel-link')).toBe('Cancelar');
    expect(html).toContain('Procesador simulado: solo acepta las tarjetas de prueba.');
    expect(html).not.toMatch(/Simulated|Processor A sandbox|150000\.00 PYG/);
  });

  it('English when the page is (lang=en, or the browser’s language); the form keeps it when shown again', async () => {
    const { processId, html } = await paymentFormA('&lang=en');
    expect(html).toContain('<html lang="en">');
    expect(testId(html, 'amount')).toBe('Total: Gs. 150,000');
    expect(testId(html, 'card-submit')).toBe('Pay Gs. 150,000');
    expect(html).toContain('<input type="hidden" name="lang" value="en">');
    expect(html).toMatch(/data-testid="cancel-link" href="[^"]*(&amp;|&#38;)lang=en"/);
    const byBrowser = await paymentFormA('', { 'accept-language': 'en-US,en;q=0.9' });
    expect(byBrowser.html).toContain('<html lang="en">');
    // A card typed wrong: the form again, in English, saying why.
    const again = await sandbox.call('/checkout/new', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        process_id: processId,
        lang: 'en',
        card_number: '4111111111111111',
        card_expiry: '12/40',
        card_cvv: '123',
      }).toString(),
    });
    expect(again.status).toBe(400);
    expect(testId(again.text, 'form-error')).toBe(
      'Only the sandbox test cards are accepted (see its README)',
    );
    expect(again.text).toContain('<html lang="en">');
    const spanish = await sandbox.call('/checkout/new', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        process_id: processId,
        card_number: '42',
        card_expiry: '12/40',
      }).toString(),
    });
    expect(testId(spanish.text, 'form-error')).toBe('El número de tarjeta tiene de 13 a 19 dígitos');
  });

  it('PROCESSOR_B’s page: Spanish, Gs. 150.000; English with lang=en', async () => {
    const spanish = await paymentFormB();
    expect(spanish.html).toContain('<html lang="es">');
    expect(testId(spanish.html, 'amount')).toBe('Total: Gs. 150.000');
    expect(testId(spanish.html, 'card-submit')).toBe('Pagar Gs. 150.000');
    const english = await paymentFormB('?lang=en&amount=150000.00&currency=PYG');
    expect(english.html).toContain('<html lang="en">');
    expect(testId(english.html, 'amount')).toBe('Total: Gs. 150,000');
  });

  it('the result page in the iframe says the outcome in the form’s language', async () => {
    const { processId } = await paymentFormA();
    const result = await sandbox.call('/checkout/new', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        process_id: processId,
        lang: 'en',
        card_number: '4242424242424242',
        card_expiry: '12/40',
        card_cvv: '123',
      }).toString(),
    });
    expect(result.text).toContain('data-outcome="approved"');
    expect(testId(result.text, 'result')).toBe('Payment approved');
    expect(testId(result.text, 'return-link')).toBe('Continue');
  });
});

describe('the CVV is masked', () => {
  it.each(['A', 'B'] as const)(
    'on PROCESSOR_%s’s form: a password field, numeric keypad, cc-csc',
    async (which) => {
      const { html } = which === 'A' ? await paymentFormA() : await paymentFormB();
      const cvv = /<input id="card-cvv"[^>]*>/.exec(html)?.[0] ?? '';
      expect(cvv).toContain('type="password"');
      expect(cvv).toContain('inputmode="numeric"');
      expect(cvv).toContain('autocomplete="cc-csc"');
      expect(cvv).toContain('data-testid="card-cvv"');
    },
  );
});

describe('a card registration that a payment follows reads as that payment', () => {
  it('PROCESSOR_A: with the page’s amount, the button pays it; without, it saves the card', async () => {
    const registration = await sandbox.a.newCard(77, 1);
    const processId = registration.body.process_id;
    const told = await sandbox.call(
      `/checkout/register_card/new?process_id=${processId}&lang=es&amount=150000.00&currency=PYG`,
    );
    expect(testId(told.text, 'card-submit')).toBe('Pagar Gs. 150.000');
    expect(told.text).toContain('data-action="save-card-button"');
    expect(testId(told.text, 'registration-charge')).toBe(
      'La tarjeta queda registrada en el procesador y el comercio cobra Gs. 150.000 con ella enseguida.',
    );
    // The hint travels with the form, so that a form shown again still says it.
    expect(told.text).toContain('<input type="hidden" name="amount" value="150000.00">');
    const bare = await sandbox.call(`/checkout/register_card/new?process_id=${processId}`);
    expect(testId(bare.text, 'card-submit')).toBe('Guardar tarjeta');
    const english = await sandbox.call(`/checkout/register_card/new?process_id=${processId}&lang=en`);
    expect(testId(english.text, 'card-submit')).toBe('Save card');
    // Not an amount: no hint at all.
    const odd = await sandbox.call(
      `/checkout/register_card/new?process_id=${processId}&amount=%3Cb%3E&currency=PYG`,
    );
    expect(testId(odd.text, 'card-submit')).toBe('Guardar tarjeta');
  });

  it('PROCESSOR_B: the same on its add-card page', async () => {
    await sandbox.b.addCustomer('hint1');
    const form = await sandbox.b.addCard('hint1');
    const page = await sandbox.call(
      `/pagos/tarjetas/${form.body.resultado}?lang=en&amount=99000.00&currency=PYG`,
    );
    expect(page.text).toContain('<html lang="en">');
    expect(testId(page.text, 'card-submit')).toBe('Pay Gs. 99,000');
    expect(page.text).toContain('data-action="save-card-button"');
  });
});
