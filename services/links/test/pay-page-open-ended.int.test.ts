import { aMerchant, aStaticLink, type ServiceUnderTest, startService, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksService } from '../src/service';

// The pay page of an open-ended subscription (`totalPeriods: null`): no number of installments, every month
// until cancelled, in Spanish and in English.

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService, {
    clock,
    env: { PROCESSOR_SANDBOX_URL: 'http://sandbox.test:3005' },
  });
});
afterAll(async () => svc?.stop());

const gym = aMerchant({ name: 'Gym Asunción' });

/** The text inside the element with that test id (first one), tags stripped. */
function testId(html: string, id: string): string | undefined {
  const match = new RegExp(`data-testid="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return match?.[1]?.replace(/<[^>]+>/g, '').trim();
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
    expect(spanish).toContain('… y así todos los meses hasta que se cancele.');
    expect(spanish).not.toMatch(/cuotas más|\d+ cuotas de/);
    const table = /<table data-testid="pay-schedule-table">([\s\S]*?)<\/table>/.exec(spanish)?.[1] ?? '';
    const rows = [
      ...table.matchAll(/<tr><td>(\d+)<\/td><td>([^<]*)<\/td><td class="num">([^<]*)<\/td>/g),
    ].map((row) => row.slice(1));
    expect(rows[0]).toEqual(['1', 'Hoy', 'Gs. 150.000']);
    expect(rows[1]).toEqual(['2', '5 de diciembre de 2026', 'Gs. 120.000']);
    expect(rows.length).toBeGreaterThan(2);

    const english = await (await svc.request('GET', `/pay/${slug}?lang=en`)).text();
    expect(testId(english, 'pay-schedule-words')).toBe(
      'A first payment of Gs. 150,000 today, then Gs. 120,000 on day 5 of each month from December 2026, every month until cancelled.',
    );
    expect(english).toContain('… and so on every month until cancelled.');
    expect(english).not.toMatch(/more installments|\d+ installments of/);
  });
});
