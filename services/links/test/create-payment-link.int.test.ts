import { aMerchant, type ServiceUnderTest, startService } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentLinks, outbox } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(linksService);
});
afterAll(async () => svc?.stop());

const oneOff = {
  label: 'Gym membership',
  amount: 150000,
  handleValue: 'ana@example.com',
  handleLabel: 'Ana',
  singlePayment: true,
  creditAndDebitCard: true,
  recurrentPayment: false,
};

describe('POST /api/saleitems/add (walking skeleton)', () => {
  it('stores the link with its link.created event and answers the spec 2.2 fields', async () => {
    const merchant = aMerchant();
    const response = await svc.request('POST', '/api/saleitems/add', { body: oneOff, merchant });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['ammount', 'currency', 'id', 'publicPayUrl', 'slug', 'statusId']);
    expect(body).toMatchObject({ currency: 'PYG', ammount: '150000.00', statusId: 1 });
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body.publicPayUrl).toBe(`http://pay.test/pay/${body.slug}`);
    const events = await svc.database.db.select().from(outbox);
    expect(events.map((e) => e.type)).toContain('link.created');
  });

  it('refuses a request without the signed merchant context (an internal port reached directly)', async () => {
    const response = await svc.request('POST', '/api/saleitems/add', { body: oneOff });
    expect(response.status).toBe(401);
  });

  it('stores nothing for a refused request', async () => {
    const before = (await svc.database.db.select().from(paymentLinks)).length;
    const response = await svc.request('POST', '/api/saleitems/add', {
      body: { ...oneOff, amount: 10.123 },
      merchant: aMerchant(),
    });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: Array<{ path: string }> };
    expect(problem.errors.map((e) => e.path)).toEqual(['amount']);
    expect((await svc.database.db.select().from(paymentLinks)).length).toBe(before);
  });
});
