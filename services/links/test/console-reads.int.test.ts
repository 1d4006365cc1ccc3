import type { MerchantContext } from '@payrail/contracts';
import {
  aMerchant,
  aOneOffLink,
  aSignedInUserRequest,
  type ServiceUnderTest,
  startService,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, paymentLinks } from '../src/adapters/postgres/schema';
import { linksService } from '../src/service';

// What the merchant console reads of links (issue 28): the links by status, the search in a link's label,
// customer and identifiers, and the customers with their links and saved cards (processor-gateway's vault
// answered here by a stand-in, as a real one would over internal HTTP).

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
const HOUR = 3_600_000;
let svc: ServiceUnderTest;
/** What the stand-in processor-gateway answers for a customer's cards: 'down' for an outage. */
let vault: 'down' | Array<Record<string, unknown>> = [];
const askedFor: string[] = [];

beforeAll(async () => {
  svc = await startService(linksService, {
    clock,
    upstreams: {
      'processor-gateway': async (request) => {
        askedFor.push(new URL(request.url).pathname);
        if (vault === 'down') return new Response('down', { status: 503 });
        return Response.json({ paymentMethods: vault });
      },
    },
  });
});
afterAll(async () => svc?.stop());

type Json = Record<string, unknown>;

async function get<T = Json>(merchant: MerchantContext, path: string): Promise<{ status: number; body: T }> {
  const response = await svc.request('GET', path, { merchant });
  return { status: response.status, body: (await response.json()) as T };
}

async function createLink(merchant: MerchantContext, body: Json = aOneOffLink()): Promise<number> {
  const response = await svc.request('POST', '/api/saleitems/add', { body, merchant });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { id: number }).id;
}

describe('GET /api/payrequests/summary', () => {
  it('counts the merchant’s links by status as a reader sees them now, never another merchant’s', async () => {
    const merchant = aMerchant();
    clock.set(new Date('2026-11-22T12:00:00Z'));
    const paid = await createLink(merchant);
    const rejected = await createLink(merchant);
    const cancelled = await createLink(merchant);
    await createLink(merchant);
    // Valid for one hour: expired once the clock is past it, without anything written.
    await createLink(merchant, aOneOffLink({ payWaitHours: 1 }));
    await createLink(aMerchant());
    await svc.database.db.update(paymentLinks).set({ statusId: 200 }).where(eq(paymentLinks.id, paid));
    await svc.database.db.update(paymentLinks).set({ statusId: 5 }).where(eq(paymentLinks.id, rejected));
    expect((await svc.request('POST', `/api/payrequests/${cancelled}/cancel`, { merchant })).status).toBe(
      200,
    );

    expect(await get(merchant, '/api/payrequests/summary')).toEqual({
      status: 200,
      body: { counts: { pending: 2, rejected: 1, expired: 0, cancelled: 1, paid: 1 } },
    });
    clock.set(new Date(Date.parse('2026-11-22T12:00:00Z') + 2 * HOUR));
    expect((await get(merchant, '/api/payrequests/summary')).body).toEqual({
      counts: { pending: 1, rejected: 1, expired: 1, cancelled: 1, paid: 1 },
    });
    expect((await get(aMerchant(), '/api/payrequests/summary')).body).toEqual({
      counts: { pending: 0, rejected: 0, expired: 0, cancelled: 0, paid: 0 },
    });
  });
});

describe('GET /api/payrequests?q=', () => {
  it('finds the text in the label, the customer’s name, e-mail or phone, or an identifier, whatever its case', async () => {
    const merchant = aMerchant();
    const yoga = await createLink(
      merchant,
      aOneOffLink({ label: 'Clase de Yoga', handleLabel: 'Marta Ríos' }),
    );
    const phone = await createLink(merchant, aOneOffLink({ handleValue: '+595981000111', label: 'Cuota' }));
    const order = await createLink(merchant, aOneOffLink({ customIdentifier: 'ORDER-77', label: 'Pedido' }));
    const second = await createLink(
      merchant,
      aOneOffLink({ customIdentifier2: 'CONTRATO_9', label: 'Plan' }),
    );
    await createLink(aMerchant(), aOneOffLink({ label: 'Clase de Yoga' }));
    const ids = async (q: string) =>
      (
        await get<{ payRequests: Array<{ id: number }> }>(
          merchant,
          `/api/payrequests?q=${encodeURIComponent(q)}`,
        )
      ).body.payRequests.map((link) => link.id);
    expect(await ids('yoga')).toEqual([yoga]);
    expect(await ids('MARTA')).toEqual([yoga]);
    expect(await ids('981000')).toEqual([phone]);
    expect(await ids('order-77')).toEqual([order]);
    expect(await ids('contrato_9')).toEqual([second]);
    // `%` and `_` are the characters themselves, not patterns.
    expect(await ids('%')).toEqual([]);
    expect(await ids('O_DER')).toEqual([]);
    // With another filter, both apply.
    const both = await get<{ payRequests: Array<{ id: number }> }>(
      merchant,
      '/api/payrequests?q=yoga&status=paid',
    );
    expect(both.body.payRequests).toEqual([]);
  });
});

