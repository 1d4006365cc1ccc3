import type { MerchantContext, SubscriptionOfLink } from '@payrail/contracts';
import {
  aDynamicLink,
  aMerchant,
  aOneOffLink,
  aStaticLink,
  type ServiceUnderTest,
  startService,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerVariables } from '../src/adapters/http/pay/session';
import { paymentLinks } from '../src/adapters/postgres/schema';
import { createLinksService } from '../src/service';
import { processorGatewayStub } from './support/processor-gateway-stub';
import { subscriptionsStub } from './support/subscriptions-stub';

// Where the pay page takes a subscription's schedule from: subscriptions (the authority on installments),
// asked over internal HTTP with the link's merchant context each time the page is shown (here its stand-in
// with the same contract, `SubscriptionOfLink`). The link's own terms while subscriptions has none yet;
// a notice, and no subscription offered, while it does not answer.

/** The test's customer session: `x-test-customer: <merchantId>:<customerId>`. */
const testSession: MiddlewareHandler<{ Variables: CustomerVariables }> = async (c, next) => {
  const [merchantId, customerId] = (c.req.header('x-test-customer') ?? '').split(':');
  c.set('customer', merchantId && customerId ? { merchantId, customerId: Number(customerId) } : null);
  await next();
};

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
const subscriptions = subscriptionsStub();
const cards = processorGatewayStub();
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(createLinksService({ customerSession: testSession }), {
    clock,
    env: {
      PROCESSOR_SANDBOX_URL: 'http://sandbox.test:3005',
      LINK_EXPIRY_SWEEP_MS: '0',
      SUBSCRIPTIONS_TIMEOUT_MS: '300',
    },
    upstreams: {
      subscriptions: (request) => subscriptions.handle(request),
      'processor-gateway': (request) => cards.handle(request),
    },
  });
});
afterAll(async () => svc?.stop());

const gym = aMerchant({ name: 'Gimnasio Central' });

async function createLink(body: Record<string, unknown>, merchant: MerchantContext = gym) {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: number; slug: string };
}

/** The page as a customer signed in at the merchant sees it (or nobody, with `signedIn: false`). */
async function open(slug: string, options: { lang?: 'es' | 'en'; signedIn?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (options.signedIn !== false) headers['x-test-customer'] = `${gym.merchantId}:4242`;
  const response = await svc.request('GET', `/pay/${slug}${options.lang ? `?lang=${options.lang}` : ''}`, {
    headers,
  });
  expect(response.status).toBe(200);
  return response.text();
}

/** The text inside the element with that test id (first one; none of its own kind inside), tags stripped. */
function testId(html: string, id: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, '').trim();
}

interface Row {
  number: string;
  status: string;
  date: string;
  amount: string;
  /** The date cell's words (with the status label, when shown) and the amount as shown. */
  text: string;
}

