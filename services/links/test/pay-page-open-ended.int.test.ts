import { aMerchant, aStaticLink, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksService } from '../src/service';
import { subscriptionsStub } from './support/subscriptions-stub';

// The pay page of an open-ended subscription (`totalPeriods: null`): no number of installments, every month
// until cancelled, in Spanish and in English. Subscriptions has not made the subscription yet (its
// stand-in answers 404), so the page shows the link's own terms: the first rows of the plan.

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
const subscriptions = subscriptionsStub();
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, {
    clock,
    env: { PROCESSOR_SANDBOX_URL: 'http://sandbox.test:3005' },
    upstreams: { subscriptions: (request) => subscriptions.handle(request) },
  });
});
afterAll(async () => svc?.stop());

const gym = aMerchant({ name: 'Gym Asunción' });

/** The text inside the element with that test id (first one; none of its own kind inside), tags stripped. */
function testId(html: string, id: string): string | undefined {
  const match = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return match?.[2]?.replace(/<[^>]+>/g, '').trim();
}

/** The schedule's rows: number, date and amount as data attributes. */
function rows(html: string) {
  return [...html.matchAll(/data-testid="pay-schedule-row"([^>]*)>/g)].map((row) => ({
    number: /data-number="(\d+)"/.exec(row[1] ?? '')?.[1],
    date: /data-date="([^"]*)"/.exec(row[1] ?? '')?.[1],
    amount: /data-amount="([^"]*)"/.exec(row[1] ?? '')?.[1],
  }));
}

describe('the pay page of an open-ended subscription', () => {
  it('says every month until cancelled, in both languages, and counts no installments', async () => {
    const created = await svc.request('POST', '/api/saleitems/add', {
      merchant: gym,
      body: aStaticLink({ amount: 150000, installmentAmount: 120000, totalPeriods: null, dayOfMonth: 5 }),
    });
    expect(created.status).toBe(200);
    const { slug } = (await created.json()) as { slug: string };

    const spanish = await (await svc.request('GET', `/pay/${slug}`)).text();
    expect(testId(spanish, 'pay-schedule-words')).toBe(
      'Un primer pago de Gs. 150.000 hoy y luego Gs. 120.000 el día 5 de cada mes desde diciembre de 2026, todos los meses hasta que se cancele.',
    );
    expect(testId(spanish, 'pay-schedule-until-cancelled')).toBe(
      '… y así todos los meses hasta que se cancele.',
    );
    expect(spanish).not.toMatch(/cuotas más|\d+ cuotas de/);
    const plan = rows(spanish);
    expect(plan[0]).toEqual({ number: '1', date: '', amount: '150000.00' });
    expect(plan[1]).toEqual({ number: '2', date: '2026-12-05', amount: '120000.00' });
    expect(plan.length).toBe(13);
    expect(testId(spanish, 'pay-schedule-rest')).toContain('Ver la cuota siguiente');

    const english = await (await svc.request('GET', `/pay/${slug}?lang=en`)).text();
    expect(testId(english, 'pay-schedule-words')).toBe(
      'A first payment of Gs. 150,000 today, then Gs. 120,000 on day 5 of each month from December 2026, every month until cancelled.',
    );
    expect(testId(english, 'pay-schedule-until-cancelled')).toBe('… and so on every month until cancelled.');
    expect(english).not.toMatch(/more installments|\d+ installments of/);
  });
});