describe('GET /api/customers', () => {
  it('pages the merchant’s customers newest first, finds them by e-mail, name or document, never another merchant’s', async () => {
    const merchant = aMerchant({ saasContract: true });
    const created: number[] = [];
    for (const [email, firstName] of [
      ['ana@example.com', 'Ana'],
      ['luis@example.com', 'Luis'],
      ['marta@example.com', 'Marta'],
    ] as const) {
      const response = await svc.request('POST', '/api/ext-app/payrequests/signed-in-user', {
        merchant,
        body: aSignedInUserRequest({ signedInUser: { email, firstName, lastName: 'Gómez' } }),
      });
      expect(response.status).toBe(200);
      created.push(((await response.json()) as { userId: number }).userId);
    }
    const [byDocument] = await svc.database.db
      .insert(customers)
      .values({
        merchantId: merchant.merchantId,
        documentNumber: '4567890',
        firstName: '',
        lastName: '',
        status: 'active',
        createdAt: clock.now(),
      })
      .returning({ id: customers.id });
    const first = await get<{ customers: Array<Json & { id: number }>; nextCursor: string | null }>(
      merchant,
      '/api/customers?limit=2',
    );
    expect(first.status).toBe(200);
    expect(first.body.customers.map((customer) => customer.id)).toEqual([byDocument?.id, created[2]]);
    expect(first.body.customers[1]).toEqual({
      id: created[2],
      email: 'marta@example.com',
      documentNumber: null,
      firstName: 'Marta',
      lastName: 'Gómez',
      status: 'active',
      createTime: expect.stringMatching(/^2026-11-\d\dT\d\d:\d\d:\d\d-03:00$/),
    });
    const second = await get<{ customers: Array<{ id: number }>; nextCursor: string | null }>(
      merchant,
      `/api/customers?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.customers.map((customer) => customer.id)).toEqual([created[1], created[0]]);
    expect(second.body.nextCursor).toBeNull();
    const found = async (q: string) =>
      (
        await get<{ customers: Array<{ id: number }> }>(merchant, `/api/customers?q=${encodeURIComponent(q)}`)
      ).body.customers.map((customer) => customer.id);
    expect(await found('LUIS@')).toEqual([created[1]]);
    expect(await found('marta gómez')).toEqual([created[2]]);
    expect(await found('456789')).toEqual([byDocument?.id]);
    expect((await get<{ customers: unknown[] }>(aMerchant(), '/api/customers')).body.customers).toEqual([]);
  });

  it('one customer: their links and their saved cards, masked; 404 for another merchant’s; null cards in an outage', async () => {
    const merchant = aMerchant({ saasContract: true });
    const response = await svc.request('POST', '/api/ext-app/payrequests/signed-in-user', {
      merchant,
      body: aSignedInUserRequest({ label: 'Factura 2026-11' }),
    });
    const { id: linkId, userId } = (await response.json()) as { id: number; userId: number };
    const other = await createLink(merchant);
    // Paid by this customer on the pay page.
    await svc.database.db
      .update(paymentLinks)
      .set({ paidCustomerId: userId, statusId: 200 })
      .where(eq(paymentLinks.id, other));
    await createLink(merchant);
    vault = [
      {
        paymentMethodId: '0b7d2a3c-1e4f-4a5b-8c6d-7e8f9a0b1c2d',
        customerId: userId,
        processor: 'PARAGUAY.PROCESSOR_A',
        last4: '4242',
        brand: 'VISA',
        expiryMonth: 12,
        expiryYear: 2030,
        blocked: false,
        createdAt: '2026-11-22T12:00:00.000Z',
      },
    ];
    const found = await get<
      Json & { payRequests: Array<{ id: number; statusId: number }>; savedCards: unknown }
    >(merchant, `/api/customers/${userId}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: userId, email: 'ana@example.com', firstName: 'Ana' });
    expect(found.body.payRequests.map((link) => [link.id, link.statusId])).toEqual([
      [other, 200],
      [linkId, 1],
    ]);
    expect(found.body.savedCards).toEqual([
      {
        paymentMethodId: '0b7d2a3c-1e4f-4a5b-8c6d-7e8f9a0b1c2d',
        processor: 'PARAGUAY.PROCESSOR_A',
        brand: 'VISA',
        last4: '4242',
        expiryMonth: 12,
        expiryYear: 2030,
      },
    ]);
    expect(askedFor).toContain(`/internal/customers/${userId}/payment-methods`);

    vault = 'down';
    expect((await get(merchant, `/api/customers/${userId}`)).body).toMatchObject({ savedCards: null });
    vault = [];

    const elsewhere = await get(aMerchant(), `/api/customers/${userId}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ code: 'CUSTOMER_NOT_FOUND' });
    expect((await get(merchant, '/api/customers/abc')).status).toBe(400);
  });
});