function rows(html: string): Row[] {
  return [
    ...html.matchAll(
      /<tr data-testid="pay-schedule-row" data-number="(\d+)" data-status="(\w+)" data-date="([\d-]*)" data-amount="([\d.]+)">([\s\S]*?)<\/tr>/g,
    ),
  ].map(([, number, status, date, amount, cells]) => ({
    number: number ?? '',
    status: status ?? '',
    date: date ?? '',
    amount: amount ?? '',
    text: (cells ?? '')
      .replace(/<\/td>/g, ' | ')
      .replace(/<span class="row-status">/g, ' · ')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
}

/** What subscriptions holds for a 12-period plan of `aStaticLink` created on 2026-11-22: 150 000, then 11 × 120 000 on the 5th. */
function plan(linkId: number, change: (installments: SubscriptionOfLink['installments']) => void = () => {}) {
  const installments: SubscriptionOfLink['installments'] = [
    { number: 1, paymentDate: '2026-11-22', amount: '150000.00', status: 'pending', paidAt: null },
  ];
  for (let number = 2; number <= 12; number++) {
    const month = 12 + number - 2; // December 2026 onwards
    const year = 2026 + Math.floor((month - 1) / 12);
    const paymentDate = `${year}-${String(((month - 1) % 12) + 1).padStart(2, '0')}-05`;
    installments.push({ number, paymentDate, amount: '120000.00', status: 'pending', paidAt: null });
  }
  change(installments);
  const subscription: SubscriptionOfLink = {
    subscriptionId: linkId + 1000,
    type: 'STATIC',
    status: 'pending',
    currency: 'PYG',
    totalPeriods: 12,
    dayOfMonth: 5,
    installmentAmount: '120000.00',
    installments,
  };
  return subscription;
}

async function markPaid(linkId: number, at = new Date('2026-11-22T14:30:00Z')) {
  await svc.database.db
    .update(paymentLinks)
    .set({ statusId: 200, paidAt: at })
    .where(eq(paymentLinks.id, linkId));
}

describe('the schedule on the pay page is the subscription as it is now', () => {
  it('before subscriptions has made the subscription: the link’s terms, with the consent to automatic debits', async () => {
    const link = await createLink(aStaticLink({ amount: 150000 }));
    const html = await open(link.slug);
    expect(subscriptions.calls).toContainEqual({
      path: `/internal/links/${link.id}/subscription`,
      merchantId: gym.merchantId,
    });
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego 11 cuotas de Gs. 120.000, el día 5 de cada mes desde diciembre de 2026.',
    );
    expect(testId(html, 'pay-schedule-consent')).toBe(
      'Al suscribirte, aceptás que tu tarjeta se debite automáticamente en cada fecha de la tabla, por el monto de esa cuota. No tenés que volver a pagar.',
    );
    const shown = rows(html);
    expect(shown).toHaveLength(12);
    expect(shown[0]).toMatchObject({
      number: '1',
      status: 'pending',
      date: '',
      text: '1 | Hoy | Gs. 150.000 |',
    });
    expect(shown[1]).toMatchObject({ text: '2 | 5 de diciembre de 2026 | Gs. 120.000 |' });
    expect(shown[11]).toMatchObject({ date: '2027-10-05', amount: '120000.00' });
    const english = await open(link.slug, { lang: 'en' });
    expect(testId(english, 'pay-schedule-consent')).toBe(
      'By subscribing, you agree that your card will be debited automatically on each date in the table, for that installment’s amount. You do not need to pay again.',
    );
  });

  it('after modify-all: every installment to come at its new amount', async () => {
    const link = await createLink(aStaticLink());
    subscriptions.set(
      gym.merchantId,
      link.id,
      plan(link.id, (all) => {
        for (const installment of all.slice(1)) installment.amount = '99000.00';
      }),
    );
    const html = await open(link.slug);
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego 11 cuotas de Gs. 99.000, el día 5 de cada mes desde diciembre de 2026.',
    );
    expect(
      rows(html)
        .slice(1)
        .map((row) => row.amount),
    ).toEqual(Array(11).fill('99000.00'));
    expect(html).not.toContain('Gs. 120.000');
  });

  it('after modify-dates and a change to one installment: the dates and amounts as they are, said as such', async () => {
    const link = await createLink(aStaticLink());
    subscriptions.set(
      gym.merchantId,
      link.id,
      plan(link.id, (all) => {
        for (const installment of all.slice(1))
          installment.paymentDate = `${installment.paymentDate.slice(0, 8)}20`;
        const fourth = all[3];
        if (fourth) fourth.amount = '60000.00';
      }),
    );
    const html = await open(link.slug);
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego 11 cuotas, en las fechas y por los montos de la tabla.',
    );
    const shown = rows(html);
    expect(shown[1]).toMatchObject({
      date: '2026-12-20',
      text: '2 | 20 de diciembre de 2026 | Gs. 120.000 |',
    });
    expect(shown[3]).toMatchObject({ date: '2027-02-20', amount: '60000.00' });
    const english = await open(link.slug, { lang: 'en' });
    expect(testId(english, 'pay-schedule-words')).toBe(
      'A first payment of Gs. 150,000 today, then 11 installments, on the dates and for the amounts in the table.',
    );
  });

  it('modify-dates alone keeps the plan in words, on the new day', async () => {
    const link = await createLink(aStaticLink());
    subscriptions.set(
      gym.merchantId,
      link.id,
      plan(link.id, (all) => {
        for (const installment of all.slice(1))
          installment.paymentDate = `${installment.paymentDate.slice(0, 8)}15`;
      }),
    );
    expect(testId(await open(link.slug), 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego 11 cuotas de Gs. 120.000, el día 15 de cada mes desde diciembre de 2026.',
    );
  });

  it('a cancelled installment is shown cancelled and not counted among the debits', async () => {
    const link = await createLink(aStaticLink());
    subscriptions.set(
      gym.merchantId,
      link.id,
      plan(link.id, (all) => {
        const third = all[2];
        if (third) third.status = 'cancelled';
      }),
    );
    const html = await open(link.slug);
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego 10 cuotas de Gs. 120.000, el día 5 de cada mes desde diciembre de 2026.',
    );
    const third = rows(html)[2];
    expect(third).toMatchObject({
      status: 'cancelled',
      text: '3 | 5 de enero de 2027 · Anulada | Gs. 120.000 |',
    });
    expect(rows(await open(link.slug, { lang: 'en' }))[2]?.text).toBe(
      '3 | January 5, 2027 · Cancelled | Gs. 120,000 |',
    );
  });

  it('a paid subscription: the first payment made on its day (not “today”), what is still to come, no “nothing more to pay”', async () => {
    const link = await createLink(aStaticLink());
    await markPaid(link.id);
    subscriptions.set(
      gym.merchantId,
      link.id,
      (() => {
        const active = plan(link.id, (all) => {
          const [first, second, third] = all;
          if (first) Object.assign(first, { status: 'paid', paidAt: '2026-11-22T14:30:00.000Z' });
          if (second) Object.assign(second, { status: 'paid', paidAt: '2026-12-05T10:00:00.000Z' });
          if (third) third.status = 'cancelled';
        });
        return { ...active, status: 'active' as const };
      })(),
    );
    const html = await open(link.slug);
    expect(html).toMatch(/data-testid="pay-status" data-status="paid">Primer pago hecho</);
    expect(html).not.toContain('Este enlace ya fue pagado');
    expect(testId(html, 'pay-first-payment')).toBe('El primer pago ya está hecho.');
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Quedan 9 cuotas por debitar: tu tarjeta se debitará automáticamente en cada fecha de la tabla.',
    );
    expect(html).not.toContain('pay-schedule-consent');
    const shown = rows(html);
    expect(shown[0]).toMatchObject({
      status: 'paid',
      date: '2026-11-22',
      text: '1 | 22 de noviembre de 2026 · Pagada | Gs. 150.000 |',
    });
    expect(shown[1]).toMatchObject({
      status: 'paid',
      text: '2 | 5 de diciembre de 2026 · Pagada | Gs. 120.000 |',
    });
    expect(shown[2]).toMatchObject({
      status: 'cancelled',
      text: '3 | 5 de enero de 2027 · Anulada | Gs. 120.000 |',
    });
    expect(shown[3]).toMatchObject({
      status: 'pending',
      text: '4 | 5 de febrero de 2027 · Por debitar | Gs. 120.000 |',
    });
    expect(html).not.toMatch(/>Hoy</);
    expect(html).not.toContain('pay-form');

    const english = await open(link.slug, { lang: 'en' });
    expect(english).not.toContain('nothing more to pay');
    expect(testId(english, 'pay-first-payment')).toBe('The first payment is made.');
    expect(testId(english, 'pay-schedule-words')).toBe(
      '9 installments are still to come: your card will be debited automatically on each date in the table.',
    );
  });

  it('a paid subscription later completed or cancelled says nothing more will be debited', async () => {
    for (const [status, words] of [
      ['completed', 'Todas las cuotas están pagadas: no se debitará nada más.'],
      ['cancelled', 'La suscripción fue cancelada: no se debitará nada más de tu tarjeta.'],
    ] as const) {
      const link = await createLink(aStaticLink({ totalPeriods: 2 }));
      await markPaid(link.id);
      subscriptions.set(gym.merchantId, link.id, {
        ...plan(link.id, (all) => {
          all.splice(2);
          const [first, second] = all;
          if (first) first.status = 'paid';
          if (second) second.status = status === 'completed' ? 'paid' : 'cancelled';
        }),
        totalPeriods: 2,
        status,
      });
      const html = await open(link.slug);
      expect(testId(html, 'pay-schedule-words')).toBe(words);
      expect(rows(html)[1]?.status).toBe(status === 'completed' ? 'paid' : 'cancelled');
    }
  });

  it('a recurrent link paid as a one-off payment (its subscription never started) is simply paid', async () => {
    const link = await createLink(aStaticLink({ singlePayment: true }));
    await markPaid(link.id);
    subscriptions.set(gym.merchantId, link.id, plan(link.id));
    const html = await open(link.slug, { lang: 'en' });
    expect(html).toContain('This link is already paid.');
    expect(html).not.toContain('data-testid="pay-schedule"');
  });

  it('an open-ended plan (totalPeriods null) has no count: every month until cancelled', async () => {
    const link = await createLink(aStaticLink());
    subscriptions.set(gym.merchantId, link.id, { ...plan(link.id), totalPeriods: null });
    const html = await open(link.slug);
    expect(testId(html, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego Gs. 120.000 el día 5 de cada mes desde diciembre de 2026, todos los meses hasta que se cancele.',
    );
    expect(testId(await open(link.slug, { lang: 'en' }), 'pay-schedule-words')).toBe(
      'A first payment of Gs. 150,000 today, then Gs. 120,000 on day 5 of each month from December 2026, every month until cancelled.',
    );
    await markPaid(link.id);
    subscriptions.set(gym.merchantId, link.id, {
      ...plan(link.id, (all) => {
        if (all[0]) all[0].status = 'paid';
      }),
      totalPeriods: null,
      status: 'active',
    });
    expect(testId(await open(link.slug), 'pay-schedule-words')).toBe(
      'Tu tarjeta se debitará automáticamente en cada fecha, todos los meses hasta que se cancele la suscripción.',
    );
  });

  it('a DYNAMIC plan: the consent to each installment the merchant announces; once paid, the invoices to come', async () => {
    const saas = aMerchant({ name: 'Software SA', saasContract: true });
    const link = await createLink(aDynamicLink({ amount: 80000 }), saas);
    const before = await open(link.slug, { signedIn: false });
    expect(testId(before, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 80.000 hoy; las cuotas siguientes las informa el comercio en cada factura.',
    );
    expect(testId(before, 'pay-schedule-consent')).toBe(
      'Al suscribirte, aceptás que tu tarjeta se debite automáticamente por cada cuota que el comercio informe, en su fecha.',
    );
    await markPaid(link.id);
    subscriptions.set(saas.merchantId, link.id, {
      subscriptionId: 1,
      type: 'DYNAMIC',
      status: 'active',
      currency: 'PYG',
      totalPeriods: null,
      dayOfMonth: null,
      installmentAmount: null,
      installments: [
        { number: 1, paymentDate: '2026-11-22', amount: '80000.00', status: 'paid', paidAt: null },
        { number: 2, paymentDate: '2026-12-10', amount: '95500.00', status: 'pending', paidAt: null },
      ],
    });
    const after = await open(link.slug, { signedIn: false });
    expect(testId(after, 'pay-schedule-words')).toBe(
      'Tu tarjeta se debitará automáticamente en la fecha de cada cuota que el comercio informe.',
    );
    expect(rows(after).map((row) => row.text)).toEqual([
      '1 | 22 de noviembre de 2026 · Pagada | Gs. 80.000 |',
      '2 | 10 de diciembre de 2026 · Por debitar | Gs. 95.500 |',
    ]);
  });

  it.each(['down', 'slow', 'garbled'] as const)(
    'subscriptions %s: the page says the plan cannot be shown and does not offer the subscription',
    async (mode) => {
      const subscriptionOnly = await createLink(aStaticLink());
      const both = await createLink(aStaticLink({ singlePayment: true }));
      subscriptions.mode = mode;
      try {
        const html = await open(subscriptionOnly.slug);
        expect(testId(html, 'pay-schedule-unavailable')).toBe(
          'No pudimos consultar el plan de pagos actualizado. Volvé a intentarlo en un momento: hasta entonces no se puede empezar la suscripción.',
        );
        expect(html).not.toContain('pay-schedule-table');
        expect(html).not.toContain('pay-form');
        const bothHtml = await open(both.slug);
        expect(bothHtml).toContain('data-testid="pay-option-single"');
        expect(bothHtml).not.toContain('data-testid="pay-option-subscription"');
        // A paid link whose plan cannot be read does not claim there is nothing more to pay either.
        await markPaid(subscriptionOnly.id);
        const paid = await open(subscriptionOnly.slug, { lang: 'en' });
        expect(paid).toContain('data-testid="pay-schedule-unavailable"');
        expect(paid).not.toContain('nothing more to pay');
      } finally {
        subscriptions.mode = 'up';
      }
    },
  );

  it('a one-off link asks subscriptions nothing', async () => {
    const link = await createLink(aOneOffLink());
    const before = subscriptions.calls.length;
    await open(link.slug);
    expect(subscriptions.calls.length).toBe(before);
  });
});

describe('what the page offers with a subscription', () => {
  it('no “save this card” box on a subscription: it says the card is kept for the debits', async () => {
    const link = await createLink(aStaticLink());
    const html = await open(link.slug);
    expect(html).toContain('data-testid="pay-form"');
    expect(html).not.toContain('data-testid="pay-save-card"');
    expect(testId(html, 'pay-keeps-card')).toBe(
      'En la suscripción, tu tarjeta queda guardada con el procesador para los débitos automáticos de cada cuota.',
    );
    expect(testId(html, 'pay-submit')).toBe('Pagar Gs. 150.000');
  });

  it('both offered: the box belongs to the one-off payment and is hidden (CSS) while the subscription is chosen', async () => {
    const link = await createLink(aStaticLink({ singlePayment: true }));
    const html = await open(link.slug);
    expect(html).toMatch(/<label class="choice save-card"><input type="checkbox" name="saveCard"/);
    expect(html).toMatch(/<p class="keeps-card" data-testid="pay-keeps-card">/);
    expect(html).toContain(
      'form:has(input[name=option][value=subscription]:checked) .save-card{display:none}',
    );
  });

  it('a one-off link keeps its box and no word of debits', async () => {
    const html = await open((await createLink(aOneOffLink())).slug);
    expect(html).toContain('data-testid="pay-save-card"');
    expect(html).not.toContain('pay-keeps-card');
  });
});
