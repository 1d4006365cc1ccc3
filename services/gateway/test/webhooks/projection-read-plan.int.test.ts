import type { ServiceUnderTest } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  loadProjectionStatement,
  setLinkStatusesStatement,
} from '../../src/adapters/postgres/webhook-projection-store';
import { startWebhookGateway } from './support';

// The event log reads a batch's projection rows (links, subscriptions, installments) once per batch. At a
// benchmark's size (10,000 subscriptions) a read that scans every row of each table, once per batch of
// events, was the busiest thing the gateway asked of PostgreSQL: each table must be read by its key.

let gateway: ServiceUnderTest;
beforeAll(async () => {
  gateway = await startWebhookGateway({ WEBHOOK_DELIVERY_WORKER: 'false' });
});
afterAll(async () => {
  await gateway?.stop();
});

it('reads the projection by key, not by scanning the tables, with thousands of rows in them', async () => {
  const db = gateway.database.db;
  const merchant = '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f';
  const base = 900_000_000;
  await db.execute(sql`insert into gateway.webhook_links (link_id, merchant_id, label, amount, currency,
      recurrent, total_periods, status_id, subscription_id)
    select ${base} + g, ${merchant}::uuid, 'Gym', '200000.00', 'PYG', true, 21, 200, ${base} + g
    from generate_series(1, 5000) g on conflict do nothing`);
  await db.execute(sql`insert into gateway.webhook_subscriptions (subscription_id, merchant_id, link_id, total_periods)
    select ${base} + g, ${merchant}::uuid, ${base} + g, 21 from generate_series(1, 5000) g on conflict do nothing`);
  await db.execute(sql`insert into gateway.webhook_installments (installment_id, subscription_id, number)
    select ${base} + g, ${base} + (g + 20) / 21, (g - 1) % 21 + 1 from generate_series(1, 100000) g
    on conflict do nothing`);
  await db.execute(
    sql`analyze gateway.webhook_links, gateway.webhook_subscriptions, gateway.webhook_installments`,
  );

  // A batch of automatic debit's events: installments paid, and the payments' subscriptions.
  const statement = loadProjectionStatement({
    installmentIds: [base + 22, base + 43, base + 64],
    subscriptionIds: [base + 2],
    linkIds: [],
  });
  const plan = JSON.stringify(await db.execute(sql`explain (format json) ${statement}`));
  for (const table of ['webhook_links', 'webhook_subscriptions', 'webhook_installments'])
    expect(plan, table).not.toMatch(new RegExp(`"Seq Scan"[^}]*"Relation Name":"${table}"`));
  expect(plan).toContain('webhook_subscriptions_pkey');
  expect(plan).toContain('webhook_links_pkey');
});

it("writes a batch's link statuses by key, not by scanning the links", async () => {
  const db = gateway.database.db;
  const merchant = '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f';
  const base = 800_000_000;
  await db.execute(sql`insert into gateway.webhook_links (link_id, merchant_id, label, amount, currency,
      recurrent, total_periods, status_id, subscription_id)
    select ${base} + g, ${merchant}::uuid, 'Gym', '150000.00', 'PYG', false, null, 1, null
    from generate_series(1, 20000) g on conflict do nothing`);
  await db.execute(sql`analyze gateway.webhook_links`);

  // A batch of one-off payments' link.paid.
  const statement = setLinkStatusesStatement(
    Array.from({ length: 50 }, (_, index) => ({
      linkId: base + 1 + index * 7,
      statusId: 200,
      txId: `tx-${index}`,
    })),
  );
  const plan = JSON.stringify(await db.execute(sql`explain (format json) ${statement}`));
  expect(plan).not.toMatch(/"Seq Scan"[^}]*"Relation Name":"webhook_links"/);
  expect(plan).toContain('webhook_links_pkey');
});
