import { rowsOf } from '@payrail/db';
import { type MigratedTestDatabase, migratedTestDatabase } from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dueCandidatesStatement } from '../../src/adapters/postgres/webhook-delivery-store';
import { gatewayService } from '../../src/service';

// A burst logs thousands of deliveries faster than PostgreSQL's statistics follow: the table was analyzed
// while almost nothing was pending. A claim's check that no earlier delivery of the same ordering key is
// pending must still be one short look by endpoint and ordering key per candidate, not a walk through the
// endpoint's whole backlog for each (160,000 buffers a claim at 50,000 pending, when it was joined).

const ENDPOINTS = 4;
const PENDING_EACH = 2_000;

let migrated: MigratedTestDatabase;
beforeAll(async () => {
  migrated = await migratedTestDatabase('gateway_claim_plan', gatewayService);
});
afterAll(async () => {
  await migrated?.drop();
});

it('checks the order of a claim’s candidates by key, with statistics taken before a burst', async () => {
  const db = migrated.database.db;
  const at = new Date('2026-11-24T10:00:00Z');
  await db.execute(sql`alter table gateway.webhook_deliveries set (autovacuum_enabled = false)`);
  await db.execute(sql`
    insert into gateway.merchants (id, name, instance, currency, processors)
    select ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'Merchant ' || g, 'NATIONAL', 'PYG',
           '[]'::jsonb
      from generate_series(1, ${ENDPOINTS}::int) g`);
  await db.execute(sql`
    insert into gateway.webhook_endpoints (id, merchant_id, url, method, events, secret_sealed, created_at,
                                           updated_at)
    select ('10000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid,
           ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid,
           'http://127.0.0.1:9/m/' || g, 'POST', '["*"]'::jsonb, 'sealed', ${at.toISOString()}::timestamptz,
           ${at.toISOString()}::timestamptz
      from generate_series(1, ${ENDPOINTS}::int) g`);
  // Every event of a link of its own (its own ordering key), the merchants in turn; all delivered first.
  await db.execute(sql`
    insert into gateway.webhook_events (id, merchant_id, kind, ordering_key, body, created_at)
    select 'evt_' || g, ('00000000-0000-4000-8000-' || lpad((1 + g % ${ENDPOINTS}::int)::text, 12, '0'))::uuid,
           'PAYMENT_SUCCESS', 'link:' || g, '{}', ${at.toISOString()}::timestamptz
      from generate_series(1, ${ENDPOINTS * PENDING_EACH}::int) g`);
  await db.execute(sql`
    insert into gateway.webhook_deliveries
      (id, endpoint_id, merchant_id, event_seq, event_id, kind, ordering_key, origin, status, attempt_count,
       next_attempt_at, created_at, delivered_at)
    select gen_random_uuid(),
           ('10000000-0000-4000-8000-' || substr(merchant_id::text, 25))::uuid, merchant_id, seq, id, kind,
           ordering_key, 'event', 'delivered', 1, null, created_at, created_at
      from gateway.webhook_events order by seq`);
  await db.execute(sql`analyze gateway.webhook_deliveries`);
  // The burst: all of them pending again, the statistics not told.
  await db.execute(sql`
    update gateway.webhook_deliveries
       set status = 'pending', attempt_count = 0, next_attempt_at = created_at, delivered_at = null`);

  const statement = dueCandidatesStatement({
    now: new Date(at.getTime() + 1_000),
    limit: 32,
    perEndpoint: 4,
    busy: new Map(),
    surplus: 0,
  });
  const candidates = rowsOf<{ id: string }>(await db.execute(statement));
  expect(candidates).toHaveLength(ENDPOINTS * 4);
  const [row] = rowsOf<{ 'QUERY PLAN': Array<{ Plan: Record<string, number> }> }>(
    await db.execute(sql`explain (analyze, buffers, format json) ${statement}`),
  );
  const plan = row?.['QUERY PLAN'][0]?.Plan ?? {};
  const buffers = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
  // About 25 a candidate (the endpoints' skip scan, their due deliveries, one look each by key); walking
  // each endpoint's backlog once per candidate is tens of thousands.
  expect(buffers).toBeLessThan(1_000);
});

/** The index each scan of `webhook_deliveries` in a plan reads, by the alias it scans it as. */
function indexesByAlias(plan: Record<string, unknown>, found = new Map<string, Set<string>>()) {
  if (plan['Relation Name'] === 'webhook_deliveries') {
    const alias = String(plan.Alias).replace(/_\d+$/, '');
    const used = found.get(alias) ?? new Set<string>();
    used.add(String(plan['Index Name'] ?? plan['Node Type']));
    found.set(alias, used);
  }
  for (const child of (plan.Plans as Array<Record<string, unknown>> | undefined) ?? [])
    indexesByAlias(child, found);
  return found;
}

it('can take the due deliveries only from the due index and the ordering check only from the order index', async () => {
  const db = migrated.database.db;
  const statement = dueCandidatesStatement({
    now: new Date('2026-11-24T10:00:01Z'),
    limit: 32,
    perEndpoint: 4,
    busy: new Map(),
    surplus: 0,
  });
  // Which plan the statistics lead to is not the point: with either index gone, the other is not used in
  // its place (the skip scan and the lateral are `d`, the ordering check `p`).
  const planWithout = async (index: string) => {
    try {
      await db.transaction(async (tx) => {
        await tx.execute(sql.raw(`drop index gateway.${index}`));
        const [row] = rowsOf<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>(
          await tx.execute(sql`explain (format json) ${statement}`),
        );
        throw Object.assign(new Error('rolled back'), { plan: row?.['QUERY PLAN'][0]?.Plan ?? {} });
      });
    } catch (error) {
      const { plan } = error as { plan?: Record<string, unknown> };
      if (!plan) throw error;
      return indexesByAlias(plan);
    }
    throw new Error('not reached');
  };
  const withoutDue = await planWithout('webhook_deliveries_endpoint_due_idx');
  expect([...(withoutDue.get('d') ?? [])]).not.toContain('webhook_deliveries_order_idx');
  expect([...(withoutDue.get('p') ?? [])]).toEqual(['webhook_deliveries_order_idx']);
  const withoutOrder = await planWithout('webhook_deliveries_order_idx');
  expect([...(withoutOrder.get('p') ?? [])]).not.toContain('webhook_deliveries_endpoint_due_idx');
  expect([...(withoutOrder.get('d') ?? [])]).toEqual(['webhook_deliveries_endpoint_due_idx']);
});
